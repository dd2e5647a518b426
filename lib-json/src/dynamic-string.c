/* lib-json: growable strings.  Our own implementation. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/dynamic-string.h"
#include "util.h"

void
ds_init(struct ds *ds)
{
    *ds = (struct ds) DS_EMPTY_INITIALIZER;
}

void
ds_clear(struct ds *ds)
{
    ds->length = 0;
    if (ds->string) {
        ds->string[0] = '\0';
    }
}

void
ds_destroy(struct ds *ds)
{
    free(ds->string);
    ds_init(ds);
}

/* Makes room for at least 'min_length' bytes plus a terminator. */
void
ds_reserve(struct ds *ds, size_t min_length)
{
    if (min_length > ds->allocated || !ds->string) {
        size_t want = ds->allocated * 2;
        if (want < min_length) {
            want = min_length;
        }
        if (want < 32) {
            want = 32;
        }
        ds->string = ojs_xrealloc(ds->string, want + 1);
        ds->allocated = want;
        ds->string[ds->length] = '\0';
    }
}

char *
ds_put_uninit(struct ds *ds, size_t n)
{
    char *p;

    ds_reserve(ds, ds->length + n);
    p = &ds->string[ds->length];
    ds->length += n;
    ds->string[ds->length] = '\0';
    return p;
}

void
ds_put_buffer(struct ds *ds, const char *s, size_t n)
{
    memcpy(ds_put_uninit(ds, n), s, n);
}

void
ds_put_cstr(struct ds *ds, const char *s)
{
    ds_put_buffer(ds, s, strlen(s));
}

void
ds_put_char_multiple(struct ds *ds, char c, size_t n)
{
    memset(ds_put_uninit(ds, n), c, n);
}

/* Returns how many bytes 'format' makes of the arguments in 'args', which
 * it consumes. */
static size_t
format_length(const char *format, va_list args)
{
    char one[1];
    int len;

    ovs_assert(format != NULL);
    len = vsnprintf(one, sizeof one, format, args);
    if (len < 0) {
        ojs_abort("bad format");
    }
    return len;
}

/* Formats twice, without va_copy(): once to measure, once in place. */
void
ds_put_format(struct ds *ds, const char *format, ...)
{
    va_list args;
    size_t len;

    va_start(args, format);
    len = format_length(format, args);
    va_end(args);

    va_start(args, format);
    vsnprintf(ds_put_uninit(ds, len), len + 1, format, args);
    va_end(args);
}

/* Measures the output on a copy of 'args', then formats it in place. */
void
ds_put_format_valist(struct ds *ds, const char *format, va_list args)
{
    va_list probe;
    size_t len;

    va_copy(probe, args);
    len = format_length(format, probe);
    va_end(probe);
    vsnprintf(ds_put_uninit(ds, len), len + 1, format, args);
}

/* Appends the UTF-8 encoding of code point 'uc'; out of range values become
 * U+FFFD.  Surrogate code points are encoded like any other. */
void
ds_put_utf8(struct ds *ds, int uc)
{
    char bytes[4];
    size_t n;

    if (uc < 0 || uc > 0x10ffff) {
        uc = 0xfffd;
    }
    n = ojs_utf8_encode(bytes, uc);
    ds_put_buffer(ds, bytes, n);
}

/* Writes the UTF-8 form of 'uc' (at most 0x10ffff) to 'out' and returns its
 * length: the low 6 bits of the code point go to the last byte, the next 6
 * to the one before, and the lead byte takes what is left with a prefix
 * that tells the length. */
size_t
ojs_utf8_encode(char *out, int uc)
{
    static const unsigned char lead[5] = { 0, 0, 0xc0, 0xe0, 0xf0 };
    unsigned int v = uc;
    size_t n = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4;

    for (size_t i = n - 1; i > 0; i--) {
        out[i] = (char) (0x80 | (v & 0x3f));
        v >>= 6;
    }
    out[0] = (char) (lead[n] | v);
    return n;
}

char *
ds_cstr(struct ds *ds)
{
    ds_reserve(ds, ds->length); /* Allocates a first block if need be. */
    ds->string[ds->length] = '\0';
    return ds->string;
}

char *
ds_steal_cstr(struct ds *ds)
{
    char *s = ds_cstr(ds);
    ds_init(ds);
    return s;
}
