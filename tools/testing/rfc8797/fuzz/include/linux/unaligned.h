/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/unaligned.h>: octet-wise accessors,
 * so that the address sanitizer sees each octet actually read.
 */
#ifndef _SHIM_LINUX_UNALIGNED_H
#define _SHIM_LINUX_UNALIGNED_H

#include <linux/types.h>

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

#endif
