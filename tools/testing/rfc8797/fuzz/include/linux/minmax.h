/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/minmax.h>.  Like the kernel's, min()
 * and max() refuse, at compile time, operands of different types, and
 * each argument is evaluated once.
 */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

#define __shim_same_type(a, b) \
	_Static_assert(__builtin_types_compatible_p(typeof(a), typeof(b)), \
		       "min/max/clamp operands of different types")

#define min(x, y) ({						\
	typeof(x) __min_x = (x);				\
	typeof(y) __min_y = (y);				\
	__shim_same_type(__min_x, __min_y);			\
	__min_x < __min_y ? __min_x : __min_y; })

#define max(x, y) ({						\
	typeof(x) __max_x = (x);				\
	typeof(y) __max_y = (y);				\
	__shim_same_type(__max_x, __max_y);			\
	__max_x > __max_y ? __max_x : __max_y; })

#define min_t(type, x, y) ({					\
	type __mint_x = (x);					\
	type __mint_y = (y);					\
	__mint_x < __mint_y ? __mint_x : __mint_y; })

#define clamp(val, lo, hi) ({					\
	typeof(val) __clamp_v = (val);				\
	typeof(lo) __clamp_lo = (lo);				\
	typeof(hi) __clamp_hi = (hi);				\
	__shim_same_type(__clamp_v, __clamp_lo);		\
	__shim_same_type(__clamp_v, __clamp_hi);		\
	__clamp_v < __clamp_lo ? __clamp_lo :			\
	__clamp_v > __clamp_hi ? __clamp_hi : __clamp_v; })

#endif
