// SPDX-License-Identifier: GPL-2.0
/*
 * exerciser: parallel file exercisers in the manner of fsx, for NFS.
 *
 * Each of -p processes works on a file of its own in DIR: a random
 * sequence of writes, reads, truncates, mmap reads and writes, hole
 * punches, allocations and copies within the file (copy_file_range:
 * NFSv4.2 COPY), each checked against an in-memory model of what the
 * file must hold.  After every operation the process may flush its cache
 * (-f: fsync, msync(MS_INVALIDATE) and POSIX_FADV_DONTNEED, so that the
 * next read goes to the server), and with probability 1/P it closes the
 * file and opens it again (-c P), as fsx -c does: the open that finds
 * the previous open's inode on its way out is the path of the NFSv4.2
 * hang this program reproduces.  With -D the close and the open are
 * separated by "echo 3 > /proc/sys/vm/drop_caches", as xfstests' fsx
 * does: every unused inode of the file system is evicted there, those
 * of the other processes' files too.
 *
 *   exerciser [-p NPROC] [-n NOPS] [-l MAXLEN] [-o MAXOP] [-c P] [-f]
 *             [-D] [-d] [-X] [-s SEED] DIR
 *
 *   -d   O_DIRECT, 4 KiB aligned (no mmap operations)
 *   -X   process 0 changes one octet of its file behind its model's back
 *        halfway through and checks the whole file at once: the check
 *        must fail (RFC8797_INJECT=parallel-corrupt)
 *
 * Each process prints its progress every tenth of its operations
 * ("exerciser N: at K of NOPS operations"), so that a run stopped at a
 * time limit says how far it got.
 *
 * Operations the file system refuses (EOPNOTSUPP, EINVAL from fallocate
 * or copy_file_range on an older server) are dropped for that process
 * and reported once.  Exit status: 0 when every process finished every
 * operation and every read matched the model, 1 otherwise (the failing
 * operation and the last operations are printed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum op {
	OP_WRITE, OP_READ, OP_TRUNCATE, OP_MAPREAD, OP_MAPWRITE,
	OP_PUNCH, OP_FALLOC, OP_COPY, OP_NR
};

static const char *const op_name[OP_NR] = {
	"write", "read", "truncate", "mapread", "mapwrite",
	"punch_hole", "fallocate", "copy_range",
};

#define HISTORY	16
#define ALIGN	4096

struct step {
	unsigned long nr;
	enum op op;
	off_t off, off2;
	size_t len;
	off_t size_after;
};

struct worker {
	int id, fd, direct, flush, close_prob, drop_caches, corrupt;
	unsigned long nops;
	size_t maxlen, maxop;
	char path[4096];
	uint64_t rng;
	unsigned char *model, *buf;
	off_t size;
	int disabled[OP_NR];
	unsigned long count[OP_NR], reopens;
	struct step hist[HISTORY];
	unsigned long nr;
};

static uint64_t next_rand(struct worker *w)
{
	/* xorshift64*: a repeatable sequence per seed */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545f4914f6cdd1dULL;
}

static size_t below(struct worker *w, size_t n)
{
	return n ? next_rand(w) % n : 0;
}

static void history(struct worker *w, enum op op, off_t off, off_t off2,
		    size_t len)
{
	struct step *s = &w->hist[w->nr % HISTORY];

	s->nr = w->nr;
	s->op = op;
	s->off = off;
	s->off2 = off2;
	s->len = len;
	s->size_after = w->size;
}

static void __attribute__((noreturn, format(printf, 2, 3)))
die(struct worker *w, const char *fmt, ...)
{
	unsigned long i, first;
	va_list ap;

	fprintf(stderr, "exerciser %d (%s): op %lu: ", w->id, w->path, w->nr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	first = w->nr >= HISTORY ? w->nr - HISTORY + 1 : 0;
	for (i = first; i < w->nr; i++) {
		struct step *s = &w->hist[i % HISTORY];

		if (s->nr != i)	/* nothing done at op i */
			continue;
		fprintf(stderr, "  op %lu %s off %lld off2 %lld len %zu size %lld\n",
			s->nr, op_name[s->op], (long long)s->off,
			(long long)s->off2, s->len, (long long)s->size_after);
	}
	exit(1);
}

static void open_file(struct worker *w, int flags)
{
	w->fd = open(w->path, O_RDWR | flags | (w->direct ? O_DIRECT : 0), 0644);
	if (w->fd < 0)
		die(w, "open: %s", strerror(errno));
}

static void fill(struct worker *w, unsigned char *p, size_t len)
{
	size_t i;
	unsigned char k = (unsigned char)(w->nr * 31 + w->id * 7 + 1);

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(k + i * 13 + (i >> 8));
}

static void check(struct worker *w, const unsigned char *got, off_t off,
		  size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (got[i] != w->model[off + i])
			die(w, "%s: byte at %lld is 0x%02x, expected 0x%02x",
			    what, (long long)(off + i), got[i],
			    w->model[off + i]);
}

/* a range [off, off + len) for an operation, aligned under O_DIRECT */
static void range(struct worker *w, off_t limit, off_t *off, size_t *len)
{
	size_t l = 1 + below(w, w->maxop);

	*off = limit > 0 ? (off_t)below(w, limit) : 0;
	if (w->direct) {
		*off &= ~(off_t)(ALIGN - 1);
		l = (l + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	}
	if ((size_t)*off + l > w->maxlen)
		l = w->maxlen - *off;
	*len = l;
}

/* zero the model beyond the new size: it stays zero there */
static void set_size(struct worker *w, off_t size)
{
	if (size < w->size)
		memset(w->model + size, 0, w->size - size);
	w->size = size;
}

static void do_write(struct worker *w)
{
	off_t off;
	size_t len;
	ssize_t n;

	range(w, w->maxlen, &off, &len);
	if (!len)
		return;
	fill(w, w->buf, len);
	n = pwrite(w->fd, w->buf, len, off);
	if (n != (ssize_t)len)
		die(w, "write %zu at %lld: %zd (%s)", len, (long long)off, n,
		    n < 0 ? strerror(errno) : "short");
	memcpy(w->model + off, w->buf, len);
	if (off + (off_t)len > w->size)
		w->size = off + len;
	history(w, OP_WRITE, off, 0, len);
}

static void do_read(struct worker *w)
{
	off_t off;
	size_t len, want;
	ssize_t n;

	if (!w->size)
		return;
	range(w, w->size, &off, &len);
	want = off >= w->size ? 0 :
	       (size_t)(w->size - off) < len ? (size_t)(w->size - off) : len;
	n = pread(w->fd, w->buf, len, off);
	if (n < 0)
		die(w, "read %zu at %lld: %s", len, (long long)off,
		    strerror(errno));
	if ((size_t)n != want)
		die(w, "read %zu at %lld: %zd octets, expected %zu (size %lld)",
		    len, (long long)off, n, want, (long long)w->size);
	check(w, w->buf, off, n, "read");
	history(w, OP_READ, off, 0, len);
}

static void do_truncate(struct worker *w)
{
	off_t size = below(w, w->maxlen + 1);

	if (w->direct)
		size &= ~(off_t)(ALIGN - 1);
	if (ftruncate(w->fd, size))
		die(w, "truncate to %lld: %s", (long long)size,
		    strerror(errno));
	set_size(w, size);
	history(w, OP_TRUNCATE, size, 0, 0);
}

static void do_map(struct worker *w, int writing)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t off, start;
	size_t len;
	unsigned char *p;

	range(w, writing ? (off_t)w->maxlen : w->size, &off, &len);
	if (!writing) {
		if (off >= w->size)
			return;
		if (off + (off_t)len > w->size)
			len = w->size - off;
	}
	if (!len)
		return;
	if (writing && off + (off_t)len > w->size) {
		if (ftruncate(w->fd, off + len))
			die(w, "mapwrite: extend to %lld: %s",
			    (long long)(off + len), strerror(errno));
		w->size = off + len;
	}
	start = off & ~(off_t)(page - 1);
	p = mmap(NULL, len + (off - start), PROT_READ | PROT_WRITE,
		 MAP_SHARED, w->fd, start);
	if (p == MAP_FAILED)
		die(w, "mmap %zu at %lld: %s", len, (long long)start,
		    strerror(errno));
	if (writing) {
		fill(w, p + (off - start), len);
		memcpy(w->model + off, p + (off - start), len);
		if (msync(p, len + (off - start), MS_SYNC))
			die(w, "msync: %s", strerror(errno));
	} else {
		check(w, p + (off - start), off, len, "mapread");
	}
	munmap(p, len + (off - start));
	history(w, writing ? OP_MAPWRITE : OP_MAPREAD, off, 0, len);
}

/* an operation the file system does not offer: dropped for this process */
static int refused(struct worker *w, enum op op, int err)
{
	if (err != EOPNOTSUPP && err != ENOTSUP && err != EINVAL &&
	    err != EXDEV && err != ENOSYS)
		return 0;
	if (!w->disabled[op])
		fprintf(stderr, "exerciser %d: %s refused (%s), dropped\n",
			w->id, op_name[op], strerror(err));
	w->disabled[op] = 1;
	return 1;
}

static void do_fallocate(struct worker *w, enum op op)
{
	int mode = op == OP_PUNCH ?
		   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE : 0;
	off_t off;
	size_t len;

	range(w, op == OP_PUNCH ? w->size : (off_t)w->maxlen, &off, &len);
	if (!len || (op == OP_PUNCH && off >= w->size))
		return;
	if (fallocate(w->fd, mode, off, len)) {
		if (refused(w, op, errno))
			return;
		die(w, "%s %zu at %lld: %s", op_name[op], len, (long long)off,
		    strerror(errno));
	}
	if (op == OP_PUNCH) {
		off_t end = off + (off_t)len < w->size ? off + (off_t)len : w->size;

		memset(w->model + off, 0, end - off);
	} else if (off + (off_t)len > w->size) {
		w->size = off + len;
	}
	history(w, op, off, 0, len);
}

static void do_copy(struct worker *w)
{
	off_t src, dst, in, out;
	size_t len;
	ssize_t n;

	if (!w->size)
		return;
	range(w, w->size, &src, &len);
	if (src >= w->size)
		return;
	if ((off_t)(src + len) > w->size)
		len = w->size - src;
	if (w->direct)
		len &= ~(size_t)(ALIGN - 1);
	if (!len || len > w->maxlen / 2)
		return;
	/* a destination that does not overlap the source */
	dst = below(w, w->maxlen - len + 1);
	if (w->direct)
		dst &= ~(off_t)(ALIGN - 1);
	if (dst < src + (off_t)len && src < dst + (off_t)len)
		return;
	in = src;
	out = dst;
	n = copy_file_range(w->fd, &in, w->fd, &out, len, 0);
	if (n < 0) {
		if (refused(w, OP_COPY, errno))
			return;
		die(w, "copy_range %zu from %lld to %lld: %s", len,
		    (long long)src, (long long)dst, strerror(errno));
	}
	memmove(w->model + dst, w->model + src, n);
	if (dst + n > w->size)
		w->size = dst + n;
	history(w, OP_COPY, src, dst, n);
}

static void flush(struct worker *w)
{
	void *p;

	if (fsync(w->fd))
		die(w, "fsync: %s", strerror(errno));
	if (!w->direct && w->size > 0) {
		p = mmap(NULL, w->size, PROT_READ, MAP_SHARED, w->fd, 0);
		if (p == MAP_FAILED)
			die(w, "flush: mmap: %s", strerror(errno));
		if (msync(p, w->size, MS_INVALIDATE))
			die(w, "flush: msync: %s", strerror(errno));
		munmap(p, w->size);
	}
	posix_fadvise(w->fd, 0, 0, POSIX_FADV_DONTNEED);
}

/* evict every unused inode and dentry: the inode of this file too */
static void drop_caches(struct worker *w)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, "3\n", 2) != 2)
		die(w, "drop_caches: %s", strerror(errno));
	close(fd);
}

static void verify_all(struct worker *w)
{
	ssize_t n;

	n = pread(w->fd, w->buf, w->maxlen, 0);
	if (n != w->size)
		die(w, "final read: %zd octets, expected %lld", n,
		    (long long)w->size);
	check(w, w->buf, 0, n, "final read");
}

/* one octet changed through another descriptor, the model left as is */
static void corrupt(struct worker *w)
{
	unsigned char c = w->size ? w->model[0] ^ 0xff : 0xff;
	int fd = open(w->path, O_WRONLY);

	if (fd < 0 || pwrite(fd, &c, 1, 0) != 1 || fsync(fd))
		die(w, "corrupt: %s", strerror(errno));
	close(fd);
	fprintf(stderr, "exerciser %d: octet 0 changed behind the model (-X)\n",
		w->id);
}

static int run(struct worker *w)
{
	enum op op;
	int i;

	open_file(w, O_CREAT | O_TRUNC);
	for (w->nr = 0; w->nr < w->nops; w->nr++) {
		op = below(w, OP_NR);
		if (w->disabled[op] ||
		    (w->direct && (op == OP_MAPREAD || op == OP_MAPWRITE)))
			op = below(w, 2) ? OP_WRITE : OP_READ;
		switch (op) {
		case OP_WRITE: do_write(w); break;
		case OP_READ: do_read(w); break;
		case OP_TRUNCATE: do_truncate(w); break;
		case OP_MAPREAD: do_map(w, 0); break;
		case OP_MAPWRITE: do_map(w, 1); break;
		case OP_PUNCH: case OP_FALLOC: do_fallocate(w, op); break;
		case OP_COPY: do_copy(w); break;
		case OP_NR: break;
		}
		w->count[op]++;
		if (w->corrupt && w->id == 0 && w->nr == w->nops / 2) {
			corrupt(w);
			verify_all(w);
		}
		if (w->flush)
			flush(w);
		if (w->close_prob && below(w, w->close_prob) == 0) {
			if (close(w->fd))
				die(w, "close: %s", strerror(errno));
			if (w->drop_caches)
				drop_caches(w);
			open_file(w, 0);
			w->reopens++;
		}
		/* progress, for a run stopped at its time limit */
		if (w->nops >= 10 && (w->nr + 1) % (w->nops / 10) == 0 &&
		    w->nr + 1 < w->nops)
			printf("exerciser %d: at %lu of %lu operations\n", w->id,
			       w->nr + 1, w->nops);
	}
	verify_all(w);
	printf("exerciser %d: %lu operations, %lu reopens:", w->id, w->nops,
	       w->reopens);
	for (i = 0; i < OP_NR; i++)
		printf(" %s %lu", op_name[i], w->count[i]);
	printf("\n");
	return close(w->fd) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct worker w = { .nops = 1000, .maxlen = 256 * 1024,
			    .maxop = 64 * 1024 };
	int nproc = 4, c, i, status, failed = 0;
	unsigned long seed = 1;
	pid_t pid;

	while ((c = getopt(argc, argv, "p:n:l:o:c:fDdXs:")) != -1) {
		switch (c) {
		case 'p': nproc = atoi(optarg); break;
		case 'n': w.nops = strtoul(optarg, NULL, 0); break;
		case 'l': w.maxlen = strtoul(optarg, NULL, 0); break;
		case 'o': w.maxop = strtoul(optarg, NULL, 0); break;
		case 'c': w.close_prob = atoi(optarg); break;
		case 'f': w.flush = 1; break;
		case 'D': w.drop_caches = 1; break;
		case 'd': w.direct = 1; break;
		case 'X': w.corrupt = 1; break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || nproc < 1 || !w.maxlen || !w.maxop)
		goto usage;
	w.maxlen = (w.maxlen + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < nproc; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid)
			continue;
		w.id = i;
		w.rng = ((seed << 20) ^ ((i + 1) * 0x9e3779b97f4a7c15ULL)) | 1;
		snprintf(w.path, sizeof(w.path), "%s/exerciser.%d",
			 argv[optind], i);
		w.model = calloc(1, w.maxlen);
		if (posix_memalign((void **)&w.buf, ALIGN, w.maxlen) ||
		    !w.model) {
			perror("alloc");
			_exit(1);
		}
		_exit(run(&w));
	}
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	if (failed)
		fprintf(stderr, "exerciser: %d of %d processes failed\n",
			failed, nproc);
	return failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: exerciser [-p NPROC] [-n NOPS] [-l MAXLEN] [-o MAXOP] [-c P] [-f] [-D] [-d] [-X] [-s SEED] DIR\n");
	return 2;
}
