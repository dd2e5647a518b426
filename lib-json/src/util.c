/* lib-json internal helpers.  Our own implementation. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

void
ojs_abort(const char *what)
{
    fprintf(stderr, "lib-json: %s\n", what);
    abort();
}

void *
ojs_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        ojs_abort("out of memory");
    }
    return p;
}

void *
ojs_xzalloc(size_t size)
{
    void *p = calloc(1, size ? size : 1);
    if (!p) {
        ojs_abort("out of memory");
    }
    return p;
}

void *
ojs_xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p) {
        ojs_abort("out of memory");
    }
    return p;
}

char *
ojs_xmemdup0(const char *s, size_t n)
{
    char *p = ojs_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *
ojs_xstrdup(const char *s)
{
    return ojs_xmemdup0(s, strlen(s));
}

char *
ojs_xvasprintf(const char *format, va_list args)
{
    char buf[128];
    va_list args2;
    int needed;
    char *s;

    va_copy(args2, args);
    needed = vsnprintf(buf, sizeof buf, format, args);
    if (needed < 0) {
        ojs_abort("bad format");
    }
    s = ojs_xmalloc((size_t) needed + 1);
    if ((size_t) needed < sizeof buf) {
        memcpy(s, buf, (size_t) needed + 1);
    } else {
        vsnprintf(s, (size_t) needed + 1, format, args2);
    }
    va_end(args2);
    return s;
}

/* Murmur3 32-bit steps (public domain algorithm by Austin Appleby). */

static inline uint32_t
rot32(uint32_t x, int k)
{
    return (x << k) | (x >> (32 - k));
}

static inline uint32_t
mix_in(uint32_t h, uint32_t k)
{
    if (k) {
        k *= 0xcc9e2d51;
        k = rot32(k, 15);
        k *= 0x1b873593;
        h ^= k;
    }
    h = rot32(h, 13);
    return h * 5 + 0xe6546b64;
}

static inline uint32_t
mix_final(uint32_t h, uint32_t len)
{
    h ^= len;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

uint32_t
ojs_hash_bytes(const void *p_, size_t n, uint32_t basis)
{
    const uint8_t *p = p_;
    uint32_t h = basis;
    size_t left;

    for (left = n; left >= 4; left -= 4, p += 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        h = mix_in(h, w);
    }
    if (left) {
        uint32_t w = 0;
        memcpy(&w, p, left);
        h = mix_in(h, w);
    }
    return mix_final(h, (uint32_t) n);
}

uint32_t
ojs_hash_2words(uint32_t a, uint32_t b)
{
    return mix_final(mix_in(mix_in(a, 0), b), 8);
}

uint32_t
ojs_hash_3words(uint32_t a, uint32_t b, uint32_t c)
{
    return mix_final(mix_in(mix_in(mix_in(a, 0), b), c), 12);
}
