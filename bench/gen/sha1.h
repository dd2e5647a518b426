/* SHA-1 for the OVSDB file records written by ovsdb-gen. */

#ifndef GEN_SHA1_H
#define GEN_SHA1_H 1

#include <stddef.h>
#include <stdint.h>

#define GEN_SHA1_LEN 20

/* Running SHA-1 state. */
struct gen_sha1 {
    uint32_t h[5];              /* Chaining value. */
    uint64_t total;             /* Bytes hashed so far. */
    uint8_t buf[64];            /* Partial block. */
    size_t n;                   /* Bytes in 'buf'. */
};

void gen_sha1_init(struct gen_sha1 *);
void gen_sha1_update(struct gen_sha1 *, const void *, size_t);
void gen_sha1_final(struct gen_sha1 *, uint8_t digest[GEN_SHA1_LEN]);

#endif /* sha1.h */
