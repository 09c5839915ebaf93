// SPDX-License-Identifier: GPL-2.0
/*
 * insn-rep-test: the insn-count plugin's selftest program (run under
 * user-mode QEMU by bench/insn-selftest.sh).  Between markers 1 to 6
 * (the markers of insn-mark, "nopl 0x8797NNNN(%rax)"), in one asm
 * statement so that no compiled code lies between them:
 *
 *   1..2  rep stosb of one octet
 *   2..3  rep stosb of 4096 octets
 *   3..4  a loop that runs a rep stosb of one octet 100 times
 *   4..5  the same loop, 4096 octets each time
 *   5..6  rep stosb of one octet again: 4..5 ends in the same block as
 *         3..4 (a window ends with the block of its closing marker)
 *
 * The same instructions execute in 1..2 as in 2..3, and in 3..4 as in
 * 4..5: only how often each REP instruction repeats differs, which the
 * processor's instruction count ignores.  In the loops the REP
 * instruction is the jump target, so that each of its executions starts
 * a block of its own, as its repetitions do.
 */
#include <stdint.h>

static uint8_t buf[4096];

#define MARK(n) ".byte 0x0f, 0x1f, 0x80, " #n ", 0x00, 0x97, 0x87\n\t"
#define ONCE(n, len)				\
	MARK(n)					\
	"mov $" #len ", %%rcx\n\t"		\
	"mov %[buf], %%rdi\n\t"			\
	"xor %%eax, %%eax\n\t"			\
	"rep stosb\n\t"
#define LOOP(n, len, l)				\
	MARK(n)					\
	"mov $100, %%r8d\n\t"			\
	"mov $" #len ", %%rcx\n\t"		\
	"mov %[buf], %%rdi\n"			\
	#l ":\n\t"				\
	"rep stosb\n\t"				\
	"mov $" #len ", %%rcx\n\t"		\
	"mov %[buf], %%rdi\n\t"			\
	"dec %%r8d\n\t"				\
	"jnz " #l "b\n\t"

int main(void)
{
	asm volatile(ONCE(1, 1) ONCE(2, 4096) LOOP(3, 1, 1) LOOP(4, 4096, 2)
		     ONCE(5, 1) MARK(6)
		     : : [buf] "r"(buf) : "rax", "rcx", "rdi", "r8", "memory", "cc");
	return buf[0];
}
