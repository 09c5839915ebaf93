/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <asm/byteorder.h> */
#ifndef _SHIM_ASM_BYTEORDER_H
#define _SHIM_ASM_BYTEORDER_H

#include <arpa/inet.h>
#include <linux/types.h>

static inline __be32 cpu_to_be32(u32 x)
{
	return (__be32){ htonl(x) };
}

static inline u32 be32_to_cpu(__be32 x)
{
	return ntohl(x.val);
}

#endif
