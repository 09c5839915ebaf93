/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/export.h>: nothing is exported here */
#ifndef _SHIM_LINUX_EXPORT_H
#define _SHIM_LINUX_EXPORT_H

#endif
