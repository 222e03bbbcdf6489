// SPDX-License-Identifier: LGPL-2.1-or-later
/* symbols.c - function names from the executable's .symtab (symbols.h). */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "symbols.h"

/* the load address of a PIE executable (its ELF header), from the linker */
extern const char __executable_start[];

struct sym {
	uintptr_t start, end;
	const char *name;
};
static struct sym *syms;
static size_t nsyms;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

void symbols_load(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return;
	const unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	const Elf64_Ehdr *eh = (const void *)m;
	const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
	/* a PIE's symbol values are offsets from its load address */
	uintptr_t base = eh->e_type == ET_DYN ? (uintptr_t)__executable_start : 0;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		const Elf64_Sym *s = (const void *)(m + sh[i].sh_offset);
		const char *str = (const char *)(m + sh[sh[i].sh_link].sh_offset);
		size_t n = sh[i].sh_size / sizeof(*s);
		syms = calloc(n, sizeof(*syms));
		if (!syms)
			return;
		for (size_t j = 0; j < n; j++) {
			if (ELF64_ST_TYPE(s[j].st_info) != STT_FUNC || !s[j].st_value)
				continue;
			syms[nsyms].start = base + s[j].st_value;
			syms[nsyms].end = syms[nsyms].start + (s[j].st_size ? s[j].st_size : 1);
			syms[nsyms].name = str + s[j].st_name;
			nsyms++;
		}
	}
	qsort(syms, nsyms, sizeof(*syms), cmp_sym);
	/* the mapping stays: the names point into it */
}

const char *symbol_name(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	size_t lo = 0, hi = nsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (syms[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && a < syms[lo - 1].end)
		return syms[lo - 1].name;
	return "?";
}
