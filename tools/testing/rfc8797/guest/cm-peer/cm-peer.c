// SPDX-License-Identifier: GPL-2.0
/*
 * cm-peer - a crafted RDMA-CM peer for RFC 8797 hostile-input tests
 *
 * Connects to, or accepts a connection from, an NFS/RDMA peer with
 * exactly the CM Private Data given on the command line, and prints
 * what the other side sent, so that a test can check how the kernel's
 * RFC 8797 parser (net/sunrpc/xprtrdma/cm_private.c) treats arbitrary
 * bytes and what the kernel answers with.
 *
 *   cm-peer connect ADDR PORT --data HEX [--hold SEC] [--timeout SEC]
 *			[--call readdir|null:SIZE|readlist:N|writelist:N:NAME|
 *				read:OFFSET:LEN:NAME]
 *	Active side (the role of an NFS client): resolve ADDR, create an
 *	RC QP, rdma_connect() with the given Private Data, wait for
 *	ESTABLISHED or REJECTED, print the server's answer, hold the
 *	connection for --hold seconds, then disconnect.  With --call
 *	readdir, first send one NFSv4.0 COMPOUND { PUTROOTFH, READDIR }
 *	inline and without any chunk, its reply limited to 3000 octets of
 *	entries, and print the server's answer as an "rpc-reply" line: a
 *	server that may not Send that much to this peer (the Receive size
 *	in HEX) has no Reply chunk to use and must answer RDMA_ERROR
 *	ERR_CHUNK (RFC 8166 section 4.5.3), never a larger Send.  With
 *	--call null:SIZE the call is an NFSv4 NULL padded with zeros to
 *	SIZE octets (68, the call unpadded, to 4096, a multiple of 4): a
 *	server whose Receive buffers are smaller loses the connection
 *	instead of replying.
 *	With --call readlist:N the call is an RDMA_NOMSG whose RPC
 *	message, an NFSv4 NULL padded with zeros to 4*N octets, sits in
 *	this peer's memory behind a position-zero Read chunk of N
 *	segments of 4 octets each (N = 10..MAX_SEGS): the server must
 *	pull it with at least N RDMA Reads posted as one chain, so N
 *	chooses how many Send Queue entries one call needs.  With
 *	--call writelist:N:NAME the call is an NFSv4.0 COMPOUND
 *	{ PUTROOTFH, LOOKUP NAME, READ } of 4*N octets at offset 0 with
 *	the anonymous stateid, and a Write list of one chunk of N
 *	segments of 4 octets: the server must RDMA Write the file's data
 *	in N pieces; the reply line then also shows the first octets the
 *	server wrote ("data=HEX", up to 32).  With --call
 *	read:OFFSET:LEN:NAME the call is the same COMPOUND with a READ of
 *	LEN octets (1..16384) at OFFSET and no chunk at all: the whole
 *	reply comes inline, and a line "rpc-data HEX" follows the reply
 *	line with every octet the READ returned.
 *
 *   cm-peer connect ADDR PORT --data HEX --count N [--call readdir]
 *			[--hold SEC] [--timeout SEC]
 *	N connections of the above, one after the other from this one
 *	process (a scale run's clients: a process each would cost the
 *	client guest a few MiB per connection), each established and
 *	its call answered before the next starts; then a line
 *	"count connected=N seconds=S" (or "count connected=K failed=EXIT
 *	seconds=S" when connection K+1 failed and no more are made; S:
 *	the time it took), the hold
 *	of them all, and their close.  A connection that the server
 *	closes meanwhile is a line "lost conn=I" (1-based) and makes the
 *	exit status 6 (unless connection K+1 failed: its status); "done
 *	count=N lost=L" ends the run.  SIGTERM also stops the making.
 *
 *   cm-peer listen ADDR PORT --data HEX [--hold SEC] [--timeout SEC]
 *			[--reply-inv own|other|stray|stray-write|RKEY]
 *	Passive side (the role of an NFS server): listen on ADDR:PORT,
 *	print the Private Data of the first connect request, accept it
 *	with the given Private Data, wait for ESTABLISHED, hold, then
 *	disconnect.  Later connect requests are rejected.  With
 *	--reply-inv, also answer the client's RPC-over-RDMA calls: calls
 *	without a Reply chunk (a NULL ping) get a plain Send of an RPC
 *	reply (MSG_ACCEPTED, AUTH_NONE, SUCCESS, no results); the first
 *	call with a Reply chunk gets the same reply by Send With
 *	Invalidate: "own" invalidates that chunk's rkey, "other" that
 *	rkey with its key octet changed, "stray" the chunk's rkey in a
 *	reply to an xid no call used followed by a plain reply to the
 *	call, "stray-write" the same with an RDMA Write of up to 64
 *	octets to that Reply chunk before the reply (a "write" line:
 *	whether the invalidated MR could still be written; the reply is
 *	sent only when the Write succeeded); a number RKEY
 *	answers the very first call by Send With Invalidate of RKEY.
 *
 * HEX is an even number of hex digits ("" for no Private Data); ':',
 * '.', '-', '_' and blanks between octets are ignored.  At most 255
 * octets (the librdmacm limit); the transport may allow fewer (RoCE/IB:
 * 56 on a connect request, 196 on a reply).
 *
 * Output on stdout, one line per event, line-buffered:
 *	event=NAME status=N len=N data=HEX
 * NAME is the RDMA-CM event (ESTABLISHED, REJECTED, CONNECT_REQUEST,
 * DISCONNECTED, ...), status the event's status, len and data the
 * Private Data the event carried (on RoCE/IB the whole zero-padded CM
 * field).  ESTABLISHED in the connect role carries the server's
 * reply; ESTABLISHED in the listen role carries none.  The call and
 * replies of --reply-inv are printed as "call ..." and "reply ..." lines.
 * "done" ends a run that got through its hold.  Diagnostics go to
 * stderr.
 *
 * Every wait is bounded by --timeout (default 10 s) and the hold by
 * --hold (default 0 s); SIGTERM or SIGINT ends a hold early and the
 * connection is still closed cleanly.
 *
 * Exit status:
 *	0  the connection was established, held and closed
 *	1  usage error
 *	2  setup failure: address or route resolution, device, QP,
 *	   rdma_connect()/rdma_accept() refused (e.g. Private Data too long)
 *	3  the connect request was rejected (connect role)
 *	4  a wait timed out
 *	5  an unexpected CM event (UNREACHABLE, CONNECT_ERROR, ...)
 *	6  the peer disconnected before the hold ended, or before it
 *	   replied to --call
 *	7  --reply-inv: a call could not be parsed or a reply not sent;
 *	   --call: the call could not be sent or no reply arrived
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

enum {
	EXIT_OK		= 0,
	EXIT_USAGE	= 1,
	EXIT_SETUP	= 2,
	EXIT_REJECTED	= 3,
	EXIT_TIMEOUT	= 4,
	EXIT_UNEXPECTED	= 5,
	EXIT_PEER_DISC	= 6,
	EXIT_RPC	= 7,
};

#define MAX_PDATA	255	/* rdma_conn_param.private_data_len is a u8 */
#define BUF_SIZE	32768	/* Receive buffers; Send buffers of --reply-inv */
#define NULL_MAX	4096	/* --call null:SIZE */
/* the smallest --call null:SIZE: the RPC-over-RDMA header without
 * chunks (seven words) and the NULL call (ten), unpadded
 */
#define NULL_MIN	((7 + 10) * 4)
#define READ_MAX	16384	/* --call read:OFFSET:LEN:NAME */
#define NR_RECV		4
#define COUNT_MAX	4096	/* --count N */

/* RPC-over-RDMA version 1 and ONC RPC constants (RFC 8166, RFC 5531) */
#define RPCRDMA_VERSION	1
#define RDMA_MSG	0
#define RPC_REPLY	1
#define MSG_ACCEPTED	0
#define AUTH_NONE	0
#define RPC_SUCCESS	0
#define RDMA_NOMSG	1
#define RDMA_ERROR	4
#define ERR_VERS	1
#define ERR_CHUNK	2
#define RPC_CALL	0
#define AUTH_SYS	1
#define NFS_PROGRAM	100003
#define NFSPROC4_COMPOUND 1
#define OP_PUTROOTFH	24
#define OP_READDIR	26
#define READDIR_MAX	3000	/* --call readdir: dircount and maxcount */
#define OP_LOOKUP	15
#define OP_READ		25
#define SEG_LEN		4	/* octets per segment of --call *list */
#define MAX_SEGS	2048	/* segments of --call readlist/writelist */
#define SEND_SIZE	(64 + 24 * MAX_SEGS + 512)	/* the largest call */

static const char *prog = "cm-peer";
static volatile sig_atomic_t stop_hold;

struct opts {
	bool listen;
	const char *addr;
	const char *port;
	uint8_t data[MAX_PDATA];
	size_t len;
	double hold;
	double timeout;
	unsigned int count;	/* --count N, or 0: one connection */
	bool reply_inv;
	bool call;
	size_t call_null;	/* --call null:SIZE, or 0 */
	size_t call_segs;	/* --call readlist:N or writelist:N:NAME */
	bool call_write;	/* writelist */
	const char *call_name;	/* writelist, read: the file to READ */
	size_t read_len;	/* --call read:OFFSET:LEN:NAME, or 0 */
	uint64_t read_off;
	enum { INV_RKEY, INV_OWN, INV_OTHER, INV_STRAY, INV_STRAY_WRITE } reply_inv_mode;
	uint32_t inv_rkey;
};

/* What an event carried, copied out before rdma_ack_cm_event() */
struct cm_ev {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	uint8_t pdata[256];
	size_t len;
	uint8_t initiator_depth;
	uint8_t responder_resources;
};

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;		/* NR_RECV receive buffers, then one send */
	struct ibv_mr *chunk_mr;	/* --call *list: the chunk's memory */
	uint8_t *chunk;
};

/* --count: the connections made so far, and which of them the peer closed */
static struct conn *many;
static bool *many_lost;
static unsigned int many_n, many_nlost;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s connect ADDR PORT --data HEX [--hold SEC] [--timeout SEC]\n"
		"       %s listen ADDR PORT --data HEX [--hold SEC] [--timeout SEC]\n"
		"                 [--reply-inv own|other|stray|stray-write|RKEY]\n"
		"       (connect only: [--call readdir|null:SIZE|readlist:N|writelist:N:NAME|\n"
		"                               read:OFFSET:LEN:NAME]\n"
		"                       [--count N], with no --call or --call readdir)\n"
		"\n"
		"A crafted RDMA-CM peer: sends exactly the Private Data HEX (\"\" for\n"
		"none, at most %d octets) in its connect request (connect) or its\n"
		"accept (listen), prints what the other side sent as\n"
		"  event=NAME status=N len=N data=HEX\n"
		"holds the connection for --hold seconds (default 0; SIGTERM ends\n"
		"it early) and disconnects.  Every wait is limited by --timeout\n"
		"(default 10 s).  --reply-inv answers RPC calls: NULL-like calls by\n"
		"Send, the first with a Reply chunk by Send With Invalidate of its\n"
		"rkey (own), of that rkey with another key octet (other), or of its\n"
		"rkey under an unused xid then the call's own reply by Send (stray),\n"
		"the same with an RDMA Write to that chunk before the reply, printed\n"
		"as a write line (stray-write); RKEY: the first call, that rkey.\n"
		"--call readdir sends one NFSv4.0 READDIR of the export root inline,\n"
		"without chunks, and prints the server's reply as an rpc-reply line;\n"
		"--call null:SIZE an NFSv4 NULL call padded to SIZE octets;\n"
		"--call readlist:N an NFSv4 NULL of 4*N octets behind a Read chunk\n"
		"of N 4-octet segments; --call writelist:N:NAME an NFSv4.0 READ of\n"
		"4*N octets of the file NAME in the export root into a Write\n"
		"chunk of N 4-octet segments; --call read:OFFSET:LEN:NAME an NFSv4.0\n"
		"READ of LEN octets at OFFSET without chunks, its data printed\n"
		"as an rpc-data line.  --count N makes N such connections, one\n"
		"after the other, holds them all and closes them.\n"
		"\n"
		"exit status: 0 ok, 1 usage, 2 setup/resolve failure, 3 rejected,\n"
		"4 timeout, 5 unexpected CM event, 6 peer disconnected during the\n"
		"hold, 7 RPC call not understood or reply not sent\n",
		prog, prog, MAX_PDATA);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse_hex(const char *s, uint8_t *out, size_t max, size_t *len)
{
	size_t n = 0;
	int hi, lo;

	while (*s) {
		if (strchr(":.-_ \t\n", *s)) {
			s++;
			continue;
		}
		hi = hexval(s[0]);
		lo = hi < 0 ? -1 : hexval(s[1]);
		if (hi < 0 || lo < 0) {
			fprintf(stderr, "%s: --data: not hex at \"%.8s\"\n",
				prog, s);
			return -1;
		}
		if (n == max) {
			fprintf(stderr, "%s: --data: more than %zu octets\n",
				prog, max);
			return -1;
		}
		out[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	*len = n;
	return 0;
}

static void print_hex(FILE *f, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		fprintf(f, "%02x", p[i]);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_hold = 1;
}

static void print_event(const struct cm_ev *ev)
{
	printf("event=%s status=%d len=%zu data=",
	       rdma_event_str(ev->type), ev->status, ev->len);
	print_hex(stdout, ev->pdata, ev->len);
	printf("\n");
}

/*
 * Wait until @deadline for the next CM event on @ch.  Returns 0 with
 * @ev filled in, EXIT_TIMEOUT, or -1 when a hold is to end (a signal
 * arrived and @interruptible).
 */
static int next_event(struct rdma_event_channel *ch, double deadline,
		      bool interruptible, struct cm_ev *ev)
{
	struct rdma_cm_event *e;
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	const struct rdma_conn_param *cp;
	double left;
	int ret;

	for (;;) {
		if (interruptible && stop_hold)
			return -1;
		left = deadline - now();
		if (left <= 0)
			return EXIT_TIMEOUT;
		ret = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			perror("poll");
			return EXIT_SETUP;
		}
		if (ret > 0)
			break;
	}
	if (rdma_get_cm_event(ch, &e)) {
		perror("rdma_get_cm_event");
		return EXIT_SETUP;
	}
	memset(ev, 0, sizeof(*ev));
	ev->type = e->event;
	ev->status = e->status;
	ev->id = e->id;
	ev->listen_id = e->listen_id;
	cp = &e->param.conn;
	if (e->id && e->id->ps == RDMA_PS_TCP && cp->private_data) {
		ev->len = cp->private_data_len;
		memcpy(ev->pdata, cp->private_data, ev->len);
		ev->initiator_depth = cp->initiator_depth;
		ev->responder_resources = cp->responder_resources;
	}
	rdma_ack_cm_event(e);
	return 0;
}

/* --count: which of the connections made so far @id is, or many_n */
static unsigned int conn_index(const struct rdma_cm_id *id)
{
	unsigned int i;

	for (i = 0; i < many_n && many[i].id != id; i++)
		;
	return i;
}

/*
 * --count: mark as closed the connection made so far whose DISCONNECTED
 * @ev is; true when it is one, not marked before, and then *@idx is it
 */
static bool mark_closed(const struct cm_ev *ev, unsigned int *idx)
{
	unsigned int i = conn_index(ev->id);

	if (ev->type != RDMA_CM_EVENT_DISCONNECTED || i == many_n ||
	    many_lost[i])
		return false;
	many_lost[i] = true;
	*idx = i;
	return true;
}

/*
 * --count: note a DISCONNECTED event of one of the connections made so
 * far (whatever was being waited for when it came): the peer closed it
 */
static void note_lost(const struct cm_ev *ev)
{
	unsigned int i;

	if (!mark_closed(ev, &i))
		return;
	many_nlost++;
	printf("lost conn=%u\n", i + 1);
}

/* Wait for an event of type @want on @id; others are unexpected */
static int wait_event(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		      enum rdma_cm_event_type want, double timeout,
		      struct cm_ev *ev)
{
	double deadline = now() + timeout;
	int ret;

	for (;;) {
		ret = next_event(ch, deadline, false, ev);
		if (ret == EXIT_TIMEOUT) {
			fprintf(stderr, "%s: no %s within %.1f s\n", prog,
				rdma_event_str(want), timeout);
			printf("event=TIMEOUT waiting=%s\n",
			       rdma_event_str(want));
		}
		if (ret)
			return ret;
		if (ev->type == want && ev->id == id)
			return 0;
		print_event(ev);
		/* --count: the loss of a connection made before (noted),
		 * or any later event of one, is not this one's failure
		 */
		if (ev->id == id || conn_index(ev->id) == many_n)
			break;
		note_lost(ev);
	}
	fprintf(stderr, "%s: %s (status %d) while waiting for %s\n", prog,
		rdma_event_str(ev->type), ev->status, rdma_event_str(want));
	switch (ev->type) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return EXIT_SETUP;
	case RDMA_CM_EVENT_REJECTED:
		return EXIT_REJECTED;
	default:
		return EXIT_UNEXPECTED;
	}
}

static int resolve(const char *addr, const char *port, bool passive,
		   struct sockaddr_storage *ss)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
			    (passive ? AI_PASSIVE : 0),
	};
	struct addrinfo *ai;
	int ret;

	ret = getaddrinfo(addr, port, &hints, &ai);
	if (ret) {
		fprintf(stderr, "%s: %s port %s: %s\n", prog, addr, port,
			gai_strerror(ret));
		return -1;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static int post_recv(struct conn *c, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + (size_t)i * BUF_SIZE),
		.length = BUF_SIZE,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

/* A PD, one CQ and an RC QP on @id; receives posted when @recvs */
static int make_qp(struct conn *c, bool recvs)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = NR_RECV,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	unsigned int i;

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd) {
		perror("ibv_alloc_pd");
		return EXIT_SETUP;
	}
	c->cq = ibv_create_cq(c->id->verbs, 16, NULL, NULL, 0);
	if (!c->cq) {
		perror("ibv_create_cq");
		return EXIT_SETUP;
	}
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &attr)) {
		perror("rdma_create_qp");
		return EXIT_SETUP;
	}
	if (!recvs)
		return 0;
	c->buf = calloc(1, (size_t)NR_RECV * BUF_SIZE + SEND_SIZE);
	if (!c->buf)
		return EXIT_SETUP;
	c->mr = ibv_reg_mr(c->pd, c->buf, (size_t)NR_RECV * BUF_SIZE + SEND_SIZE,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr) {
		perror("ibv_reg_mr");
		return EXIT_SETUP;
	}
	/* the memory a Read or Write chunk of --call points to */
	c->chunk = calloc(MAX_SEGS, SEG_LEN);
	if (!c->chunk)
		return EXIT_SETUP;
	c->chunk_mr = ibv_reg_mr(c->pd, c->chunk, (size_t)MAX_SEGS * SEG_LEN,
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_WRITE);
	if (!c->chunk_mr) {
		perror("ibv_reg_mr");
		return EXIT_SETUP;
	}
	for (i = 0; i < NR_RECV; i++) {
		if (post_recv(c, i)) {
			perror("ibv_post_recv");
			return EXIT_SETUP;
		}
	}
	return 0;
}

static void free_conn(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->chunk_mr)
		ibv_dereg_mr(c->chunk_mr);
	free(c->chunk);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->buf);
	if (c->id)
		rdma_destroy_id(c->id);
	memset(c, 0, sizeof(*c));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return ntohl(v);
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	p = put32(p, (uint32_t)(v >> 32));
	return put32(p, (uint32_t)v);
}

/* One RDMA segment (RFC 8166 section 4.1.2): handle, length, offset */
static uint8_t *put_segment(uint8_t *p, const struct conn *c, size_t i)
{
	p = put32(p, c->chunk_mr->rkey);
	p = put32(p, SEG_LEN);
	return put64(p, (uintptr_t)(c->chunk + i * SEG_LEN));
}

/* An NFSv4 NULL call, AUTH_NONE, at @p; returns its end */
static uint8_t *put_null_call(uint8_t *p, uint32_t xid)
{
	p = put32(p, xid);
	p = put32(p, RPC_CALL);
	p = put32(p, 2);		/* RPC version */
	p = put32(p, NFS_PROGRAM);
	p = put32(p, 4);
	p = put32(p, 0);		/* NFSPROC4_NULL */
	p = put32(p, AUTH_NONE);
	p = put32(p, 0);
	p = put32(p, AUTH_NONE);
	return put32(p, 0);
}

/*
 * A DISCONNECTED event for @c on @ch, without waiting: the server
 * closed the connection (other events are printed and dropped)
 */
static bool disconnected(struct rdma_event_channel *ch, struct conn *c)
{
	struct cm_ev ev;

	while (next_event(ch, now() + 0.001, false, &ev) == 0) {
		print_event(&ev);
		if (ev.id == c->id && ev.type == RDMA_CM_EVENT_DISCONNECTED)
			return true;
		note_lost(&ev);
	}
	return false;
}

/*
 * Poll the CQ until a completion arrives or @deadline passes; with @ch,
 * also return EXIT_PEER_DISC when the peer disconnects meanwhile
 */
static int poll_one(struct conn *c, double deadline, struct ibv_wc *wc,
		    struct rdma_event_channel *ch)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	int n;

	for (;;) {
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n < 0) {
			perror("ibv_poll_cq");
			return EXIT_RPC;
		}
		if (n > 0)
			return 0;
		if (ch && disconnected(ch, c))
			return EXIT_PEER_DISC;
		if (now() > deadline)
			return EXIT_TIMEOUT;
		nanosleep(&ts, NULL);
	}
}

/* Post @wr, signaled, and wait for its completion into @wc */
static int post_and_wait(struct conn *c, struct ibv_send_wr *wr,
			 double deadline, struct ibv_wc *wc)
{
	struct ibv_send_wr *bad;
	int ret;

	if (ibv_post_send(c->id->qp, wr, &bad)) {
		perror("ibv_post_send");
		return EXIT_RPC;
	}
	do {
		ret = poll_one(c, deadline, wc, NULL);
		if (ret)
			return ret;
	} while (wc->wr_id != wr->wr_id);
	return 0;
}

/*
 * Send an RPC-over-RDMA RDMA_MSG with empty chunk lists carrying an
 * RPC reply to @xid: MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS and no
 * results (a complete reply to NULL).  With @inv, by Send With
 * Invalidate of @rkey.  Waits for the Send to complete.
 */
static int send_reply(struct conn *c, uint32_t xid, uint32_t credits,
		      bool inv, uint32_t rkey, double deadline)
{
	uint8_t *rep = c->buf + (size_t)NR_RECV * BUF_SIZE, *p = rep;
	struct ibv_sge sge = { .lkey = c->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = NR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	int ret;

	p = put32(p, xid);
	p = put32(p, RPCRDMA_VERSION);
	p = put32(p, credits ? credits : 1);
	p = put32(p, RDMA_MSG);
	p = put32(p, 0);		/* Read list */
	p = put32(p, 0);		/* Write list */
	p = put32(p, 0);		/* Reply chunk */
	p = put32(p, xid);		/* the RPC reply */
	p = put32(p, RPC_REPLY);
	p = put32(p, MSG_ACCEPTED);
	p = put32(p, AUTH_NONE);	/* verifier: flavor, length 0 */
	p = put32(p, 0);
	p = put32(p, RPC_SUCCESS);
	sge.addr = (uintptr_t)rep;
	sge.length = (uint32_t)(p - rep);
	if (inv) {
		wr.invalidate_rkey = rkey;
		/* libsiw (rdma-core 44) takes the rkey to invalidate from
		 * wr.rdma.rkey instead of invalidate_rkey; a Send ignores
		 * wr.rdma everywhere else
		 */
		wr.wr.rdma.rkey = rkey;
	}
	ret = post_and_wait(c, &wr, deadline, &wc);
	if (ret)
		return ret;
	printf("reply xid=0x%08x send=%s inv_rkey=0x%08x status=%s\n", xid,
	       inv ? "SEND_WITH_INV" : "SEND", inv ? rkey : 0,
	       ibv_wc_status_str(wc.status));
	return wc.status == IBV_WC_SUCCESS ? 0 : EXIT_RPC;
}

/*
 * --reply-inv stray-write, after the stray invalidation: RDMA Write
 * @len octets (0xa5) to the Reply chunk segment @rkey/@off, as a server
 * answering the call through its Reply chunk would, and print
 * "write rkey=RKEY len=LEN status=STATUS": whether the MR the stray
 * Send With Invalidate named could still be written.
 */
static int write_chunk(struct conn *c, uint32_t rkey, uint64_t off,
		       uint32_t len, double deadline)
{
	uint8_t *src = c->buf + (size_t)NR_RECV * BUF_SIZE;
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = len, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = NR_RECV + 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	int ret;

	memset(src, 0xa5, len);
	wr.wr.rdma.remote_addr = off;
	wr.wr.rdma.rkey = rkey;
	ret = post_and_wait(c, &wr, deadline, &wc);
	if (ret)
		return ret;
	printf("write rkey=0x%08x len=%u status=%s\n", rkey, len,
	       ibv_wc_status_str(wc.status));
	return wc.status == IBV_WC_SUCCESS ? 0 : EXIT_RPC;
}

/*
 * --reply-inv: answer the client's calls.  The RPC-over-RDMA header
 * (RFC 8166 section 4.2) is xid, vers, credits, proc, then the Read
 * list, the Write list and the Reply chunk.  Each call must be an
 * RDMA_MSG with empty Read and Write lists.  A call without a Reply
 * chunk (a NULL ping) is answered by plain Send, and the next call
 * awaited; the first call that carries a Reply chunk, or with an
 * explicit RKEY the first call, gets the hostile reply:
 *   own    its own xid, Send With Invalidate of its Reply chunk's rkey
 *   other  its own xid, Send With Invalidate of that rkey with the
 *          key octet changed (the same MR on a device that ignores the
 *          key, an invalid rkey on one that checks it)
 *   stray  an xid no call used, Send With Invalidate of its rkey,
 *          then a plain reply to the call: does the client keep the
 *          connection after a stray invalidation?
 *   stray-write  the same with an RDMA Write to that Reply chunk
 *          (write_chunk) before the reply, which is sent only when the
 *          Write succeeds: what a server answering the call through
 *          its Reply chunk meets after a late reply invalidated it
 *   RKEY   its own xid, Send With Invalidate of RKEY
 */
static int answer_calls(struct conn *c, const struct opts *o)
{
	double deadline = now() + o->timeout;
	uint32_t xid, vers, credits, proc, handle, rkey, seglen;
	uint64_t segoff;
	struct ibv_wc wc;
	uint8_t *call;
	bool chunk;
	size_t len;
	int ret;

	for (;;) {
		ret = poll_one(c, deadline, &wc, NULL);
		if (ret == EXIT_TIMEOUT) {
			fprintf(stderr, "%s: no RPC call within %.1f s\n", prog,
				o->timeout);
			printf("call timeout\n");
		}
		if (ret)
			return ret;
		if (wc.wr_id >= NR_RECV)
			continue;	/* a late Send completion */
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "%s: receive failed: %s\n", prog,
				ibv_wc_status_str(wc.status));
			printf("call error=%s\n", ibv_wc_status_str(wc.status));
			return EXIT_RPC;
		}
		call = c->buf + (size_t)wc.wr_id * BUF_SIZE;
		len = wc.byte_len;
		if (len < 28) {
			fprintf(stderr, "%s: call of %zu octets is too short\n",
				prog, len);
			return EXIT_RPC;
		}
		xid = get32(call);
		vers = get32(call + 4);
		credits = get32(call + 8);
		proc = get32(call + 12);
		chunk = get32(call + 24);
		handle = chunk && len >= 48 ? get32(call + 32) : 0;
		printf("call xid=0x%08x vers=%u credits=%u proc=%u len=%zu reply_chunk=%s",
		       xid, vers, credits, proc, len, chunk ? "yes" : "no");
		if (chunk)
			printf(" handle=0x%08x", handle);
		printf("\n");
		if (vers != RPCRDMA_VERSION || proc != RDMA_MSG ||
		    get32(call + 16) || get32(call + 20) || (chunk && len < 48)) {
			fprintf(stderr, "%s: not an RDMA_MSG call without Read or Write list\n",
				prog);
			return EXIT_RPC;
		}
		if (post_recv(c, (unsigned int)wc.wr_id)) {
			perror("ibv_post_recv");
			return EXIT_RPC;
		}
		if (o->reply_inv_mode == INV_RKEY)
			return send_reply(c, xid, credits, true, o->inv_rkey,
					  deadline);
		if (!chunk) {
			ret = send_reply(c, xid, credits, false, 0, deadline);
			if (ret)
				return ret;
			continue;
		}
		rkey = handle;
		if (o->reply_inv_mode == INV_OTHER)
			rkey ^= 0xff;
		if (o->reply_inv_mode == INV_OWN || o->reply_inv_mode == INV_OTHER)
			return send_reply(c, xid, credits, true, rkey, deadline);
		ret = send_reply(c, xid ^ 0x80000000, credits, true, rkey,
				 deadline);
		if (!ret && o->reply_inv_mode == INV_STRAY_WRITE) {
			/* the first segment: handle, length, 64-bit offset */
			seglen = get32(call + 36);
			segoff = (uint64_t)get32(call + 40) << 32 |
				 get32(call + 44);
			ret = write_chunk(c, rkey, segoff,
					  seglen < 64 ? seglen : 64, deadline);
		}
		if (!ret)
			ret = send_reply(c, xid, credits, false, 0, deadline);
		return ret;
	}
}

/*
 * The status of the NFSv4 COMPOUND in an RDMA_MSG reply of @len
 * octets: past the transport header's chunk lists (RFC 8166 section
 * 4.2), the RPC reply's xid, type, reply_stat, verifier and
 * accept_stat.  -1 if the reply is not that.
 */
static int compound_status(const uint8_t *rep, size_t len)
{
	size_t off = 16, n;

	if (len < off + 12 || get32(rep + off))	/* no Read list */
		return -1;
	off += 4;
	while (off + 4 <= len && get32(rep + off)) {	/* Write chunks */
		if (off + 8 > len)
			return -1;
		n = get32(rep + off + 4);
		off += 8 + 16 * n;
	}
	off += 4;
	if (off + 4 > len || get32(rep + off))	/* no Reply chunk */
		return -1;
	off += 4 + 12;				/* xid, REPLY, MSG_ACCEPTED */
	if (off + 8 > len)
		return -1;
	off += 8 + ((get32(rep + off + 4) + 3) & ~3u);	/* verifier */
	if (off + 8 > len || get32(rep + off) != RPC_SUCCESS)
		return -1;
	return (int)get32(rep + off + 4);
}

/*
 * --call read: after the reply line's " nfs_status=N", print the data
 * of the READ that ends the COMPOUND { PUTROOTFH, LOOKUP, READ } in the
 * RDMA_MSG reply @rep of @len octets, as a line "rpc-data HEX".
 * Returns EXIT_RPC if the reply is not a successful such COMPOUND, or
 * its data runs past @len.
 */
static int print_read(const uint8_t *rep, size_t len)
{
	int status = compound_status(rep, len);
	size_t off = 28, n;	/* the header with three empty lists */

	printf(" nfs_status=%d\n", status);
	if (status || get32(rep + 16) || get32(rep + 20) || get32(rep + 24))
		return EXIT_RPC;
	off += 12;				/* xid, REPLY, MSG_ACCEPTED */
	off += 8 + ((get32(rep + off + 4) + 3) & ~3u);	/* verifier */
	off += 8;				/* SUCCESS, COMPOUND status */
	if (off + 8 > len)
		return EXIT_RPC;
	off += 4 + ((get32(rep + off) + 3) & ~3u);	/* tag */
	if (off + 4 > len || get32(rep + off) != 3)	/* three results */
		return EXIT_RPC;
	off += 4;
	off += 2 * 8;				/* PUTROOTFH, LOOKUP: NFS4_OK */
	off += 8 + 4;				/* READ, NFS4_OK, eof */
	if (off + 4 > len)
		return EXIT_RPC;
	n = get32(rep + off);
	off += 4;
	if (n > len - off)
		return EXIT_RPC;
	printf("rpc-data ");
	print_hex(stdout, rep + off, n);
	printf("\n");
	return 0;
}

/*
 * --call readdir: one RPC-over-RDMA RDMA_MSG with empty chunk lists
 * carrying an NFSv4.0 COMPOUND { PUTROOTFH, READDIR } under AUTH_SYS
 * (root), then wait for the reply and print
 *	rpc-reply xid=X proc=NAME [err=NAME] len=N status=WC
 * len is the octets the server Sent, which must not exceed the
 * Receive size this peer advertised (the buffers posted are larger so
 * that an overrun is seen, not lost).  A server that closes the
 * connection instead of replying gives "rpc-reply disconnected" and
 * exit status 6.
 */
static int send_call(struct rdma_event_channel *ch, struct conn *c,
		     const struct opts *o)
{
	static const char *const procs[] = {
		"RDMA_MSG", "RDMA_NOMSG", "RDMA_MSGP", "RDMA_DONE", "RDMA_ERROR",
	};
	uint8_t *msg = c->buf + (size_t)NR_RECV * BUF_SIZE, *p = msg;
	double deadline = now() + o->timeout;
	struct ibv_sge sge = { .lkey = c->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = NR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint32_t xid = 0x52464338, proc, err;	/* "RFC8" */
	const uint8_t *rep;
	struct ibv_wc wc;
	size_t i;
	int ret;

	p = put32(p, xid);
	p = put32(p, RPCRDMA_VERSION);
	p = put32(p, 1);		/* credits asked for */
	if (o->call_segs && !o->call_write) {
		/* RDMA_NOMSG: the whole call in a position-zero Read
		 * chunk, one 4-octet segment after the other, padded with
		 * zeros (whatever the server makes of the padding)
		 */
		p = put32(p, RDMA_NOMSG);
		for (i = 0; i < o->call_segs; i++) {
			p = put32(p, 1);	/* a Read segment follows */
			p = put32(p, 0);	/* position zero */
			p = put_segment(p, c, i);
		}
		p = put32(p, 0);	/* end of the Read list */
		p = put32(p, 0);	/* Write list */
		p = put32(p, 0);	/* no Reply chunk */
		memset(c->chunk, 0, o->call_segs * SEG_LEN);
		put_null_call(c->chunk, xid);
		goto post;
	}
	p = put32(p, RDMA_MSG);
	p = put32(p, 0);		/* Read list */
	if (o->call_write) {
		/* one Write chunk of 4-octet segments for the READ */
		p = put32(p, 1);
		p = put32(p, (uint32_t)o->call_segs);
		for (i = 0; i < o->call_segs; i++)
			p = put_segment(p, c, i);
		memset(c->chunk, 0, o->call_segs * SEG_LEN);
	}
	p = put32(p, 0);		/* end of the Write list */
	p = put32(p, 0);		/* no Reply chunk */
	if (o->call_null) {
		/* zero padding up to the size: a message of exactly that
		 * many octets, whatever the server makes of the padding
		 */
		p = put_null_call(p, xid);
		memset(p, 0, o->call_null - (size_t)(p - msg));
		p = msg + o->call_null;
		goto post;
	}
	p = put32(p, xid);		/* RPC call (RFC 5531) */
	p = put32(p, RPC_CALL);
	p = put32(p, 2);		/* RPC version */
	p = put32(p, NFS_PROGRAM);
	p = put32(p, 4);
	p = put32(p, NFSPROC4_COMPOUND);
	p = put32(p, AUTH_SYS);
	p = put32(p, 28);		/* credential body length */
	p = put32(p, 0);		/* stamp */
	p = put32(p, 6);		/* machine name */
	memcpy(p, "cmpeer\0\0", 8);
	p += 8;
	p = put32(p, 0);		/* uid */
	p = put32(p, 0);		/* gid */
	p = put32(p, 0);		/* no other gids */
	p = put32(p, AUTH_NONE);	/* verifier */
	p = put32(p, 0);
	p = put32(p, 0);		/* COMPOUND4args: empty tag */
	p = put32(p, 0);		/* minorversion */
	if (o->call_write || o->read_len) {
		size_t n = strlen(o->call_name);

		p = put32(p, 3);	/* three operations */
		p = put32(p, OP_PUTROOTFH);
		p = put32(p, OP_LOOKUP);
		p = put32(p, (uint32_t)n);
		memset(p, 0, (n + 3) & ~(size_t)3);
		memcpy(p, o->call_name, n);
		p += (n + 3) & ~(size_t)3;
		p = put32(p, OP_READ);
		for (i = 0; i < 4; i++)
			p = put32(p, 0);	/* the anonymous stateid */
		p = put64(p, o->read_off);
		p = put32(p, o->read_len ? (uint32_t)o->read_len :
				   (uint32_t)(o->call_segs * SEG_LEN));
		goto post;
	}
	p = put32(p, 2);		/* two operations */
	p = put32(p, OP_PUTROOTFH);
	p = put32(p, OP_READDIR);
	p = put32(p, 0);		/* cookie */
	p = put32(p, 0);
	p = put32(p, 0);		/* cookieverf */
	p = put32(p, 0);
	p = put32(p, READDIR_MAX);	/* dircount */
	p = put32(p, READDIR_MAX);	/* maxcount */
	p = put32(p, 1);		/* attr_request: FATTR4_TYPE */
	p = put32(p, 1u << 1);
post:
	sge.addr = (uintptr_t)msg;
	sge.length = (uint32_t)(p - msg);
	if (ibv_post_send(c->id->qp, &wr, &bad)) {
		perror("ibv_post_send");
		return EXIT_RPC;
	}
	printf("rpc-call xid=0x%08x len=%u\n", xid, sge.length);
	for (;;) {
		ret = poll_one(c, deadline, &wc, ch);
		if (ret == EXIT_TIMEOUT)
			printf("rpc-reply timeout\n");
		if (ret == EXIT_PEER_DISC)
			printf("rpc-reply disconnected\n");
		if (ret)
			return ret;
		if (wc.wr_id == NR_RECV) {
			if (wc.status == IBV_WC_SUCCESS)
				continue;
			printf("rpc-call error=%s\n", ibv_wc_status_str(wc.status));
			return EXIT_RPC;
		}
		if (wc.status == IBV_WC_WR_FLUSH_ERR) {
			/* the QP went to error: the server closed it */
			printf("rpc-reply disconnected\n");
			return EXIT_PEER_DISC;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("rpc-reply error=%s\n", ibv_wc_status_str(wc.status));
			return EXIT_RPC;
		}
		break;
	}
	rep = c->buf + (size_t)wc.wr_id * BUF_SIZE;
	if (wc.byte_len < 16) {
		printf("rpc-reply len=%u short\n", wc.byte_len);
		return EXIT_RPC;
	}
	proc = get32(rep + 12);
	printf("rpc-reply xid=0x%08x proc=%s", get32(rep),
	       proc < sizeof(procs) / sizeof(procs[0]) ? procs[proc] : "?");
	if (proc == RDMA_ERROR && wc.byte_len >= 20) {
		err = get32(rep + 16);
		printf(" err=%s", err == ERR_CHUNK ? "ERR_CHUNK" :
		       err == ERR_VERS ? "ERR_VERS" : "?");
	}
	printf(" len=%u status=%s", wc.byte_len, ibv_wc_status_str(wc.status));
	if (o->call_write && proc == RDMA_MSG) {
		printf(" nfs_status=%d", compound_status(rep, wc.byte_len));
		printf(" data=");
		print_hex(stdout, c->chunk, o->call_segs * SEG_LEN < 32 ?
			  o->call_segs * SEG_LEN : 32);
	}
	if (o->read_len && proc == RDMA_MSG)
		return print_read(rep, wc.byte_len);
	printf("\n");
	return 0;
}

/*
 * Hold an established connection until --hold passes or a signal
 * arrives, rejecting any further connect request on a listener; then
 * disconnect and wait for DISCONNECTED.
 */
static int hold_and_close(struct rdma_event_channel *ch, struct conn *c,
			  const struct opts *o)
{
	double deadline = now() + o->hold;
	bool peer_gone = false;
	struct cm_ev ev;
	int ret;

	for (;;) {
		ret = next_event(ch, deadline, true, &ev);
		if (ret == -1 || ret == EXIT_TIMEOUT)
			break;		/* the hold is over */
		if (ret)
			return ret;
		if (ev.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			print_event(&ev);
			rdma_reject(ev.id, NULL, 0);
			rdma_destroy_id(ev.id);
			continue;
		}
		print_event(&ev);
		if (ev.id == c->id && ev.type == RDMA_CM_EVENT_DISCONNECTED) {
			peer_gone = true;
			break;
		}
		if (ev.id == c->id)
			return EXIT_UNEXPECTED;
	}
	if (!peer_gone) {
		rdma_disconnect(c->id);
		ret = wait_event(ch, c->id, RDMA_CM_EVENT_DISCONNECTED,
				 o->timeout, &ev);
		if (ret)
			return ret;
	}
	printf("done%s\n", peer_gone ? " peer-disconnected" : "");
	return peer_gone ? EXIT_PEER_DISC : EXIT_OK;
}

/*
 * Send the user's private data with rdma_accept() (@accept) or
 * rdma_connect(), wait for ESTABLISHED and print it.
 */
static int establish(struct rdma_event_channel *ch, struct conn *c,
		     const struct opts *o, bool accept,
		     struct rdma_conn_param *param)
{
	const char *verb = accept ? "accept" : "connect";
	struct cm_ev ev;
	int ret;

	param->private_data = o->len ? o->data : NULL;
	param->private_data_len = (uint8_t)o->len;
	if (accept ? rdma_accept(c->id, param) : rdma_connect(c->id, param)) {
		fprintf(stderr, "%s: rdma_%s with %zu octets: %s\n", prog,
			verb, o->len, strerror(errno));
		printf("event=%s_FAILED errno=%d\n",
		       accept ? "ACCEPT" : "CONNECT", errno);
		return EXIT_SETUP;
	}
	ret = wait_event(ch, c->id, RDMA_CM_EVENT_ESTABLISHED, o->timeout,
			 &ev);
	if (!ret)
		print_event(&ev);
	return ret;
}

/*
 * The connect role up to the hold: resolve @dst, make the QP, connect
 * with the user's Private Data and send --call.  @c holds what was made,
 * for free_conn(), whatever the outcome.
 */
static int connect_one(struct rdma_event_channel *ch, const struct opts *o,
		       const struct sockaddr_storage *dst, struct conn *c)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	int ms = (int)(o->timeout * 1000);
	struct cm_ev ev;
	int ret;

	if (rdma_create_id(ch, &c->id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return EXIT_SETUP;
	}
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)dst, ms)) {
		perror("rdma_resolve_addr");
		return EXIT_SETUP;
	}
	ret = wait_event(ch, c->id, RDMA_CM_EVENT_ADDR_RESOLVED, o->timeout,
			 &ev);
	if (ret)
		return ret;
	if (rdma_resolve_route(c->id, ms)) {
		perror("rdma_resolve_route");
		return EXIT_SETUP;
	}
	ret = wait_event(ch, c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, o->timeout,
			 &ev);
	if (ret)
		return ret;
	ret = make_qp(c, o->call);
	if (ret)
		return ret;
	ret = establish(ch, c, o, false, &param);
	if (ret || !o->call)
		return ret;
	return send_call(ch, c, o);
}

/*
 * --count: hold the connections made until --hold passes or a signal
 * arrives, noting those the peer closes; then disconnect the others
 * and wait for each one's DISCONNECTED.
 */
static int hold_and_close_many(struct rdma_event_channel *ch,
			       const struct opts *o)
{
	double deadline = now() + o->hold;
	unsigned int i, open, lost;
	struct cm_ev ev;
	int ret;

	for (;;) {
		ret = next_event(ch, deadline, true, &ev);
		if (ret == -1 || ret == EXIT_TIMEOUT)
			break;		/* the hold is over */
		if (ret)
			return ret;
		print_event(&ev);
		note_lost(&ev);
	}
	lost = many_nlost;
	for (i = 0; i < many_n; i++) {
		if (!many_lost[i])
			rdma_disconnect(many[i].id);
	}
	deadline = now() + o->timeout;
	for (open = many_n - lost; open; ) {
		if (next_event(ch, deadline, false, &ev))
			break;
		if (mark_closed(&ev, &i))
			open--;
	}
	printf("done count=%u lost=%u%s\n", many_n, lost,
	       open ? " close-timeout" : "");
	if (open)
		return EXIT_TIMEOUT;
	return lost ? EXIT_PEER_DISC : EXIT_OK;
}

static int run_connect(struct rdma_event_channel *ch, const struct opts *o)
{
	struct sockaddr_storage dst;
	unsigned int i, n = o->count ? o->count : 1;
	double start;
	int ret, held;

	if (resolve(o->addr, o->port, false, &dst))
		return EXIT_SETUP;
	many = calloc(n, sizeof(*many));
	many_lost = calloc(n, sizeof(*many_lost));
	if (!many || !many_lost) {
		perror("calloc");
		return EXIT_SETUP;
	}
	if (!o->count) {
		ret = connect_one(ch, o, &dst, &many[0]);
		if (!ret)
			ret = hold_and_close(ch, &many[0], o);
		free_conn(&many[0]);
		free(many);
		free(many_lost);
		return ret;
	}
	start = now();
	for (ret = EXIT_OK; many_n < n && !ret && !stop_hold; many_n++)
		ret = connect_one(ch, o, &dst, &many[many_n]);
	if (ret) {
		/* the connection that failed is freed, never closed */
		free_conn(&many[--many_n]);
		printf("count connected=%u failed=%d seconds=%.1f\n", many_n,
		       ret, now() - start);
	} else {
		printf("count connected=%u seconds=%.1f\n", many_n,
		       now() - start);
	}
	held = hold_and_close_many(ch, o);
	if (!ret)
		ret = held;
	for (i = 0; i < many_n; i++)
		free_conn(&many[i]);
	free(many);
	free(many_lost);
	return ret;
}

static int run_listen(struct rdma_event_channel *ch, const struct opts *o)
{
	struct rdma_conn_param param = {
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct rdma_cm_id *lid = NULL;
	struct sockaddr_storage src;
	struct conn c = { 0 };
	struct ibv_device_attr da;
	struct cm_ev ev;
	int ret;

	if (resolve(o->addr, o->port, true, &src))
		return EXIT_SETUP;
	if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return EXIT_SETUP;
	}
	ret = EXIT_SETUP;
	if (rdma_bind_addr(lid, (struct sockaddr *)&src)) {
		perror("rdma_bind_addr");
		goto out;
	}
	if (rdma_listen(lid, 4)) {
		perror("rdma_listen");
		goto out;
	}
	printf("listening\n");
	ret = next_event(ch, now() + o->timeout, false, &ev);
	if (ret == EXIT_TIMEOUT) {
		fprintf(stderr, "%s: no connect request within %.1f s\n", prog,
			o->timeout);
		printf("event=TIMEOUT waiting=%s\n",
		       rdma_event_str(RDMA_CM_EVENT_CONNECT_REQUEST));
	}
	if (ret)
		goto out;
	print_event(&ev);
	if (ev.type != RDMA_CM_EVENT_CONNECT_REQUEST) {
		ret = EXIT_UNEXPECTED;
		goto out;
	}
	c.id = ev.id;
	ret = make_qp(&c, o->reply_inv);
	if (ret) {
		rdma_reject(c.id, NULL, 0);
		goto out;
	}
	/* Answer the peer's IRD/ORD, within what this device supports */
	if (ibv_query_device(c.id->verbs, &da)) {
		perror("ibv_query_device");
		rdma_reject(c.id, NULL, 0);
		goto out;
	}
	param.responder_resources = ev.initiator_depth;
	if (param.responder_resources > da.max_qp_rd_atom)
		param.responder_resources = (uint8_t)da.max_qp_rd_atom;
	param.initiator_depth = ev.responder_resources;
	if (param.initiator_depth > da.max_qp_init_rd_atom)
		param.initiator_depth = (uint8_t)da.max_qp_init_rd_atom;
	ret = establish(ch, &c, o, true, &param);
	if (ret)
		goto out;
	if (o->reply_inv) {
		ret = answer_calls(&c, o);
		if (ret)
			goto out;
	}
	ret = hold_and_close(ch, &c, o);
out:
	free_conn(&c);
	if (lid)
		rdma_destroy_id(lid);
	return ret;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end && *out >= 0 && *out <= 3600 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "hold", required_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 't' },
		{ "reply-inv", required_argument, NULL, 'i' },
		{ "call", required_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .timeout = 10 };
	struct rdma_event_channel *ch;
	struct sigaction sa = { .sa_handler = on_signal };
	bool have_data = false;
	char *end;
	int opt, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (parse_hex(optarg, o.data, sizeof(o.data), &o.len))
				return EXIT_USAGE;
			have_data = true;
			break;
		case 'H':
			if (parse_seconds(optarg, &o.hold))
				goto bad;
			break;
		case 't':
			if (parse_seconds(optarg, &o.timeout) || o.timeout == 0)
				goto bad;
			break;
		case 'i':
			o.reply_inv = true;
			o.reply_inv_mode = INV_RKEY;
			if (!strcmp(optarg, "own"))
				o.reply_inv_mode = INV_OWN;
			else if (!strcmp(optarg, "other"))
				o.reply_inv_mode = INV_OTHER;
			else if (!strcmp(optarg, "stray"))
				o.reply_inv_mode = INV_STRAY;
			else if (!strcmp(optarg, "stray-write"))
				o.reply_inv_mode = INV_STRAY_WRITE;
			if (o.reply_inv_mode != INV_RKEY)
				break;
			errno = 0;
			o.inv_rkey = (uint32_t)strtoul(optarg, &end, 0);
			if (errno || !*optarg || *end)
				goto bad;
			break;
		case 'c':
			o.call = true;
			if (!strcmp(optarg, "readdir"))
				break;
			if (!strncmp(optarg, "readlist:", 9) ||
			    !strncmp(optarg, "writelist:", 10)) {
				o.call_write = optarg[0] == 'w';
				errno = 0;
				o.call_segs = strtoul(strchr(optarg, ':') + 1,
						      &end, 0);
				if (errno || o.call_segs < 10 ||
				    o.call_segs > MAX_SEGS)
					goto bad;
				if (!o.call_write && !*end)
					break;
				if (!o.call_write || *end != ':' || !end[1] ||
				    strlen(end + 1) > 255)
					goto bad;
				o.call_name = end + 1;
				break;
			}
			if (!strncmp(optarg, "read:", 5)) {
				errno = 0;
				o.read_off = strtoull(optarg + 5, &end, 0);
				if (errno || end == optarg + 5 || *end != ':')
					goto bad;
				o.read_len = strtoul(end + 1, &end, 0);
				if (errno || !o.read_len ||
				    o.read_len > READ_MAX || *end != ':' ||
				    !end[1] || strlen(end + 1) > 255)
					goto bad;
				o.call_name = end + 1;
				break;
			}
			if (strncmp(optarg, "null:", 5))
				goto bad;
			errno = 0;
			o.call_null = strtoul(optarg + 5, &end, 0);
			if (errno || !optarg[5] || *end || o.call_null < NULL_MIN ||
			    o.call_null > NULL_MAX || o.call_null % 4)
				goto bad;
			break;
		case 'n': {
			unsigned long count;

			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || !*optarg || *end || !count ||
			    count > COUNT_MAX)
				goto bad;
			o.count = (unsigned int)count;
			break;
		}
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			goto bad;
		}
	}
	if (argc - optind != 3 || !have_data)
		goto bad;
	if (!strcmp(argv[optind], "listen"))
		o.listen = true;
	else if (strcmp(argv[optind], "connect"))
		goto bad;
	if ((o.reply_inv && !o.listen) || (o.call && o.listen))
		goto bad;
	/* --count: many connections with the one call that holds no chunk */
	if (o.count && (o.listen || o.call_null || o.call_segs || o.read_len))
		goto bad;
	o.addr = argv[optind + 1];
	o.port = argv[optind + 2];

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return EXIT_SETUP;
	}
	ret = o.listen ? run_listen(ch, &o) : run_connect(ch, &o);
	rdma_destroy_event_channel(ch);
	return ret;
bad:
	usage(stderr);
	return EXIT_USAGE;
}
