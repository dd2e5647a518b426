/* lib-json: a standalone implementation of the API of Open vSwitch's
 * include/openvswitch/json.h, with the memory layout of the ovs-json-perf
 * series: short strings and short arrays live inside "struct json".
 *
 * JSON as in RFC 8259, with OVS's rules: only UTF-8, no \u0000 in strings,
 * object names unique (a later member replaces an earlier one), integers
 * that don't fit "long long int" become reals, nesting depth limited to
 * JSON_MAX_HEIGHT.  Parse errors are returned as a JSON_STRING that holds
 * the message, exactly as OVS does.
 *
 * This file is our own work; see lib-json/README.md for the mapping to OVS
 * names and the layout. */

#ifndef OPENVSWITCH_JSON_H
#define OPENVSWITCH_JSON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "openvswitch/shash.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ds;

/* Type of a JSON value. */
enum json_type {
    JSON_NULL,                  /* null */
    JSON_FALSE,                 /* false */
    JSON_TRUE,                  /* true */
    JSON_OBJECT,                /* {"a": b, "c": d, ...} */
    JSON_ARRAY,                 /* [1, 2, 3, ...] */
    JSON_INTEGER,               /* 123. */
    JSON_REAL,                  /* 123.456. */
    JSON_STRING,                /* "..." */
    JSON_N_TYPES,
    JSON_SERIALIZED_OBJECT,     /* Internal: already serialized JSON text,
                                 * copied verbatim by the serializer. */
};

const char *json_type_to_string(enum json_type);

/* Heap storage of a JSON array: the form of arrays that have more than
 * JSON_ARRAY_INLINE_LEN elements (or had, before being trimmed). */
struct json_array {
    size_t n;                   /* Number of elements. */
    size_t n_allocated;         /* Capacity of 'elems'. */
    struct json **elems;        /* Elements, on the heap. */
};

/* How many elements an array stores inside "struct json". */
#define JSON_ARRAY_INLINE_LEN 3

/* How many bytes (not counting the null terminator) a string stores inside
 * "struct json": the whole union minus the terminator, 23 on LP64. */
#define JSON_STRING_INLINE_LEN (sizeof(struct json_array) - 1)

/* Where the payload of a string or an array lives. */
enum json_storage_type {
    JSON_STORAGE_DYNAMIC = 0,   /* On the heap: 'str_ptr' or 'array'.  Also
                                 * the value for types without payload. */
    JSON_STORAGE_INLINE = 1,    /* Inside the struct: 'str' or 'elems'. */
};

/* A JSON value.
 *
 * On LP64 the storage kind and the inline array length sit in the 4-byte
 * hole that OVS's layout has between 'type' and 'count', so the struct is
 * 40 bytes like OVS's.  ILP32 has no hole there; the header is packed into
 * the 4 bytes of 'type' instead, which keeps the size of OVS's layout too. */
struct json {
#if UINTPTR_MAX > 0xffffffffu
    enum json_type type;        /* One of JSON_*. */
    uint8_t storage_type;       /* enum json_storage_type, for strings,
                                 * serialized objects and arrays. */
    uint8_t n_inline;           /* Inline array: number of elements. */
#else
    enum json_type type : 16;   /* One of JSON_*. */
    unsigned int storage_type : 8;  /* enum json_storage_type. */
    unsigned int n_inline : 8;  /* Inline array: number of elements. */
#endif
    size_t count;               /* Reference count. */
    union {
        struct shash *object;   /* JSON_OBJECT: contains "struct json *"s. */
        struct json_array array;    /* JSON_ARRAY, dynamic storage. */
        struct json *elems[JSON_ARRAY_INLINE_LEN];  /* JSON_ARRAY, inline. */
        long long int integer;  /* JSON_INTEGER. */
        double real;            /* JSON_REAL. */
        char *str_ptr;          /* JSON_STRING (dynamic storage) and
                                 * JSON_SERIALIZED_OBJECT. */
        char str[sizeof(struct json_array)];    /* JSON_STRING, inline. */
    };
};

#ifndef __cplusplus
/* The layout of OVS's own "struct json", to compare sizes with. */
struct json_ovs_layout__ {
    enum json_type type;
    size_t count;
    union {
        struct shash *object;
        struct json_array array;
        long long int integer;
        double real;
        char *string;
    } u;
};
_Static_assert(sizeof(struct json) == sizeof(struct json_ovs_layout__),
               "struct json must not grow beyond OVS's layout");
_Static_assert(sizeof(void *) != 8 || sizeof(struct json) == 40,
               "struct json must be 40 bytes on LP64");
_Static_assert(sizeof(struct json *[JSON_ARRAY_INLINE_LEN])
               <= sizeof(struct json_array),
               "inline array must fit the union");
#endif

/* Creating values. */
struct json *json_null_create(void);
struct json *json_boolean_create(bool);
struct json *json_string_create(const char *);
struct json *json_string_create_nocopy(char *);
struct json *json_string_create_len(const char *, size_t len);
struct json *json_serialized_object_create(const struct json *);
struct json *json_integer_create(long long int);
struct json *json_real_create(double);

/* Arrays. */
struct json *json_array_create_empty(void);
struct json *json_array_create(struct json **, size_t n);
struct json *json_array_create_1(struct json *);
struct json *json_array_create_2(struct json *, struct json *);
struct json *json_array_create_3(struct json *, struct json *,
                                 struct json *);
void json_array_add(struct json *, struct json *element);
void json_array_trim(struct json *);
size_t json_array_size(const struct json *);
struct json *json_array_at(const struct json *, size_t index);
void json_array_set(struct json *, size_t index, struct json *);
struct json *json_array_pop(struct json *);
bool json_array_contains_string(const struct json *, const char *);

/* Objects. */
struct json *json_object_create(void);
void json_object_put(struct json *, const char *name, struct json *value);
void json_object_put_nocopy(struct json *, char *name, struct json *value);
void json_object_put_string(struct json *,
                            const char *name, const char *value);
void json_object_put_format(struct json *,
                            const char *name, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
struct json *json_object_get(const struct json *, const char *name);
bool json_object_delete(struct json *, const char *name);

/* Accessors. */
const char *json_string(const struct json *);
const char *json_serialized_object(const struct json *);
struct shash *json_object(const struct json *);
bool json_boolean(const struct json *);
double json_real(const struct json *);
int64_t json_integer(const struct json *);

/* Copies and references. */
struct json *json_deep_clone(const struct json *);
static inline struct json *json_clone(const struct json *);
struct json *json_nullable_clone(const struct json *);
static inline void json_destroy(struct json *);

size_t json_hash(const struct json *, size_t basis);
bool json_equal(const struct json *, const struct json *);

/* Parsing JSON. */
#define JSON_MAX_HEIGHT 1000    /* Deepest nesting the parser accepts. */

enum {
    JSPF_TRAILER = 1 << 0       /* Check for garbage following input.  */
};

struct json_parser *json_parser_create(int flags);
size_t json_parser_feed(struct json_parser *, const char *, size_t);
bool json_parser_is_done(const struct json_parser *);
struct json *json_parser_finish(struct json_parser *);
void json_parser_abort(struct json_parser *);

struct json *json_from_string(const char *string);
struct json *json_from_buffer(const char *, size_t n);
struct json *json_from_serialized_object(const struct json *);
struct json *json_from_file(const char *file_name);
struct json *json_from_stream(FILE *stream);

/* Serializing JSON. */
enum {
    JSSF_PRETTY = 1 << 0,       /* Multiple lines with indentation, if true. */
    JSSF_SORT = 1 << 1          /* Object members in sorted order, if true. */
};
char *json_to_string(const struct json *, int flags);
void json_to_ds(const struct json *, int flags, struct ds *);

/* JSON string formatting operations. */
bool json_string_unescape(const char *in, size_t in_len, char **outp);
void json_string_escape(const char *in, struct ds *out);

/* Inline functions. */

/* Returns 'json', with the reference count incremented. */
static inline struct json *
json_clone(const struct json *json_)
{
    struct json *json = (struct json *) json_;
    json->count++;
    return json;
}

void json_destroy__(struct json *json, bool yield);

/* Frees 'json' and everything it points to, recursively, once the last
 * reference is gone. */
static inline void
json_destroy(struct json *json)
{
    if (json && !--json->count) {
        json_destroy__(json, false);
    }
}

#ifdef __cplusplus
}
#endif

#endif /* openvswitch/json.h */
