// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: executes the marker instruction of the insn-count QEMU
 * plugin, "nopl 0x8797NNNN(%rax)", which makes the plugin dump the
 * guest's instruction counts tagged NNNN.  On a guest without the
 * plugin, and on hardware, it does nothing.
 *
 *   insn-mark N            marker N
 *   insn-mark N SEC M      marker N, sleep SEC seconds (a decimal
 *                          fraction), marker M: an idle window that
 *                          costs nothing but the wake-up
 *
 * The marker's number is part of the instruction, so it is written into
 * an executable page at run time (TCG translates the new bytes).  Built
 * static: no loader, no library between the markers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void mark(uint8_t *page, unsigned long n)
{
	/* nopl 0x8797NNNN(%rax); ret */
	const uint8_t code[] = { 0x0f, 0x1f, 0x80, n & 0xff, (n >> 8) & 0xff,
				 0x97, 0x87, 0xc3 };

	memcpy(page, code, sizeof(code));
	__builtin___clear_cache((char *)page, (char *)page + sizeof(code));
	((void (*)(void))page)();
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || n > 0xffff) {
		fprintf(stderr, "insn-mark: %s: not a marker number (0-65535)\n", s);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	unsigned long n, m = 0;
	double sec = 0;
	uint8_t *page;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: insn-mark N [SECONDS M]\n");
		return 2;
	}
	n = number(argv[1]);
	if (argc == 4) {
		sec = strtod(argv[2], NULL);
		m = number(argv[3]);
		if (sec <= 0 || sec > 3600) {
			fprintf(stderr, "insn-mark: %s: seconds, 0 to 3600\n", argv[2]);
			return 2;
		}
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("insn-mark: mmap");
		return 1;
	}
	mark(page, n);
	if (argc == 4) {
		ts.tv_sec = (time_t)sec;
		ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts))
			;
		mark(page, m);
	}
	return 0;
}
