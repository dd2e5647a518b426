/* lib-json: the JSON serializer.  Our own implementation producing exactly
 * OVS's output: "%lld" integers, "%.15g" reals, OVS's string escapes, and
 * OVS's pretty-printing layout. */

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/dynamic-string.h"
#include "json-private.h"
#include "shash-private.h"

#define SPACES_PER_LEVEL 2

struct serializer {
    struct ds *ds;              /* Output. */
    int depth;                  /* Current nesting level. */
    int flags;                  /* JSSF_*. */
};

static void serialize(const struct json *, struct serializer *);

/* Makes room for 'n' more bytes in 'ds' and returns where they go.  The
 * caller advances ds->length; the terminator is written at the end. */
static inline char *
room(struct ds *ds, size_t n)
{
    if (OVSJSON_UNLIKELY(ds->length + n > ds->allocated)) {
        ds_reserve(ds, ds->length + n);
    }
    return ds->string + ds->length;
}

static inline void
put_char(struct ds *ds, char c)
{
    *room(ds, 1) = c;
    ds->length++;
}

static inline void
put_bytes(struct ds *ds, const char *s, size_t n)
{
    memcpy(room(ds, n), s, n);
    ds->length += n;
}

/* Escape sequences for the bytes that need one; NULL for the others. */
static const char *const escapes[256] = {
    "\\u0000", "\\u0001", "\\u0002", "\\u0003",
    "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f",
    "\\u0010", "\\u0011", "\\u0012", "\\u0013",
    "\\u0014", "\\u0015", "\\u0016", "\\u0017",
    "\\u0018", "\\u0019", "\\u001a", "\\u001b",
    "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ['"'] = "\\\"",
    ['\\'] = "\\\\",
};

/* Returns the first byte at or after 's' that needs escaping ('"', '\\' or
 * a control character, including the terminating null). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OVSJSON_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define OVSJSON_ASAN 1
#endif

static inline const char *
scan_plain(const char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ \
    && !defined(OVSJSON_ASAN)
    /* Reads whole aligned words, which may extend past the terminator but
     * never past the word that holds it (hence not into another page).
     * Under AddressSanitizer, which would object, bytes are read one by
     * one. */
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t highs = 0x8080808080808080ULL;

    while (((uintptr_t) s & 7) != 0) {
        if (escapes[(unsigned char) *s] || !*s) {
            return s;
        }
        s++;
    }
    for (;;) {
        uint64_t w, q, b, t;

        memcpy(&w, s, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        t = (((q - ones) & ~q) | ((b - ones) & ~b)
             | ((w - ones * 0x20) & ~w)) & highs;
        if (t) {
            return s + (__builtin_ctzll(t) >> 3);
        }
        s += 8;
    }
#else
    while (!escapes[(unsigned char) *s] && *s) {
        s++;
    }
    return s;
#endif
}

static void
serialize_string(const char *s, struct ds *ds)
{
    put_char(ds, '"');
    for (;;) {
        const char *e = scan_plain(s);
        unsigned char c = *e;

        if (e > s) {
            put_bytes(ds, s, e - s);
        }
        if (!c) {
            break;
        }
        put_bytes(ds, escapes[c], strlen(escapes[c]));
        s = e + 1;
    }
    put_char(ds, '"');
}

static void
serialize_integer(long long int v, struct ds *ds)
{
    char buf[24], *p = buf + sizeof buf;
    unsigned long long int u = (unsigned long long int) v;

    if (v < 0) {
        u = 0 - u;
    }

    do {
        *--p = '0' + u % 10;
        u /= 10;
    } while (u);
    if (v < 0) {
        *--p = '-';
    }
    put_bytes(ds, p, buf + sizeof buf - p);
}

static void
serialize_real(double d, struct ds *ds)
{
    char buf[40];
    int n = snprintf(buf, sizeof buf, "%.*g", DBL_DIG, d);
    put_bytes(ds, buf, n);
}

static void
indent_line(struct serializer *s)
{
    if (s->flags & JSSF_PRETTY) {
        size_t n = SPACES_PER_LEVEL * s->depth;
        char *p = room(s->ds, n + 1);
        *p = '\n';
        memset(p + 1, ' ', n);
        s->ds->length += n + 1;
    }
}

static void
serialize_member(size_t i, const struct shash_node *node,
                 struct serializer *s)
{
    if (i) {
        put_char(s->ds, ',');
        indent_line(s);
    }
    serialize_string(node->name, s->ds);
    put_char(s->ds, ':');
    if (s->flags & JSSF_PRETTY) {
        put_char(s->ds, ' ');
    }
    serialize(node->data, s);
}

static void
serialize_object(const struct shash *sh, struct serializer *s)
{
    size_t i;

    put_char(s->ds, '{');
    s->depth++;
    indent_line(s);

    if (s->flags & JSSF_SORT && !sh->sorted) {
        const struct shash_node *buf[32], **nodes;
        size_t n = ojs_shash_sorted_nodes(sh, buf, 32, &nodes);

        for (i = 0; i < n; i++) {
            serialize_member(i, nodes[i], s);
        }
        if (nodes != buf) {
            free(nodes);
        }
    } else {
        for (i = 0; i < sh->n; i++) {
            serialize_member(i, &sh->nodes[i], s);
        }
    }

    put_char(s->ds, '}');
    s->depth--;
}

static void
serialize_array(const struct json *json, struct serializer *s)
{
    size_t i, n;
    struct json *const *elems;

    if (json->storage_type != JSON_ARRAY_DYNAMIC) {
        n = json->storage_type - JSON_ARRAY_DYNAMIC;
        elems = json->elements;
    } else {
        n = json->array.size;
        elems = json->array.elements;
    }

    put_char(s->ds, '[');
    s->depth++;
    if (n > 0) {
        indent_line(s);
        for (i = 0; i < n; i++) {
            if (i) {
                put_char(s->ds, ',');
                indent_line(s);
            }
            serialize(elems[i], s);
        }
    }
    s->depth--;
    put_char(s->ds, ']');
}

static void
serialize(const struct json *json, struct serializer *s)
{
    /* The three literals are the names json_type_to_string() gives. */
    if (json->type <= JSON_TRUE) {
        const char *word = json_type_to_string(json->type);
        put_bytes(s->ds, word, strlen(word));
    } else if (json->type == JSON_STRING) {
        serialize_string(json_str__(json), s->ds);
    } else if (json->type == JSON_OBJECT) {
        serialize_object(json->object, s);
    } else if (json->type == JSON_ARRAY) {
        serialize_array(json, s);
    } else if (json->type == JSON_INTEGER) {
        serialize_integer(json->integer, s->ds);
    } else if (json->type == JSON_REAL) {
        serialize_real(json->real, s->ds);
    } else if (json->type == JSON_SERIALIZED_OBJECT) {
        put_bytes(s->ds, json->str_ptr, strlen(json->str_ptr));
    } else {
        ojs_abort("json_to_ds: bad type");
    }
}

void
json_to_ds(const struct json *json, int flags, struct ds *ds)
{
    struct serializer s = { .ds = ds, .flags = flags };

    ds_reserve(ds, ds->length + 64);
    serialize(json, &s);
    ds->string[ds->length] = '\0';
}

char *
json_to_string(const struct json *json, int flags)
{
    struct ds out = DS_EMPTY_INITIALIZER;

    json_to_ds(json, flags, &out);
    return ds_steal_cstr(&out);
}

void
json_string_escape(const char *in, struct ds *out)
{
    ds_reserve(out, out->length + 2);
    serialize_string(in, out);
    out->string[out->length] = '\0';
}
