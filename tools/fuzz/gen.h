/* SPDX-License-Identifier: GPL-2.0 */
/* bjk-fuzz's generator and mutator (gen.c). */
#ifndef BJK_FUZZ_GEN_H
#define BJK_FUZZ_GEN_H

#include "fuzz.h"

/* a new program from the PRNG state @rng */
void fz_generate(struct fz_prog *p, uint64_t *rng);
/* one to three instruction-level changes; @other (may be NULL) to splice from */
void fz_mutate(struct fz_prog *p, const struct fz_prog *other, uint64_t *rng);
/* make room for @n instructions at @at, or delete @n there; jumps, calls
 * and callback references keep their targets */
bool fz_insert(struct fz_prog *p, uint32_t at, uint32_t n);
void fz_delete(struct fz_prog *p, uint32_t at, uint32_t n);
/* a copy of the instruction at @at (not an ld_imm64) before it, reaching
 * what it reaches */
bool fz_duplicate(struct fz_prog *p, uint32_t at);

#endif /* BJK_FUZZ_GEN_H */
