/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/slab.h>, for the KUnit runner */
#ifndef _SHIM_LINUX_SLAB_H
#define _SHIM_LINUX_SLAB_H

#define GFP_KERNEL	0

#endif
