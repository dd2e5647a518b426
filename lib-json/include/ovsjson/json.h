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

#ifndef OVSJSON_JSON_H
#define OVSJSON_JSON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "names.h"
#include "shash.h"

#ifdef __cplusplus
extern "C" {
#endif

/* lib-json's own version (not OVS's): the soname is libovsjson.so.MAJOR,
 * and ovsjson.pc says the same version.  lib-json/Makefile reads it here. */
#define OVSJSON_VERSION "1.3.0"

struct ds;
struct uuid;

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

OVSJSON_API const char *json_type_to_string(enum json_type);

/* Heap storage of a JSON array: the form of arrays that have no elements or
 * more than JSON_ARRAY_INLINE_LEN of them (OVS 3.6's names). */
struct json_array {
    size_t size;                /* Number of elements. */
    size_t allocated;           /* Capacity of 'elements'. */
    struct json **elements;     /* Elements, on the heap. */
};

/* How many elements an array stores inside "struct json". */
#define JSON_ARRAY_INLINE_LEN 3

/* How many bytes (not counting the null terminator) a string stores inside
 * "struct json": the whole union minus the terminator, 23 on LP64. */
#define JSON_STRING_INLINE_LEN (sizeof(struct json_array) - 1)

/* Where the payload of a string or an array lives (OVS 3.6's values). */
enum json_storage_type {
    JSON_STRING_DYNAMIC = 0,    /* String (or serialized object): in
                                 * 'str_ptr'.  Also the value for types
                                 * without payload. */
    JSON_STRING_INLINE,         /* String: in 'str'. */
    JSON_ARRAY_DYNAMIC,         /* Array: 'array.elements' on the heap. */
    JSON_ARRAY_INLINE_1,        /* Array: exactly 1 element in 'elements'. */
    JSON_ARRAY_INLINE_2,        /* Array: exactly 2 elements in 'elements'. */
    JSON_ARRAY_INLINE_3,        /* Array: exactly 3 elements in 'elements'. */
};

/* A JSON value.
 *
 * OVS 3.6 has the same members at the same offsets.  'storage_type' is an
 * 8-bit bit-field here, which leaves a byte ('alloc__') to record how the
 * payload was allocated; both fit the 4-byte hole that LP64 has between
 * 'type' and 'count', so the struct is 40 bytes like OVS's.  ILP32 has no
 * hole there: 'type' shrinks to 16 bits to make room, which keeps the size
 * of OVS's layout too. */
struct json {
#if UINTPTR_MAX > 0xffffffffu
    enum json_type type;        /* One of JSON_*. */
#else
    enum json_type type : 16;   /* One of JSON_*. */
#endif
    enum json_storage_type storage_type : 8;  /* For strings, serialized
                                               * objects and arrays. */
    unsigned int alloc__ : 8;   /* Internal to lib-json: how the payload was
                                 * allocated. */
    size_t count;               /* Reference count. */
    union {
        struct shash *object;   /* JSON_OBJECT: contains "struct json *"s.
                                 * Allocated with the "struct json": do not
                                 * replace it. */
        union {
            struct json *elements[JSON_ARRAY_INLINE_LEN];
            struct json_array array;
        };                      /* JSON_ARRAY. */
        long long int integer;  /* JSON_INTEGER. */
        double real;            /* JSON_REAL. */
        union {
            char str[JSON_STRING_INLINE_LEN + 1];
            char *str_ptr;
        };                      /* JSON_STRING, JSON_SERIALIZED_OBJECT. */
    };
};

#ifndef __cplusplus
/* The layout of OVS 3.5's "struct json", to compare sizes with. */
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

/* Every function below has OVS 3.6's name, signature and meaning unless its
 * comment says otherwise; lib-json/README.md has the table.  Functions
 * marked "lib-json only" are not in OVS. */

/* Creating values. */
OVSJSON_API struct json *json_null_create(void);
OVSJSON_API struct json *json_boolean_create(bool);
OVSJSON_API struct json *json_string_create(const char *);
/* Takes ownership of 's', which must come from malloc(): the value keeps
 * it as its dynamic storage and frees it when destroyed, as in OVS.  The
 * caller must not use or free 's' afterwards, whatever its length. */
OVSJSON_API struct json *json_string_create_nocopy(char *s);
OVSJSON_API struct json *json_string_create_uuid(const struct uuid *);
/* lib-json only: a string of the 'len' bytes at 's' (no null bytes). */
OVSJSON_API struct json *json_string_create_len(const char *s, size_t len);
OVSJSON_API struct json *json_serialized_object_create(const struct json *);
OVSJSON_API struct json *json_integer_create(long long int);
OVSJSON_API struct json *json_real_create(double);

/* Arrays. */
OVSJSON_API struct json *json_array_create_empty(void);
OVSJSON_API void json_array_add(struct json *, struct json *element);
/* Stores 'element' at 'index' (< json_array_size()).  Does not destroy the
 * element that was there: the caller still owns it. */
OVSJSON_API void json_array_set(struct json *, size_t index,
                                struct json *element);
OVSJSON_API struct json *json_array_pop(struct json *);
OVSJSON_API void json_array_trim(struct json *);
OVSJSON_API struct json *json_array_create(struct json **, size_t n);
OVSJSON_API struct json *json_array_create_1(struct json *);
OVSJSON_API struct json *json_array_create_2(struct json *, struct json *);
OVSJSON_API struct json *json_array_create_3(struct json *, struct json *,
                                             struct json *);
OVSJSON_API bool json_array_contains_string(const struct json *,
                                            const char *);

/* Objects. */
OVSJSON_API struct json *json_object_create(void);
OVSJSON_API bool json_object_is_empty(struct json *);
OVSJSON_API void json_object_put(struct json *, const char *name,
                                 struct json *value);
OVSJSON_API void json_object_put_nocopy(struct json *, char *name,
                                        struct json *value);
OVSJSON_API void json_object_put_string(struct json *, const char *name,
                                        const char *value);
OVSJSON_API void json_object_put_format(struct json *, const char *name,
                                        const char *format, ...)
    __attribute__((format(printf, 3, 4)));
OVSJSON_API void json_object_put_uuid(struct json *, const char *name,
                                      const struct uuid *);
/* lib-json only: the value of member 'name', or NULL. */
OVSJSON_API struct json *json_object_get(const struct json *,
                                         const char *name);
/* lib-json only: removes member 'name' and destroys its value; false if
 * there was none. */
OVSJSON_API bool json_object_delete(struct json *, const char *name);

/* Accessors. */
OVSJSON_API const char *json_string(const struct json *);
OVSJSON_API const char *json_serialized_object(const struct json *);
OVSJSON_API size_t json_array_size(const struct json *);
/* Element 'index' of array 'json', still owned by the array, or NULL if
 * 'index' is out of range. */
OVSJSON_API const struct json *json_array_at(const struct json *,
                                             size_t index);
OVSJSON_API struct shash *json_object(const struct json *);
OVSJSON_API bool json_boolean(const struct json *);
OVSJSON_API double json_real(const struct json *);
OVSJSON_API int64_t json_integer(const struct json *);

/* Copies and references. */
OVSJSON_API struct json *json_deep_clone(const struct json *);
static inline struct json *json_clone(const struct json *);
OVSJSON_API struct json *json_nullable_clone(const struct json *);
static inline void json_destroy(struct json *);

OVSJSON_API size_t json_hash(const struct json *, size_t basis);
OVSJSON_API bool json_equal(const struct json *, const struct json *);

/* Parsing JSON. */
#define JSON_MAX_HEIGHT 1000    /* lib-json only: the deepest nesting the
                                 * parser accepts (OVS's limit too). */

enum {
    JSPF_TRAILER = 1 << 0       /* Check for garbage following input.  */
};

OVSJSON_API struct json_parser *json_parser_create(int flags);
OVSJSON_API size_t json_parser_feed(struct json_parser *, const char *,
                                    size_t);
OVSJSON_API bool json_parser_is_done(const struct json_parser *);
OVSJSON_API struct json *json_parser_finish(struct json_parser *);
OVSJSON_API void json_parser_abort(struct json_parser *);

/* Streaming (OVS 4.0.0 with ovs-json-perf's "json: Add a parser mode that
 * hands out complete members."): the parser passes each member of an
 * object 'depth' levels deep (1: the members of the outermost object) to
 * the callback as soon as its value is complete.  'names' holds the
 * 'depth' member names that lead to the value, outermost first, the
 * member's own name last; the parser owns them.  Returning true takes the
 * value (the member then never joins the tree that json_parser_finish()
 * returns); returning false leaves the value to the parser, which adds it
 * to its object as usual.  Only paths made of objects count: members of
 * objects inside arrays are never passed.  A member whose name repeats an
 * earlier member of its object that is in the tree (any member above
 * 'depth', a declined one at it) is first passed with a null value (the
 * return value is ignored): the tree keeps the last one, so a caller that
 * took members below the earlier one must undo it, e.g. by parsing again
 * without a callback.  A repeat of a member that the callback took is not
 * reported: its owner must detect it with its own index.  Set it before
 * any input. */
typedef bool json_parser_member_cb(void *aux, const char *names[],
                                   size_t depth, struct json *value);
OVSJSON_API void json_parser_set_member_cb(struct json_parser *,
                                           size_t depth,
                                           json_parser_member_cb *,
                                           void *aux);

/* Members kept as text (OVS 4.0.0 with ovs-json-perf's "json: Add a parser
 * mode that keeps a member as text."): the value of each member named
 * 'name' of the outermost object, if it is an object or an array, becomes
 * a JSON_SERIALIZED_OBJECT of the input's own bytes for it, spaces and
 * escapes included, whatever the split of the input between feeds.  Its
 * syntax is checked with the usual errors, but no tree of it is built.  A
 * member that is a scalar, and members of deeper objects, are parsed as
 * usual; of repeated members the last counts.  Set it before any input,
 * and not together with json_parser_set_member_cb(). */
OVSJSON_API void json_parser_set_text_member(struct json_parser *,
                                             const char *name);
/* The same for the members named 'name' at depth 'depth', counted as for
 * json_parser_set_member_cb(): json_parser_set_text_member() is depth 1, and
 * a JSON-RPC message {"params": [{"data": ...}]} has "data" at depth 3 (OVS
 * 4.0.0 with ovs-json-perf's pending "json: Keep members at any depth as
 * text.").  'depth' must be at least 1. */
OVSJSON_API void json_parser_set_text_member_depth(struct json_parser *,
                                                   size_t depth,
                                                   const char *name);

OVSJSON_API struct json *json_from_string(const char *string);
/* lib-json only: json_from_string() of the 'n' bytes at 's'. */
OVSJSON_API struct json *json_from_buffer(const char *s, size_t n);
OVSJSON_API struct json *json_from_serialized_object(const struct json *);
OVSJSON_API struct json *json_from_file(const char *file_name);
OVSJSON_API struct json *json_from_stream(FILE *stream);

/* Serializing JSON. */
enum {
    JSSF_PRETTY = 1 << 0,       /* Multiple lines with indentation, if true. */
    JSSF_SORT = 1 << 1          /* Object members in sorted order, if true. */
};
OVSJSON_API char *json_to_string(const struct json *, int flags);
OVSJSON_API void json_to_ds(const struct json *, int flags, struct ds *);

/* JSON string formatting operations. */
OVSJSON_API bool json_string_unescape(const char *in, size_t in_len,
                                      char **outp);
OVSJSON_API void json_string_escape(const char *in, struct ds *out);

/* Inline functions. */

/* Returns 'json', with the reference count incremented. */
static inline struct json *
json_clone(const struct json *json_)
{
    struct json *json = (struct json *) json_;
    json->count++;
    return json;
}

OVSJSON_API void json_destroy__(struct json *json, bool yield);

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

#endif /* ovsjson/json.h */
