/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <kunit/visibility.h>.  There are no modules
 * here; the export only checks that the symbol exists, and expands to
 * a declaration so that the trailing semicolon stays legal C.
 */
#ifndef _SHIM_KUNIT_VISIBILITY_H
#define _SHIM_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym) \
	_Static_assert(sizeof(&(sym)) != 0, #sym)

#endif
