/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/bits.h> */
#ifndef _SHIM_LINUX_BITS_H
#define _SHIM_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))

#endif
