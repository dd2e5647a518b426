/* lib-json internal helpers: allocation that never returns null, and the
 * hash functions whose values match a default (non-SSE4.2) OVS build. */

#ifndef OVSJSON_UTIL_H
#define OVSJSON_UTIL_H 1

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OVSJSON_LIKELY(X) __builtin_expect(!!(X), 1)
#define OVSJSON_UNLIKELY(X) __builtin_expect(!!(X), 0)

void *ojs_xmalloc(size_t);
void *ojs_xzalloc(size_t);
void *ojs_xrealloc(void *, size_t);
char *ojs_xmemdup0(const char *, size_t);
char *ojs_xstrdup(const char *);
char *ojs_xvasprintf(const char *format, va_list)
    __attribute__((format(printf, 1, 0)));
void ojs_abort(const char *what) __attribute__((noreturn));

/* Aborts with a message unless 'COND' holds. */
#define ovs_assert(COND)                                            \
    (OVSJSON_LIKELY(COND) ? (void) 0                                \
     : ojs_abort("assertion " #COND " failed in " __FILE__))

/* UTF-8 (dynamic-string.c). */
size_t ojs_utf8_encode(char *out, int uc);

/* Hashing (32-bit murmur3 mixing steps, as OVS uses them). */
uint32_t ojs_hash_bytes(const void *, size_t n, uint32_t basis);
uint32_t ojs_hash_2words(uint32_t, uint32_t);
uint32_t ojs_hash_3words(uint32_t, uint32_t, uint32_t);

static inline uint32_t
hash_int(uint32_t x, uint32_t basis)
{
    return ojs_hash_2words(x, basis);
}

static inline uint32_t
hash_string(const char *s, uint32_t basis)
{
    return ojs_hash_bytes(s, strlen(s), basis);
}

#endif /* util.h */
