/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/string.h>, for the KUnit runner */
#ifndef _SHIM_LINUX_STRING_H
#define _SHIM_LINUX_STRING_H

#include <string.h>
#include <sys/types.h>

static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -1;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -1;
	}
	memcpy(dst, src, len + 1);
	return (ssize_t)len;
}

#endif
