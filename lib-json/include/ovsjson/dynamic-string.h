/* lib-json: a growable byte string, the subset of OVS's "struct ds" that the
 * JSON library and its users need.  Our own implementation. */

#ifndef OVSJSON_DYNAMIC_STRING_H
#define OVSJSON_DYNAMIC_STRING_H 1

#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include "names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dynamic string.  'string' is null-terminated whenever it is non-null. */
struct ds {
    char *string;       /* Bytes, null-terminated; null if nothing yet. */
    size_t length;      /* Bytes used, not counting the terminator. */
    size_t allocated;   /* Bytes allocated, not counting the terminator. */
};

#define DS_EMPTY_INITIALIZER { NULL, 0, 0 }

OVSJSON_API void ds_init(struct ds *);
OVSJSON_API void ds_clear(struct ds *);
OVSJSON_API void ds_destroy(struct ds *);
OVSJSON_API void ds_reserve(struct ds *, size_t min_length);
OVSJSON_API char *ds_put_uninit(struct ds *, size_t n);
OVSJSON_API void ds_put_buffer(struct ds *, const char *, size_t n);
OVSJSON_API void ds_put_cstr(struct ds *, const char *);
OVSJSON_API void ds_put_char_multiple(struct ds *, char, size_t n);
OVSJSON_API void ds_put_format(struct ds *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
OVSJSON_API void ds_put_format_valist(struct ds *, const char *, va_list)
    __attribute__((format(printf, 2, 0)));
OVSJSON_API void ds_put_utf8(struct ds *, int uc);
OVSJSON_API char *ds_cstr(struct ds *);
OVSJSON_API char *ds_steal_cstr(struct ds *);

/* Appends 'c' to 'ds'.  Inline: the serializer's hottest call. */
static inline void
ds_put_char(struct ds *ds, char c)
{
    if (ds->length >= ds->allocated) {
        ds_reserve(ds, ds->length + 1);
    }
    ds->string[ds->length++] = c;
    ds->string[ds->length] = '\0';
}

#ifdef __cplusplus
}
#endif

#endif /* ovsjson/dynamic-string.h */
