/* lib-json internal: helpers shared by the value, parser and serializer
 * code. */

#ifndef OVSJSON_JSON_PRIVATE_H
#define OVSJSON_JSON_PRIVATE_H 1

#include <stdlib.h>
#include <string.h>
#include "ovsjson/json.h"
#include "util.h"

/* Values of "struct json"'s 'alloc__': where the dynamic payload of a
 * string or serialized object lives. */
enum {
    OJS_ALLOC_SEPARATE = 0,     /* A heap block of its own (or none). */
    OJS_ALLOC_IN_BLOCK = 1,     /* Right after the struct, in its block. */
};

/* Allocates a value of 'type' with one reference and no payload. */
static inline struct json *
json_alloc__(enum json_type type)
{
    struct json *json = ojs_xmalloc(sizeof *json);
    json->type = type;
    json->storage_type = JSON_STRING_DYNAMIC;
    json->alloc__ = OJS_ALLOC_SEPARATE;
    json->count = 1;
    return json;
}

/* Creates a JSON_STRING of the 'len' bytes at 's' (no null bytes among
 * them): inline if they fit, else with dynamic storage placed in the same
 * heap block, right after the struct (one malloc() instead of two). */
static inline struct json *
json_string_create_len__(const char *s, size_t len)
{
    struct json *json;

    if (len <= JSON_STRING_INLINE_LEN) {
        json = json_alloc__(JSON_STRING);
        json->storage_type = JSON_STRING_INLINE;
        memcpy(json->str, s, len);
        json->str[len] = '\0';
    } else {
        json = ojs_xmalloc(sizeof *json + len + 1);
        json->type = JSON_STRING;
        json->storage_type = JSON_STRING_DYNAMIC;
        json->alloc__ = OJS_ALLOC_IN_BLOCK;
        json->count = 1;
        json->str_ptr = (char *) (json + 1);
        memcpy(json->str_ptr, s, len);
        json->str_ptr[len] = '\0';
    }
    return json;
}

/* Frees the dynamic string storage of 'json', unless it shares the block
 * of 'json' itself. */
static inline void
json_free_str__(struct json *json)
{
    if (json->alloc__ != OJS_ALLOC_IN_BLOCK) {
        free(json->str_ptr);
    }
}

/* Returns the bytes of string or serialized object 'json'. */
static inline const char *
json_str__(const struct json *json)
{
    return json->storage_type == JSON_STRING_INLINE
           ? json->str : json->str_ptr;
}

struct json *ojs_json_object_create_sized(size_t n_nodes, size_t names_len,
                                        char **namesp);

#endif
