/* lib-json internal: helpers shared by the value, parser and serializer
 * code. */

#ifndef OVSJSON_JSON_PRIVATE_H
#define OVSJSON_JSON_PRIVATE_H 1

#include <stdlib.h>
#include <string.h>
#include "openvswitch/json.h"
#include "util.h"

/* Allocates a value of 'type' with one reference and no payload. */
static inline struct json *
json_alloc__(enum json_type type)
{
    struct json *json = xmalloc(sizeof *json);
    json->type = type;
    json->storage_type = JSON_STORAGE_DYNAMIC;
    json->n_inline = 0;
    json->count = 1;
    return json;
}

/* Stores the 'len' bytes at 's' (no null bytes among them) as the payload
 * of string 'json': inline if they fit, else in a new heap copy. */
static inline void
json_string_set__(struct json *json, const char *s, size_t len)
{
    if (len <= JSON_STRING_INLINE_LEN) {
        json->storage_type = JSON_STORAGE_INLINE;
        memcpy(json->str, s, len);
        json->str[len] = '\0';
    } else {
        json->storage_type = JSON_STORAGE_DYNAMIC;
        json->str_ptr = xmemdup0(s, len);
    }
}

/* Returns the bytes of string or serialized object 'json'. */
static inline const char *
json_str__(const struct json *json)
{
    return json->storage_type == JSON_STORAGE_INLINE
           ? json->str : json->str_ptr;
}

struct json *json_object_create_sized__(size_t n_nodes, size_t names_len,
                                        char **namesp);

#endif
