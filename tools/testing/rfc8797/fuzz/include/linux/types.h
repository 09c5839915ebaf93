/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/types.h>, just enough to build
 * net/sunrpc/xprtrdma/cm_private.c unmodified outside the kernel.
 *
 * __be32 is a one-member structure so that, as with sparse in the
 * kernel, arithmetic on or comparison of a big-endian value without a
 * conversion fails to compile.
 */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

typedef struct { uint32_t val; } __be32;

/* normally from <linux/compiler_attributes.h>, force-included by kbuild */
#define __packed	__attribute__((__packed__))

#endif
