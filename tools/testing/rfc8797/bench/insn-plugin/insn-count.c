// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that
 * counts the instructions each vCPU of an x86-64 guest executes, apart
 * for user space and for layers of the kernel, and writes the counts
 * when the guest asks (a marker instruction) or the host does (a FIFO).
 *
 * Counting: every translated block gets one exec callback that adds the
 * block's instruction count to a slot of the vCPU that runs it (a slot
 * per vCPU and class: no counter is shared between vCPUs, so no update
 * is lost when vCPUs run on threads of their own).  A block is user
 * space or kernel by its start address (the 7.2 API shows no privilege
 * level: x86-64 kernel text lies in the upper half); a kernel block
 * falls in the first layer whose address range holds its start
 * (layers=FILE, from the kernel's System.map), else in "rest".
 *
 * A REP-prefixed string instruction (rep movs, rep stos, repe cmps...)
 * counts once however many times it repeats, as the processor's
 * instructions-retired event counts it.  TCG runs each iteration after
 * the first as a block of its own, that one instruction, entered
 * straight from the block that ended with it: such an execution adds
 * nothing.  (Counted per iteration, clearing a page was 4096
 * instructions, and how many pages a kernel zeroed outweighed its code.)
 *
 * With blocks=on, each distinct kernel block (start address and length)
 * also counts its instructions, per vCPU, and every dump lists the
 * instructions of each kernel block since the previous dump, so that
 * the host can bin them by function or by module load address.
 *
 * Markers: "nopl 0x8797NNNN(%rax)" (0f 1f 80 NN NN 97 87), which does
 * nothing on any x86-64, makes the plugin dump the counts, tagged with
 * the marker number NNNN, when it executes.  The guest program
 * insn-mark executes one.
 *
 * Arguments (-plugin insn-count.so,ARG=VALUE,...):
 *   out=FILE      where the dumps go (required)
 *   layers=FILE   kernel address ranges, one "START END NAME" a line
 *                 (hex, END excluded); at most 15 names
 *   blocks=on     per-block dumps (above)
 *   fifo=PATH     create the FIFOs PATH and PATH.ack; a line "mark N"
 *                 written into PATH dumps the counts tagged N, then
 *                 "ok N" is written to PATH.ack if someone reads it
 *   peer=PATH     after each marker dump, write "mark N" into the FIFO
 *                 PATH of another guest's plugin and wait (10 s at
 *                 most) for its "ok N": the other guest's counts at the
 *                 same point of this guest's work
 *
 * A dump is one line
 *   dump seq=S mark=N cause=marker|fifo|exit ns=T vcpus=V user=U
 *        kernel=K k.NAME=C ... cpu0=C0 ...
 * (cumulative counts since the start; T the host's monotonic clock),
 * then with blocks=on lines "b ADDR INSNS" and a line "end".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#if QEMU_PLUGIN_VERSION != 1
#error "insn-count is written for plugin API version 1 (QEMU 7.2)"
#endif

#define MAX_VCPUS	16
#define MAX_LAYERS	16	/* kernel layers, "rest" included */
#define KERNEL_START	0xffff800000000000ULL
#define MARK_MAGIC	0x8797U

/* class 0 is user space, 1 + i kernel layer i */
#define MAX_CLASSES	(1 + MAX_LAYERS)

struct vcpu_count {
	uint64_t n[MAX_CLASSES];
	/* the REP string instruction the last block ended with, or 0 */
	uint64_t rep_pc;
} __attribute__((aligned(64)));

struct range {
	uint64_t start, end;
	unsigned int layer;
};

/*
 * A distinct block (start address and length): every kernel block with
 * blocks=on, and every block that ends with a REP string instruction
 */
struct blk {
	uint64_t vaddr;
	uint64_t rep_pc;	/* its last instruction's address if a REP string */
	uint32_t ninsns;
	uint32_t cls;
	uint64_t insns[MAX_VCPUS];	/* instructions counted, per vCPU */
	uint64_t dumped;	/* instructions of all vCPUs at the last dump */
	struct blk *next;	/* hash chain */
};

static struct vcpu_count counts[MAX_VCPUS];
static char *layer_name[MAX_LAYERS];
static unsigned int nlayers;
static unsigned int rest_layer;
static struct range *ranges;
static size_t nranges;

static bool use_blocks;
/* the kernel blocks of the dumps (blocks=on); the other REP blocks */
static struct blk **blk_hash, **rep_hash;
static const size_t blk_hash_size = 1 << 16;
static pthread_mutex_t blk_lock = PTHREAD_MUTEX_INITIALIZER;

static FILE *out;
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t dump_seq;
static unsigned int nvcpus;

static char *fifo_path, *fifo_ack;
static char *peer_path, *peer_ack;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned int layer_of(uint64_t vaddr)
{
	size_t lo = 0, hi = nranges;

	/* the last range starting at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ranges[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && vaddr < ranges[lo - 1].end)
		return ranges[lo - 1].layer;
	return rest_layer;
}

static void dump(uint64_t mark, const char *cause)
{
	uint64_t sum[MAX_CLASSES] = { 0 }, kernel = 0;
	unsigned int c, v;
	size_t i;

	pthread_mutex_lock(&dump_lock);
	fprintf(out, "dump seq=%" PRIu64 " mark=%" PRIu64 " cause=%s ns=%" PRIu64
		" vcpus=%u", ++dump_seq, mark, cause, now_ns(), nvcpus);
	for (v = 0; v < nvcpus; v++)
		for (c = 0; c < MAX_CLASSES; c++)
			sum[c] += counts[v].n[c];
	for (c = 1; c <= nlayers; c++)
		kernel += sum[c];
	fprintf(out, " user=%" PRIu64 " kernel=%" PRIu64, sum[0], kernel);
	for (c = 1; c <= nlayers; c++)
		fprintf(out, " k.%s=%" PRIu64, layer_name[c - 1], sum[c]);
	for (v = 0; v < nvcpus; v++) {
		uint64_t t = 0;

		for (c = 0; c < MAX_CLASSES; c++)
			t += counts[v].n[c];
		fprintf(out, " cpu%u=%" PRIu64, v, t);
	}
	fputc('\n', out);
	if (use_blocks) {
		pthread_mutex_lock(&blk_lock);
		for (i = 0; i < blk_hash_size; i++) {
			struct blk *b;

			for (b = blk_hash[i]; b; b = b->next) {
				uint64_t e = 0;

				for (v = 0; v < nvcpus; v++)
					e += b->insns[v];
				if (e == b->dumped)
					continue;
				fprintf(out, "b %" PRIx64 " %" PRIu64 "\n", b->vaddr,
					e - b->dumped);
				b->dumped = e;
			}
		}
		pthread_mutex_unlock(&blk_lock);
		fputs("end\n", out);
	}
	fflush(out);
	pthread_mutex_unlock(&dump_lock);
}

/*
 * The exec callbacks.  A block that is neither a kernel block with
 * blocks=on nor ends with a REP string instruction has its instruction
 * count and class packed into one word as user data: nothing to
 * allocate per translation.
 */
static void exec_packed(unsigned int vcpu, void *udata)
{
	uintptr_t u = (uintptr_t)udata;

	counts[vcpu].rep_pc = 0;
	counts[vcpu].n[u & 0xff] += u >> 8;
}

static void exec_blk(unsigned int vcpu, void *udata)
{
	struct blk *b = udata;
	struct vcpu_count *c = &counts[vcpu];
	uint64_t n = b->ninsns;

	/* the next iteration of the REP instruction the last block ran */
	if (b->rep_pc == b->vaddr && c->rep_pc == b->vaddr)
		n--;
	c->rep_pc = b->rep_pc;
	c->n[b->cls] += n;
	b->insns[vcpu] += n;
}

/* the peer's counts at this point: ask its FIFO, wait for the answer */
static void ask_peer(uint64_t mark)
{
	char buf[64], want[32];
	struct pollfd p;
	size_t have = 0;
	int rfd, wfd, len;
	uint64_t deadline = now_ns() + 10000000000ULL;

	/* open the answer first: the peer writes it without blocking */
	rfd = open(peer_ack, O_RDONLY | O_NONBLOCK);
	if (rfd < 0) {
		fprintf(stderr, "insn-count: %s: %s\n", peer_ack, strerror(errno));
		return;
	}
	wfd = open(peer_path, O_WRONLY | O_NONBLOCK);
	if (wfd < 0) {
		fprintf(stderr, "insn-count: %s: %s\n", peer_path, strerror(errno));
		close(rfd);
		return;
	}
	len = snprintf(buf, sizeof(buf), "mark %" PRIu64 "\n", mark);
	if (write(wfd, buf, len) != len)
		fprintf(stderr, "insn-count: writing %s failed\n", peer_path);
	close(wfd);
	snprintf(want, sizeof(want), "ok %" PRIu64 "\n", mark);
	p.fd = rfd;
	p.events = POLLIN;
	while (now_ns() < deadline) {
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(rfd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0) {
			/* the writer closed before we read: wait for data */
			usleep(1000);
			continue;
		}
		have += n;
		buf[have] = '\0';
		if (strstr(buf, want))
			break;
		if (have >= sizeof(buf) - 1)
			have = 0;
	}
	if (!strstr(buf, want))
		fprintf(stderr, "insn-count: no answer from %s to mark %" PRIu64 "\n",
			peer_path, mark);
	close(rfd);
}

static void exec_marker(unsigned int vcpu, void *udata)
{
	uint64_t mark = (uintptr_t)udata;

	dump(mark, "marker");
	if (peer_path)
		ask_peer(mark);
}

/* the block of this address, length and class in table t, made if new */
static struct blk *blk_get(struct blk **t, uint64_t vaddr, uint32_t ninsns,
			   uint32_t cls, uint64_t rep_pc)
{
	size_t h = ((vaddr >> 2) ^ (vaddr >> 17) ^ ninsns) & (blk_hash_size - 1);
	struct blk *b;

	pthread_mutex_lock(&blk_lock);
	for (b = t[h]; b; b = b->next)
		if (b->vaddr == vaddr && b->ninsns == ninsns && b->cls == cls)
			goto found;
	b = calloc(1, sizeof(*b));
	if (!b) {
		pthread_mutex_unlock(&blk_lock);
		return NULL;
	}
	b->vaddr = vaddr;
	b->ninsns = ninsns;
	b->cls = cls;
	b->next = t[h];
	t[h] = b;
found:
	/* the same address and length can be new code (a module loaded) */
	b->rep_pc = rep_pc;
	pthread_mutex_unlock(&blk_lock);
	return b;
}

/*
 * Is this a REP-prefixed string instruction: an F2 or F3 prefix among
 * the legacy prefixes, an optional REX, then INS, OUTS, MOVS, CMPS,
 * STOS, LODS or SCAS?
 */
static bool is_rep_string(const uint8_t *d, size_t len)
{
	bool rep = false;
	size_t i;

	for (i = 0; i < len; i++) {
		switch (d[i]) {
		case 0xf2: case 0xf3:
			rep = true;
			continue;
		case 0x26: case 0x2e: case 0x36: case 0x3e:
		case 0x64: case 0x65: case 0x66: case 0x67: case 0xf0:
			continue;
		}
		break;
	}
	if (i < len && (d[i] & 0xf0) == 0x40)
		i++;
	if (!rep || i >= len)
		return false;
	return (d[i] >= 0x6c && d[i] <= 0x6f) || (d[i] >= 0xa4 && d[i] <= 0xa7) ||
	       (d[i] >= 0xaa && d[i] <= 0xaf);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb), rep_pc = 0;
	uint32_t cls = 0;
	struct blk *b = NULL;

	if (n) {
		/* TCG ends a block with a REP string instruction */
		struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);

		if (is_rep_string(qemu_plugin_insn_data(last),
				  qemu_plugin_insn_size(last)))
			rep_pc = qemu_plugin_insn_vaddr(last);
	}
	if (vaddr >= KERNEL_START)
		cls = 1 + layer_of(vaddr);
	if (cls && use_blocks)
		b = blk_get(blk_hash, vaddr, n, cls, rep_pc);
	else if (rep_pc)
		b = blk_get(rep_hash, vaddr, n, cls, rep_pc);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_blk,
						     QEMU_PLUGIN_CB_NO_REGS, b);
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_packed,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)(n << 8 | cls));

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *d = qemu_plugin_insn_data(insn);

		if (qemu_plugin_insn_size(insn) != 7 || d[0] != 0x0f ||
		    d[1] != 0x1f || d[2] != 0x80 ||
		    (d[5] | d[6] << 8) != MARK_MAGIC)
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, exec_marker,
						       QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)(d[3] | d[4] << 8));
	}
}

static void *fifo_thread(void *arg)
{
	char line[128];
	FILE *f;
	int fd;

	/* read and write: the FIFO never reaches end of file */
	fd = open(fifo_path, O_RDWR);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		fprintf(stderr, "insn-count: %s: %s\n", fifo_path, strerror(errno));
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long mark;
		int afd;

		if (sscanf(line, "mark %llu", &mark) != 1)
			continue;
		dump(mark, "fifo");
		afd = open(fifo_ack, O_WRONLY | O_NONBLOCK);
		if (afd >= 0) {
			dprintf(afd, "ok %llu\n", mark);
			close(afd);
		}
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	dump(0, "exit");
	fclose(out);
	out = NULL;
}

/* a vCPU (a thread, in user mode) beyond the counters' slots */
static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	if (vcpu < nvcpus)
		return;
	fprintf(stderr, "insn-count: vCPU %u: counting %u at most\n", vcpu, nvcpus);
	exit(1);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_layers(const char *path)
{
	char name[64];
	unsigned long long s, e;
	size_t cap = 0;
	unsigned int l;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "insn-count: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fscanf(f, "%llx %llx %63s", &s, &e, name) == 3) {
		for (l = 0; l < nlayers; l++)
			if (!strcmp(layer_name[l], name))
				break;
		if (l == nlayers) {
			if (nlayers == MAX_LAYERS - 1) {
				fprintf(stderr, "insn-count: %s: too many layers\n", path);
				fclose(f);
				return -1;
			}
			layer_name[nlayers++] = strdup(name);
		}
		if (nranges == cap) {
			cap = cap ? 2 * cap : 4096;
			ranges = realloc(ranges, cap * sizeof(*ranges));
			if (!ranges) {
				fclose(f);
				return -1;
			}
		}
		ranges[nranges].start = s;
		ranges[nranges].end = e;
		ranges[nranges].layer = l;
		nranges++;
	}
	fclose(f);
	qsort(ranges, nranges, sizeof(*ranges), cmp_range);
	return 0;
}

static char *concat(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 1);

	if (s)
		strcat(strcpy(s, a), b);
	return s;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *out_path = NULL, *layers = NULL;
	pthread_t t;
	int i;

	if (info->version.cur < QEMU_PLUGIN_VERSION ||
	    info->version.min > QEMU_PLUGIN_VERSION) {
		fprintf(stderr, "insn-count: built for plugin API %d, QEMU offers %d..%d\n",
			QEMU_PLUGIN_VERSION, info->version.min, info->version.cur);
		return -1;
	}
	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn-count: x86_64 guests only\n");
		return -1;
	}
	/* user-mode emulation (qemu-x86_64, the selftest): one thread */
	nvcpus = info->system_emulation ? info->system.max_vcpus : 1;
	if (nvcpus > MAX_VCPUS) {
		fprintf(stderr, "insn-count: at most %d vCPUs\n", MAX_VCPUS);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *v = eq ? eq + 1 : "";
		size_t k = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);

		if (k == 3 && !strncmp(argv[i], "out", k)) {
			out_path = v;
		} else if (k == 6 && !strncmp(argv[i], "layers", k)) {
			layers = v;
		} else if (k == 6 && !strncmp(argv[i], "blocks", k)) {
			if (!qemu_plugin_bool_parse("blocks", v, &use_blocks))
				goto bad;
		} else if (k == 4 && !strncmp(argv[i], "fifo", k)) {
			fifo_path = strdup(v);
			fifo_ack = concat(v, ".ack");
		} else if (k == 4 && !strncmp(argv[i], "peer", k)) {
			peer_path = strdup(v);
			peer_ack = concat(v, ".ack");
		} else {
			goto bad;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insn-count: out=FILE is required\n");
		return -1;
	}
	if (layers && read_layers(layers))
		return -1;
	rest_layer = nlayers;
	layer_name[nlayers++] = "rest";
	out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "insn-count: %s: %s\n", out_path, strerror(errno));
		return -1;
	}
	if (use_blocks)
		blk_hash = calloc(blk_hash_size, sizeof(*blk_hash));
	rep_hash = calloc(blk_hash_size, sizeof(*rep_hash));
	if ((use_blocks && !blk_hash) || !rep_hash)
		return -1;
	if (fifo_path) {
		unlink(fifo_path);
		unlink(fifo_ack);
		if (mkfifo(fifo_path, 0600) || mkfifo(fifo_ack, 0600) ||
		    pthread_create(&t, NULL, fifo_thread, NULL)) {
			fprintf(stderr, "insn-count: %s: %s\n", fifo_path, strerror(errno));
			return -1;
		}
		pthread_detach(t);
	}
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
bad:
	fprintf(stderr, "insn-count: unknown argument %s\n", argv[i]);
	return -1;
}
