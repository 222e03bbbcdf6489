/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * symbols.h - names for code addresses of this executable, from its own
 * symbol table (the library's functions are hidden and mostly static, so
 * dladdr() cannot name them), to say where an allocation failed.
 */
#ifndef FAULT_SYMBOLS_H
#define FAULT_SYMBOLS_H

/* Reads /proc/self/exe's symbol table; call before forking. */
void symbols_load(void);
/* The function containing addr, or "?" */
const char *symbol_name(const void *addr);

#endif
