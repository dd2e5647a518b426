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
    ds->string = NULL;
    ds->length = 0;
    ds->allocated = 0;
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

void
ds_put_format(struct ds *ds, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    ds_put_format_valist(ds, format, args);
    va_end(args);
}

void
ds_put_format_valist(struct ds *ds, const char *format, va_list args_)
{
    size_t avail = ds->string ? ds->allocated - ds->length + 1 : 0;
    va_list args;
    int needed;

    va_copy(args, args_);
    needed = vsnprintf(ds->string ? &ds->string[ds->length] : NULL, avail,
                       format, args);
    va_end(args);
    if (needed < 0) {
        ojs_abort("bad format");
    }
    if ((size_t) needed < avail) {
        ds->length += needed;
    } else {
        ds_reserve(ds, ds->length + needed);
        va_copy(args, args_);
        vsnprintf(&ds->string[ds->length], needed + 1, format, args);
        va_end(args);
        ds->length += needed;
    }
}

/* Appends the UTF-8 encoding of code point 'uc'; out of range values become
 * U+FFFD.  Surrogate code points are encoded like any other. */
void
ds_put_utf8(struct ds *ds, int uc)
{
    char *p;

    if (uc < 0 || uc > 0x10ffff) {
        uc = 0xfffd;
    }
    if (uc < 0x80) {
        ds_put_char(ds, uc);
    } else if (uc < 0x800) {
        p = ds_put_uninit(ds, 2);
        p[0] = 0xc0 | (uc >> 6);
        p[1] = 0x80 | (uc & 0x3f);
    } else if (uc < 0x10000) {
        p = ds_put_uninit(ds, 3);
        p[0] = 0xe0 | (uc >> 12);
        p[1] = 0x80 | ((uc >> 6) & 0x3f);
        p[2] = 0x80 | (uc & 0x3f);
    } else {
        p = ds_put_uninit(ds, 4);
        p[0] = 0xf0 | (uc >> 18);
        p[1] = 0x80 | ((uc >> 12) & 0x3f);
        p[2] = 0x80 | ((uc >> 6) & 0x3f);
        p[3] = 0x80 | (uc & 0x3f);
    }
}

char *
ds_cstr(struct ds *ds)
{
    if (!ds->string) {
        ds_reserve(ds, 0);
    }
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
