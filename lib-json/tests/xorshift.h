/* A small deterministic pseudo-random generator, Marsaglia's xorshift64,
 * for the programs of lib-json/tests and for bench/lib-json/driver.c,
 * which generate documents with it.  Only libc is used, so that it builds
 * against lib-json and against OVS alike. */

#ifndef XORSHIFT_H
#define XORSHIFT_H 1

#include <stdint.h>

/* The initial state of Marsaglia's paper ("Xorshift RNGs", 2003). */
#define XORSHIFT_SEED 88172645463325252ULL

/* Advances '*state' (never 0) and returns its low 32 bits. */
static inline uint32_t
xorshift_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t) *state;
}

#endif /* xorshift.h */
