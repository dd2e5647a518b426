/* SHA-1 (FIPS 180-4), written for the OVSDB file writer of ovsdb-gen. */

#include "sha1.h"

#include <string.h>

static uint32_t
rol32(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

/* Processes one 64-byte block. */
static void
sha1_block(struct gen_sha1 *s, const uint8_t *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++) {
        w[i] = ((uint32_t) p[4 * i] << 24) | ((uint32_t) p[4 * i + 1] << 16)
               | ((uint32_t) p[4 * i + 2] << 8) | p[4 * i + 3];
    }
    for (int i = 16; i < 80; i++) {
        w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    }

    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = t;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

void
gen_sha1_init(struct gen_sha1 *s)
{
    s->h[0] = 0x67452301;
    s->h[1] = 0xefcdab89;
    s->h[2] = 0x98badcfe;
    s->h[3] = 0x10325476;
    s->h[4] = 0xc3d2e1f0;
    s->total = 0;
    s->n = 0;
}

void
gen_sha1_update(struct gen_sha1 *s, const void *data_, size_t len)
{
    const uint8_t *data = data_;

    s->total += len;
    if (s->n) {
        size_t k = 64 - s->n < len ? 64 - s->n : len;
        memcpy(s->buf + s->n, data, k);
        s->n += k;
        data += k;
        len -= k;
        if (s->n < 64) {
            return;
        }
        sha1_block(s, s->buf);
        s->n = 0;
    }
    for (; len >= 64; data += 64, len -= 64) {
        sha1_block(s, data);
    }
    memcpy(s->buf, data, len);
    s->n = len;
}

void
gen_sha1_final(struct gen_sha1 *s, uint8_t digest[GEN_SHA1_LEN])
{
    uint64_t bits = s->total * 8;
    uint8_t pad = 0x80;

    gen_sha1_update(s, &pad, 1);
    pad = 0;
    while (s->n != 56) {
        gen_sha1_update(s, &pad, 1);
    }
    uint8_t len[8];
    for (int i = 0; i < 8; i++) {
        len[i] = bits >> (56 - 8 * i);
    }
    gen_sha1_update(s, len, 8);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = s->h[i] >> 24;
        digest[4 * i + 1] = s->h[i] >> 16;
        digest[4 * i + 2] = s->h[i] >> 8;
        digest[4 * i + 3] = s->h[i];
    }
}
