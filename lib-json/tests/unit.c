/* Unit tests for lib-json: the inline/heap boundaries of strings and
 * arrays, copies, equality and hashing across storage forms, objects,
 * numbers, errors and the incremental parser.
 *
 * Prints "ok NAME" or "FAIL NAME: why" per case and ends with
 * "N passed, N failed"; exits non-zero iff a case failed. */

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/dynamic-string.h"
#include "ovsjson/json.h"
#include "ovsjson/uuid.h"
#include "cases.h"

static const char *case_name;

/* Records the first failed check of the current case. */
#define CHECK(COND) check__(!!(COND), #COND, __LINE__)
static bool
check__(bool ok, const char *what, int line)
{
    if (!ok) {
        case_failed("line %d: %s", line, what);
    }
    return ok;
}

static void
begin(const char *name)
{
    case_name = name;
    case_begin();
}

static void
end(void)
{
    case_end(case_name);
}

static char *
repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static bool
is_inline(const struct json *j)
{
    return j->storage_type == JSON_STRING_INLINE
           || (j->type == JSON_ARRAY
               && j->storage_type != JSON_ARRAY_DYNAMIC);
}

/* Serializes 'j' sorted, compactly. */
static char *
ser(const struct json *j)
{
    return json_to_string(j, JSSF_SORT);
}

/* Parses 'text' and returns the serialization (or "error: ..."). */
static char *
reser(const char *text)
{
    struct json *j = json_from_string(text);
    char *s;

    if (j->type == JSON_STRING) {
        size_t n = strlen(json_string(j)) + 8;
        s = malloc(n);
        snprintf(s, n, "error: %s", json_string(j));
    } else {
        s = ser(j);
    }
    json_destroy(j);
    return s;
}

static bool
reser_is(const char *text, const char *expected)
{
    char *s = reser(text);
    bool ok = !strcmp(s, expected);
    if (!ok) {
        case_failed("%s -> %s (expected %s)", text, s, expected);
    }
    free(s);
    return ok;
}

/* Wraps the string 's' in a JSON array, serializes, reparses and checks
 * that the string comes back equal and in the expected form. */
static void
check_string_roundtrip(const char *s)
{
    struct json *a = json_array_create_1(json_string_create(s));
    char *text = ser(a);
    struct json *b = json_from_string(text);
    const struct json *bs;

    CHECK(b->type == JSON_ARRAY && json_array_size(b) == 1);
    if (b->type == JSON_ARRAY && json_array_size(b) == 1) {
        bs = json_array_at(b, 0);
        CHECK(bs->type == JSON_STRING && !strcmp(json_string(bs), s));
        CHECK(is_inline(bs) == (strlen(s) <= JSON_STRING_INLINE_LEN));
        CHECK(json_equal(a, b));
        CHECK(json_hash(a, 0) == json_hash(b, 0));
    }
    json_destroy(a);
    json_destroy(b);
    free(text);
}

static void
test_layout(void)
{
    begin("layout");
    CHECK(JSON_STRING_INLINE_LEN == sizeof(struct json_array) - 1);
    CHECK(JSON_ARRAY_INLINE_LEN * sizeof(struct json *)
          <= sizeof(struct json_array));
    if (sizeof(void *) == 8) {
        CHECK(sizeof(struct json) == 40);
        CHECK(JSON_STRING_INLINE_LEN == 23);
        CHECK(offsetof(struct json, count) == 8);
        CHECK(offsetof(struct json, str) == 16);
    }
    end();
}

static void
test_string_lengths(void)
{
    static const size_t lens[] = { 255, 65536 };
    char name[64];
    size_t len;

    for (len = 0; len <= 25; len++) {
        char *s = repeat('a' + len % 26, len);
        struct json *j = json_string_create(s);
        struct json *k = json_string_create_nocopy(strdup(s));
        struct json *l = json_string_create_len(s, len);

        snprintf(name, sizeof name, "string length %zu", len);
        begin(name);
        CHECK(!strcmp(json_string(j), s) && strlen(json_string(j)) == len);
        CHECK(is_inline(j) == (len <= 23));
        /* _nocopy keeps the caller's block, as in OVS. */
        CHECK(!is_inline(k) && !strcmp(json_string(k), s));
        CHECK(is_inline(l) == (len <= 23) && json_equal(j, l));
        CHECK(json_equal(j, k) && json_hash(j, 7) == json_hash(k, 7));
        check_string_roundtrip(s);
        end();
        json_destroy(j);
        json_destroy(k);
        json_destroy(l);
        free(s);
    }
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        char *s = repeat('x', lens[i]);
        struct json *j = json_string_create(s);

        snprintf(name, sizeof name, "string length %zu", lens[i]);
        begin(name);
        CHECK(!is_inline(j) && strlen(json_string(j)) == lens[i]);
        check_string_roundtrip(s);
        end();
        json_destroy(j);
        free(s);
    }
}

/* Multi-byte UTF-8 characters that straddle the 23-byte boundary. */
static void
test_utf8_boundary(void)
{
    static const char *chars[] = { "\xc3\xa9", "\xe2\x82\xac",
                                   "\xf0\x9f\x98\x80" };
    static const char *escs[] = { "\\u00e9", "\\u20ac", "\\ud83d\\ude00" };
    char name[64];

    for (int c = 0; c < 3; c++) {
        size_t clen = strlen(chars[c]);
        for (size_t prefix = 23 - clen - 1; prefix <= 23; prefix++) {
            char s[64], text[128];
            size_t len = prefix + clen;
            struct json *j;

            memset(s, 'a', prefix);
            strcpy(s + prefix, chars[c]);
            snprintf(name, sizeof name, "utf8 %zu-byte char at %zu",
                     clen, prefix);
            begin(name);
            check_string_roundtrip(s);

            /* The same string written with a \u escape. */
            snprintf(text, sizeof text, "[\"%.*s%s\"]", (int) prefix, s,
                     escs[c]);
            j = json_from_string(text);
            CHECK(j->type == JSON_ARRAY);
            if (j->type == JSON_ARRAY) {
                const struct json *e = json_array_at(j, 0);
                CHECK(!strcmp(json_string(e), s));
                CHECK(is_inline(e) == (len <= 23));
            }
            json_destroy(j);
            end();
        }
    }
}

static void
test_escapes(void)
{
    char *s;

    begin("escapes: named and \\u");
    CHECK(reser_is("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
                   "[\"\\\"\\\\/\\b\\f\\n\\r\\t\"]"));
    CHECK(reser_is("[\"\\u0001\\u001f\\u007f\\u0020\"]",
                   "[\"\\u0001\\u001f\x7f \"]"));
    CHECK(reser_is("[\"\\u00E9\\u00e9\"]", "[\"\xc3\xa9\xc3\xa9\"]"));
    end();

    begin("escapes: surrogates");
    CHECK(reser_is("[\"\\ud83d\\ude00\"]", "[\"\xf0\x9f\x98\x80\"]"));
    CHECK(reser_is("[\"\\udbff\\udfff\"]", "[\"\xf4\x8f\xbf\xbf\"]"));
    CHECK(reser_is("[\"\\udc00\"]", "[\"\xed\xb0\x80\"]"));
    CHECK(reser_is("[\"\\ud83d\"]", "error: line 0, column 8, byte 8: "
                   "malformed escaped surrogate pair"));
    CHECK(reser_is("[\"\\ud83dx\\ude00\"]", "error: line 0, column 15, "
                   "byte 15: malformed escaped surrogate pair"));
    CHECK(reser_is("[\"\\ud83d\\u0041\"]", "error: line 0, column 14, "
                   "byte 14: second half of escaped surrogate pair is "
                   "not trailing surrogate"));
    end();

    begin("escapes: errors");
    CHECK(reser_is("[\"\\u0000\"]", "error: line 0, column 8, byte 8: "
                   "null bytes not supported in quoted strings"));
    CHECK(reser_is("[\"\\u00g0\"]", "error: line 0, column 8, byte 8: "
                   "malformed \\u escape"));
    CHECK(reser_is("[\"\\u00\"]", "error: line 0, column 6, byte 6: "
                   "quoted string ends within \\u escape"));
    CHECK(reser_is("[\"\\x\"]", "error: line 0, column 4, byte 4: "
                   "bad escape \\x"));
    CHECK(reser_is("[\"a\tb\"]", "error: line 0, column 3, byte 3: "
                   "U+0009 must be escaped in quoted string"));
    end();

    begin("escapes: around the inline boundary");
    /* 22 plain bytes plus one escape: 24 raw bytes, 23 cooked. */
    s = repeat('b', 22);
    {
        char text[128];
        struct json *j;

        snprintf(text, sizeof text, "[\"%s\\n\",\"%s\\n\\n\",\"%s\\u00e9\"]",
                 s, s, s);
        j = json_from_string(text);
        CHECK(j->type == JSON_ARRAY && json_array_size(j) == 3);
        if (j->type == JSON_ARRAY && json_array_size(j) == 3) {
            CHECK(is_inline(json_array_at(j, 0)));
            CHECK(strlen(json_string(json_array_at(j, 0))) == 23);
            CHECK(!is_inline(json_array_at(j, 1)));
            CHECK(strlen(json_string(json_array_at(j, 1))) == 24);
            CHECK(!is_inline(json_array_at(j, 2)));
        }
        json_destroy(j);
    }
    free(s);
    end();

    begin("json_string_escape and json_string_unescape");
    {
        struct ds ds = DS_EMPTY_INITIALIZER;
        char *out;

        json_string_escape("a\"b\\c\n\x01", &ds);
        CHECK(!strcmp(ds_cstr(&ds), "\"a\\\"b\\\\c\\n\\u0001\""));
        ds_destroy(&ds);
        CHECK(json_string_unescape("x\\u00e9\\t", 9, &out));
        CHECK(!strcmp(out, "x\xc3\xa9\t"));
        free(out);
        CHECK(!json_string_unescape("x\\", 2, &out));
        CHECK(!strcmp(out, "quoted string may not end with backslash"));
        free(out);
        CHECK(!json_string_unescape("x\"", 2, &out));
        free(out);
    }
    end();
}

static struct json *
make_array(size_t n, bool via_add)
{
    struct json *a;

    if (via_add) {
        a = json_array_create_empty();
        for (size_t i = 0; i < n; i++) {
            json_array_add(a, json_integer_create(i));
        }
    } else {
        struct json **elems = malloc((n ? n : 1) * sizeof *elems);
        for (size_t i = 0; i < n; i++) {
            elems[i] = json_integer_create(i);
        }
        a = json_array_create(elems, n);
    }
    return a;
}

static void
test_arrays(void)
{
    static const char *texts[] = { "[]", "[0]", "[0,1]", "[0,1,2]",
                                   "[0,1,2,3]", "[0,1,2,3,4]" };
    char name[64];

    for (size_t n = 0; n <= 5; n++) {
        struct json *a = make_array(n, true);
        struct json *b = make_array(n, false);
        struct json *c = json_from_string(texts[n]);
        char *s;

        snprintf(name, sizeof name, "array of %zu elements", n);
        begin(name);
        CHECK(json_array_size(a) == n && json_array_size(b) == n);
        CHECK(c->type == JSON_ARRAY && json_array_size(c) == n);
        /* OVS 3.6's forms: empty arrays and arrays made by
         * json_array_create() are dynamic. */
        CHECK(is_inline(a) == (n >= 1 && n <= 3));
        CHECK(!is_inline(b));
        CHECK(is_inline(c) == (n >= 1 && n <= 3));
        CHECK(n < 1 || n > 3
              || c->storage_type == JSON_ARRAY_INLINE_1 + (n - 1));
        for (size_t i = 0; i < n; i++) {
            CHECK(json_integer(json_array_at(a, i)) == (long long) i);
        }
        CHECK(json_equal(a, b) && json_equal(b, c));
        CHECK(json_hash(a, 1) == json_hash(c, 1));
        s = ser(a);
        CHECK(!strcmp(s, texts[n]));
        free(s);
        json_array_trim(a);
        CHECK(is_inline(a) == (n >= 1 && n <= 3) && json_equal(a, c));
        end();
        json_destroy(a);
        json_destroy(b);
        json_destroy(c);
    }

    begin("array create_1/2/3");
    {
        struct json *a1 = json_array_create_1(json_null_create());
        struct json *a2 = json_array_create_2(json_null_create(),
                                              json_boolean_create(true));
        struct json *a3 = json_array_create_3(json_null_create(),
                                              json_boolean_create(true),
                                              json_string_create("x"));
        char *s = ser(a3);
        CHECK(is_inline(a1) && is_inline(a2) && is_inline(a3));
        CHECK(json_array_size(a3) == 3 && !strcmp(s, "[null,true,\"x\"]"));
        CHECK(json_array_contains_string(a3, "x"));
        CHECK(!json_array_contains_string(a2, "x"));
        free(s);
        json_destroy(a1);
        json_destroy(a2);
        json_destroy(a3);
    }
    end();

    begin("array growth and trim");
    {
        struct json *a = json_array_create_3(json_integer_create(0),
                                             json_integer_create(1),
                                             json_integer_create(2));
        CHECK(is_inline(a));
        json_array_add(a, json_integer_create(3));
        CHECK(!is_inline(a) && json_array_size(a) == 4);
        for (int i = 4; i < 100; i++) {
            json_array_add(a, json_integer_create(i));
        }
        CHECK(json_array_size(a) == 100);
        CHECK(json_integer(json_array_at(a, 99)) == 99);
        json_array_trim(a);
        CHECK(!is_inline(a) && a->array.allocated == 100);
        while (json_array_size(a) > 2) {
            json_destroy(json_array_pop(a));
        }
        CHECK(!is_inline(a));
        json_array_trim(a);
        CHECK(!is_inline(a) && json_array_size(a) == 2
              && a->array.allocated == 2);
        CHECK(json_integer(json_array_at(a, 1)) == 1);
        json_destroy((struct json *) json_array_at(a, 1));
        json_array_set(a, 1, json_string_create("one"));
        CHECK(!strcmp(json_string(json_array_at(a, 1)), "one"));
        json_destroy(a);
    }
    end();

    begin("nested arrays and arrays in objects");
    CHECK(reser_is("[[],[[]],[[[1,2,3,4]]],{\"a\":[1,2,3],\"b\":[1,2,3,4]}]",
                   "[[],[[]],[[[1,2,3,4]]],{\"a\":[1,2,3],\"b\":[1,2,3,4]}]"));
    end();
}

/* A JSON_STRING forced into the heap form, whatever its length. */
static struct json *
heap_string(const char *s)
{
    return json_string_create_nocopy(strdup(s));
}

static void
test_forms(void)
{
    begin("string: inline vs heap form, equal content");
    {
        struct json *in = json_string_create("uuid");
        struct json *heap = heap_string("uuid");
        struct json *dc = json_deep_clone(heap);
        struct json *sc = json_clone(heap);

        CHECK(is_inline(in) && !is_inline(heap));
        CHECK(json_equal(in, heap) && json_equal(heap, in));
        CHECK(json_hash(in, 3) == json_hash(heap, 3));
        CHECK(!strcmp(json_string(heap), "uuid"));
        CHECK(sc == heap && heap->count == 2);
        CHECK(is_inline(dc) && json_equal(dc, in) && dc->count == 1);
        json_destroy(sc);
        CHECK(heap->count == 1);
        json_destroy(dc);
        dc = json_deep_clone(in);
        CHECK(is_inline(dc) && json_equal(dc, heap));
        json_destroy(dc);
        json_destroy(in);
        json_destroy(heap);
    }
    end();

    begin("array: inline vs heap form, equal content");
    {
        struct json *heap = make_array(5, true);
        struct json *in = make_array(2, false);
        struct json *dc;

        json_destroy(json_array_pop(heap));
        json_destroy(json_array_pop(heap));
        json_destroy(json_array_pop(heap));
        CHECK(!is_inline(heap) && !is_inline(in));
        json_destroy(in);
        in = json_array_create_2(json_integer_create(0),
                                 json_integer_create(1));
        CHECK(!is_inline(heap) && is_inline(in));
        CHECK(json_equal(in, heap) && json_equal(heap, in));
        CHECK(json_hash(in, 0) == json_hash(heap, 0));
        dc = json_deep_clone(heap);
        CHECK(is_inline(dc) && json_equal(dc, heap) && dc->count == 1);
        json_destroy(dc);
        json_destroy(in);
        in = make_array(0, false);
        dc = json_deep_clone(in);
        CHECK(dc->storage_type == JSON_ARRAY_DYNAMIC && json_equal(dc, in));
        json_destroy(dc);
        json_destroy(in);
        json_destroy(heap);
    }
    end();

    begin("deep clone keeps forms");
    {
        struct json *j = json_from_string(
            "{\"s\":\"short\",\"l\":\"a string that is longer than 23\","
            "\"a\":[1,2,3],\"b\":[1,2,3,4,5],\"o\":{\"x\":[[\"uuid\","
            "\"00000000-0000-0000-0000-000000000000\"]]}}");
        struct json *dc = json_deep_clone(j);
        struct json *o = json_object(dc)->nodes ? json_object_get(dc, "o")
                                                : NULL;

        CHECK(json_equal(j, dc) && json_hash(j, 0) == json_hash(dc, 0));
        CHECK(is_inline(json_object_get(dc, "s")));
        CHECK(!is_inline(json_object_get(dc, "l")));
        CHECK(is_inline(json_object_get(dc, "a")));
        CHECK(!is_inline(json_object_get(dc, "b")));
        CHECK(o && o->type == JSON_OBJECT);
        json_destroy(dc);
        json_destroy(j);
    }
    end();

    begin("refcount and nullable clone");
    {
        struct json *j = json_from_string("[\"x\"]");
        struct json *c = json_nullable_clone(j);
        CHECK(c == j && j->count == 2);
        CHECK(json_nullable_clone(NULL) == NULL);
        json_destroy(c);
        CHECK(j->count == 1);
        json_destroy(j);
        json_destroy(NULL);
    }
    end();
}


/* The behaviour lib-json shares with OVS 3.6's json.h, case by case (the
 * rows of the parity table in lib-json/README.md). */
static void
test_api_36(void)
{
    begin("3.6: json_array_set does not destroy the replaced element");
    {
        /* OVS's substitute_uuids() pattern: take the element, put a new
         * one in its place, then use and destroy the old one. */
        struct json *a = json_from_string("[[\"named-uuid\",\"x\"],2,3,4]");
        struct json *old = (struct json *) json_array_at(a, 0);

        json_array_set(a, 0, json_string_create("replacement"));
        CHECK(old->type == JSON_ARRAY && json_array_size(old) == 2);
        CHECK(!strcmp(json_string(json_array_at(old, 0)), "named-uuid"));
        json_destroy(old);
        old = (struct json *) json_array_at(a, 3);
        json_array_set(a, 3, json_null_create());
        CHECK(json_integer(old) == 4);
        json_destroy(old);
        char *t = json_to_string(a, 0);
        CHECK(!strcmp(t, "[\"replacement\",2,3,null]"));
        free(t);
        json_destroy(a);
    }
    end();

    begin("3.6: json_array_at returns NULL out of range");
    {
        struct json *e = json_array_create_empty();
        struct json *i2 = json_array_create_2(json_null_create(),
                                              json_null_create());
        struct json *d = json_from_string("[1,2,3,4,5]");
        CHECK(json_array_at(e, 0) == NULL);
        CHECK(json_array_at(i2, 1) != NULL && json_array_at(i2, 2) == NULL);
        CHECK(json_array_at(d, 4) != NULL && json_array_at(d, 5) == NULL);
        CHECK(json_array_at(d, (size_t) -1) == NULL);
        json_destroy(e);
        json_destroy(i2);
        json_destroy(d);
    }
    end();

    begin("3.6: storage forms of parsed and built arrays");
    {
        static const char *texts[] = { "[]", "[1]", "[1,2]", "[1,2,3]",
                                       "[1,2,3,4]" };
        static const enum json_storage_type forms[] = {
            JSON_ARRAY_DYNAMIC, JSON_ARRAY_INLINE_1, JSON_ARRAY_INLINE_2,
            JSON_ARRAY_INLINE_3, JSON_ARRAY_DYNAMIC,
        };
        for (size_t i = 0; i < 5; i++) {
            struct json *j = json_from_string(texts[i]);
            struct json *dc = json_deep_clone(j);
            CHECK(j->storage_type == forms[i]);
            CHECK(dc->storage_type == forms[i]);
            json_destroy(j);
            json_destroy(dc);
        }
        struct json *e = json_array_create_empty();
        CHECK(e->storage_type == JSON_ARRAY_DYNAMIC && !e->array.size);
        json_array_add(e, json_null_create());
        CHECK(e->storage_type == JSON_ARRAY_INLINE_1);
        json_array_add(e, json_null_create());
        json_array_add(e, json_null_create());
        CHECK(e->storage_type == JSON_ARRAY_INLINE_3);
        json_array_add(e, json_null_create());
        CHECK(e->storage_type == JSON_ARRAY_DYNAMIC && e->array.size == 4);
        json_destroy(e);
    }
    end();

    begin("3.6: json_array_pop, then add again");
    {
        struct json *a = json_array_create_2(json_integer_create(1),
                                             json_integer_create(2));
        struct json *x = json_array_pop(a);
        CHECK(json_integer(x) == 2 && a->storage_type == JSON_ARRAY_INLINE_1);
        json_destroy(x);
        x = json_array_pop(a);
        CHECK(json_integer(x) == 1 && a->storage_type == JSON_ARRAY_DYNAMIC
              && json_array_size(a) == 0);
        json_destroy(x);
        CHECK(json_array_pop(a) == NULL);
        json_array_add(a, json_integer_create(7));
        CHECK(a->storage_type == JSON_ARRAY_INLINE_1);
        json_destroy(a);

        /* A dynamic array emptied by pops keeps its vector until the next
         * add, which must free it (ASan's leak check sees it if not). */
        a = json_from_string("[1,2,3,4,5]");
        while ((x = json_array_pop(a))) {
            json_destroy(x);
        }
        json_array_add(a, json_integer_create(9));
        CHECK(a->storage_type == JSON_ARRAY_INLINE_1
              && json_integer(json_array_at(a, 0)) == 9);
        json_destroy(a);
    }
    end();

    begin("3.6: json_array_create takes the vector, dynamic");
    {
        struct json **v = malloc(2 * sizeof *v);
        v[0] = json_integer_create(1);
        v[1] = json_integer_create(2);
        struct json *a = json_array_create(v, 2);
        CHECK(a->storage_type == JSON_ARRAY_DYNAMIC && a->array.elements == v
              && a->array.size == 2 && a->array.allocated == 2);
        json_destroy(a);
    }
    end();

    begin("3.6: json_string_create_nocopy keeps the caller's block");
    {
        char *s = strdup("short");
        struct json *j = json_string_create_nocopy(s);
        CHECK(j->storage_type == JSON_STRING_DYNAMIC && j->str_ptr == s);
        CHECK(json_string(j) == s);
        json_destroy(j);
    }
    end();

    begin("3.6: json_string_create_uuid and json_object_put_uuid");
    {
        struct uuid u = { { 0x01234567, 0x89abcdef, 0x00112233,
                            0xfedcba98 } };
        struct json *j = json_string_create_uuid(&u);
        struct json *o = json_object_create();
        CHECK(!strcmp(json_string(j),
                      "01234567-89ab-cdef-0011-2233fedcba98"));
        CHECK(j->storage_type == JSON_STRING_DYNAMIC);
        json_object_put_uuid(o, "_uuid", &u);
        char *t = json_to_string(o, 0);
        CHECK(!strcmp(t, "{\"_uuid\":"
                      "\"01234567-89ab-cdef-0011-2233fedcba98\"}"));
        free(t);
        json_destroy(j);
        json_destroy(o);
    }
    end();

    begin("3.6: json_object_is_empty");
    {
        struct json *o = json_object_create();
        struct json *a = json_array_create_empty();
        CHECK(json_object_is_empty(o));
        CHECK(!json_object_is_empty(a) && !json_object_is_empty(NULL));
        json_object_put(o, "k", json_null_create());
        CHECK(!json_object_is_empty(o));
        json_destroy(o);
        json_destroy(a);
    }
    end();

    begin("3.6: json_string_unescape with an embedded NUL");
    {
        char *out;
        CHECK(json_string_unescape("a\0b", 3, &out));
        CHECK(out[0] == 'a' && out[1] == '\0' && out[2] == 'b'
              && out[3] == '\0');
        free(out);
        /* Everything after the NUL is still unescaped and checked. */
        CHECK(json_string_unescape("a\0\\n", 4, &out));
        CHECK(out[0] == 'a' && out[1] == '\0' && out[2] == '\n');
        free(out);
        CHECK(!json_string_unescape("a\0\\x", 4, &out));
        CHECK(!strcmp(out, "bad escape \\x"));
        free(out);
        CHECK(!json_string_unescape("a\0\"", 3, &out));
        CHECK(!strcmp(out, "quoted string may not include unescaped \""));
        free(out);
    }
    end();

    begin("shash: SHASH_INITIALIZER, add_once, add_assert, delete");
    {
        static struct shash sh = SHASH_INITIALIZER(&sh);
        int one = 1, two = 2;
        CHECK(shash_is_empty(&sh));
        CHECK(shash_add_once(&sh, "a", &one));
        CHECK(!shash_add_once(&sh, "a", &two));
        CHECK(shash_find_data(&sh, "a") == &one);
        shash_add_assert(&sh, "b", &two);
        CHECK(shash_find_and_delete_assert(&sh, "a") == &one);
        shash_delete(&sh, shash_find(&sh, "b"));
        CHECK(shash_is_empty(&sh));
        shash_destroy(&sh);
    }
    end();

    begin("shash: SHASH_FOR_EACH_SAFE, both forms, deleting as it goes");
    {
        struct shash sh;
        struct shash_node *node, *next;
        char name[8];
        int seen = 0, kept = 0;

        shash_init(&sh);
        for (int i = 0; i < 40; i++) {
            snprintf(name, sizeof name, "k%02d", (i * 7) % 40);
            shash_add(&sh, name, NULL);
        }
        SHASH_FOR_EACH_SAFE (node, &sh) {
            seen++;
            if ((node->name[2] - '0') % 2) {
                shash_delete(&sh, node);
            }
        }
        CHECK(seen == 40 && shash_count(&sh) == 20);
        seen = 0;
        SHASH_FOR_EACH_SAFE (node, next, &sh) {
            seen++;
            CHECK(!next || next != node);
            if (node->name[1] == '1') {
                shash_delete(&sh, node);
            } else {
                kept++;
            }
        }
        CHECK(seen == 20 && shash_count(&sh) == (size_t) kept);
        SHASH_FOR_EACH (node, &sh) {
            CHECK(node->name[1] != '1' && !((node->name[2] - '0') % 2));
        }
        shash_destroy(&sh);
    }
    end();
}

static void
test_objects(void)
{
    begin("object put/get/delete");
    {
        struct json *o = json_object_create();
        char *s;

        json_object_put(o, "b", json_integer_create(2));
        json_object_put_string(o, "a", "x");
        json_object_put_nocopy(o, strdup("c"), json_null_create());
        json_object_put_format(o, "d", "%d-%s", 5, "y");
        CHECK(shash_count(json_object(o)) == 4);
        CHECK(json_integer(json_object_get(o, "b")) == 2);
        CHECK(!strcmp(json_string(json_object_get(o, "d")), "5-y"));
        json_object_put(o, "b", json_integer_create(3));    /* replace */
        json_object_put_nocopy(o, strdup("a"), json_boolean_create(false));
        CHECK(shash_count(json_object(o)) == 4);
        s = ser(o);
        CHECK(!strcmp(s, "{\"a\":false,\"b\":3,\"c\":null,\"d\":\"5-y\"}"));
        free(s);
        CHECK(json_object_delete(o, "c"));
        CHECK(!json_object_delete(o, "c"));
        CHECK(!json_object_get(o, "c"));
        CHECK(json_integer(json_object_get(o, "b")) == 3);
        s = json_to_string(o, 0);
        CHECK(!strcmp(s, "{\"b\":3,\"a\":false,\"d\":\"5-y\"}"));
        free(s);
        json_destroy(o);
    }
    end();

    begin("large object: index, replace, delete, order");
    {
        struct json *o = json_object_create();
        struct json *p;
        char name[32];
        int i;
        bool ok = true;

        for (i = 999; i >= 0; i--) {
            snprintf(name, sizeof name, "k%04d", i);
            json_object_put(o, name, json_integer_create(i));
        }
        for (i = 0; i < 1000; i += 7) {
            snprintf(name, sizeof name, "k%04d", i);
            json_object_put(o, name, json_integer_create(-i));
        }
        for (i = 0; i < 1000; i += 3) {
            snprintf(name, sizeof name, "k%04d", i);
            ok &= json_object_delete(o, name);
        }
        CHECK(ok);
        for (i = 0; i < 1000; i++) {
            struct json *v;
            snprintf(name, sizeof name, "k%04d", i);
            v = json_object_get(o, name);
            if (i % 3 == 0) {
                ok &= !v;
            } else {
                ok &= v && json_integer(v) == (i % 7 ? i : -i);
            }
        }
        CHECK(ok);
        {
            char *s = ser(o);
            p = json_from_string(s);
            CHECK(json_equal(o, p) && json_hash(o, 0) == json_hash(p, 0));
            CHECK(json_object(p)->sorted && !json_object(o)->sorted);
            free(s);
        }
        /* Lookups in the parsed (sorted, binary-searched) copy. */
        for (i = 0; i < 1000; i++) {
            struct json *v;
            snprintf(name, sizeof name, "k%04d", i);
            v = json_object_get(p, name);
            ok &= (i % 3 == 0) ? !v : v && json_integer(v) == (i % 7 ? i : -i);
        }
        CHECK(ok);
        CHECK(!json_object_get(p, "k") && !json_object_get(p, "k99999"));
        /* Appending out of order to the sorted copy, then deleting. */
        json_object_put(p, "a-first", json_integer_create(1));
        CHECK(!json_object(p)->sorted);
        CHECK(json_integer(json_object_get(p, "a-first")) == 1);
        CHECK(json_integer(json_object_get(p, "k0001")) == 1);
        CHECK(json_object_delete(p, "k0001") && !json_object_get(p, "k0001"));
        CHECK(json_integer(json_object_get(p, "k0002")) == 2);
        json_destroy(p);
        json_destroy(o);
    }
    end();

    begin("object duplicates and member order");
    CHECK(reser_is("{\"a\":1,\"a\":2}", "{\"a\":2}"));
    CHECK(reser_is("{\"b\":1,\"a\":2,\"b\":[3]}", "{\"a\":2,\"b\":[3]}"));
    CHECK(reser_is("{\"\\u0061\":1,\"a\":2}", "{\"a\":2}"));
    {
        struct json *a = json_from_string("{\"x\":1,\"y\":[2],\"z\":\"3\"}");
        struct json *b = json_from_string("{\"z\":\"3\",\"x\":1,\"y\":[2]}");
        struct json *c = json_from_string("{\"z\":\"3\",\"x\":1,\"y\":[3]}");
        CHECK(json_equal(a, b) && json_hash(a, 9) == json_hash(b, 9));
        CHECK(!json_equal(a, c) && !json_equal(c, b));
        json_destroy(a);
        json_destroy(b);
        json_destroy(c);
    }
    end();
}

static void
test_serialized(void)
{
    begin("serialized object");
    {
        struct json *inner = json_from_string("{\"b\":[1,2],\"a\":\"x\"}");
        struct json *so = json_serialized_object_create(inner);
        struct json *arr = json_array_create_2(json_clone(so),
                                               json_integer_create(1));
        struct json *dc = json_deep_clone(arr);
        struct json *back = json_from_serialized_object(so);
        char *s = ser(arr);
        char *t = json_to_string(arr, JSSF_PRETTY);

        CHECK(!strcmp(json_serialized_object(so),
                      "{\"a\":\"x\",\"b\":[1,2]}"));
        CHECK(!strcmp(s, "[{\"a\":\"x\",\"b\":[1,2]},1]"));
        CHECK(!strcmp(t, "[\n  {\"a\":\"x\",\"b\":[1,2]},\n  1]"));
        CHECK(json_equal(arr, dc) && json_hash(arr, 0) == json_hash(dc, 0));
        CHECK(json_equal(back, inner));
        free(s);
        free(t);
        json_destroy(back);
        json_destroy(dc);
        json_destroy(arr);
        json_destroy(so);
        json_destroy(inner);
    }
    end();
}

static void
test_numbers(void)
{
    begin("numbers");
    CHECK(reser_is("[0,-0,1,-1,10,1e2,1E2,1.5,-1.5,100e-2,0.0,-0.0,1e-400]",
                   "[0,0,1,-1,10,100,100,1.5,-1.5,1,0,0,0]"));
    CHECK(reser_is("[9223372036854775807,-9223372036854775808]",
                   "[9223372036854775807,-9223372036854775808]"));
    CHECK(reser_is("[9223372036854775808,-9223372036854775809]",
                   "[9.22337203685478e+18,-9.22337203685478e+18]"));
    CHECK(reser_is("[123456789012345678901234567890]",
                   "[1.23456789012346e+29]"));
    CHECK(reser_is("[0.1,1e15,1.5e300,3.14159265358979323846]",
                   "[0.1,1000000000000000,1.5e+300,3.14159265358979]"));
    CHECK(reser_is("[1e400]", "error: line 0, column 6, byte 6: "
                   "number outside valid range"));
    CHECK(reser_is("[01]", "error: line 0, column 3, byte 3: "
                   "leading zeros not allowed"));
    CHECK(reser_is("[1.]", "error: line 0, column 3, byte 3: "
                   "decimal point must be followed by digit"));
    CHECK(reser_is("[1e]", "error: line 0, column 3, byte 3: "
                   "exponent must contain at least one digit"));
    CHECK(reser_is("[-]", "error: line 0, column 2, byte 2: "
                   "'-' must be followed by digit"));
    CHECK(reser_is("[1-2]", "error: line 0, column 4, byte 4: "
                   "syntax error in number"));
    CHECK(reser_is("[1e9999999999]", "error: line 0, column 13, byte 13: "
                   "exponent outside valid range"));
    {
        struct json *r = json_real_create(2.5);
        struct json *i = json_integer_create(LLONG_MIN);
        CHECK(json_real(r) == 2.5 && json_integer(i) == LLONG_MIN);
        CHECK(json_real(i) == (double) LLONG_MIN);
        json_destroy(r);
        json_destroy(i);
    }
    end();
}

static void
test_errors(void)
{
    begin("syntax errors and positions");
    CHECK(reser_is("", "error: line 0, column 0, byte 0: empty input stream"));
    CHECK(reser_is("1", "error: line 0, column 1, byte 1: "
                   "syntax error at beginning of input"));
    CHECK(reser_is("[1,]", "error: line 0, column 3, byte 3: "
                   "syntax error expecting value"));
    CHECK(reser_is("{\"a\" 1}", "error: line 0, column 6, byte 6: "
                   "syntax error parsing object expecting ':'"));
    CHECK(reser_is("{1:2}", "error: line 0, column 2, byte 2: "
                   "syntax error parsing object expecting string"));
    CHECK(reser_is("{\"a\":1 \"b\":2}", "error: line 0, column 9, byte 9: "
                   "syntax error expecting '}' or ','"));
    CHECK(reser_is("[1]\n [2]", "error: line 1, column 1, byte 5: "
                   "trailing garbage at end of input"));
    CHECK(reser_is("[tru]", "error: line 0, column 4, byte 4: "
                   "invalid keyword 'tru'"));
    CHECK(reser_is("[True]", "error: line 0, column 1, byte 1: "
                   "invalid character 'T'"));
    CHECK(reser_is("[\x01]", "error: line 0, column 1, byte 1: "
                   "invalid character U+0001"));
    CHECK(reser_is("\n\n  [1", "error: line 2, column 5, byte 7: "
                   "unexpected end of input"));
    CHECK(reser_is("[\"abc", "error: line 0, column 5, byte 5: "
                   "unexpected end of input in quoted string"));
    CHECK(reser_is("[\"a\\\nb\"]", "error: line 1, column 1, byte 6: "
                   "bad escape \\\n"));
    end();

    begin("depth limit");
    {
        char *open = repeat('[', 1001), *close = repeat(']', 1001);
        char *text = malloc(2003);
        struct json *j;

        if (!text || !open || !close) {
            abort();
        }

        sprintf(text, "%s%s", open + 1, close + 1);     /* 1000 deep */
        j = json_from_string(text);
        CHECK(j->type == JSON_ARRAY);
        json_destroy(j);
        sprintf(text, "%s%s", open, close);             /* 1001 deep */
        j = json_from_string(text);
        CHECK(j->type == JSON_STRING
              && !strcmp(json_string(j), "line 0, column 1000, byte 1000: "
                         "input exceeds maximum nesting depth 1000"));
        json_destroy(j);
        free(open);
        free(close);
        free(text);
    }
    end();
}

/* Feeds the 'len' bytes at 'text' to a parser in pieces of 'chunk' bytes. */
static char *
parse_chunked_len(const char *text, size_t len, size_t chunk)
{
    struct json_parser *p = json_parser_create(JSPF_TRAILER);
    struct json *j;
    size_t i;
    char *s;

    for (i = 0; i < len; i += chunk) {
        size_t n = len - i < chunk ? len - i : chunk;
        if (json_parser_feed(p, text + i, n) != n) {
            break;
        }
    }
    j = json_parser_finish(p);
    s = j->type == JSON_STRING ? strdup(json_string(j)) : ser(j);
    json_destroy(j);
    return s;
}

static char *
parse_chunked(const char *text, size_t chunk)
{
    return parse_chunked_len(text, strlen(text), chunk);
}

static void
test_incremental(void)
{
    static const char *texts[] = {
        "{\"name\":\"a long string value, longer than the inline limit\","
        "\"n\":[1,-2,3.25,4e10,true,false,null],\"e\":\"\\u00e9\\ud83d"
        "\\ude00\\n\",\"o\":{\"k\":[[\"uuid\",\"abc\"]]}}",
        "[\"unterminated",
        "[1,2\n,\"x\\u12\"]",
        "[12345678901234567890123, -0.0e0, truex]",
        "{\"a\":1}  x",
    };

    begin("incremental parser: any chunking gives the same result");
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        char *whole = parse_chunked(texts[t], SIZE_MAX / 2);
        for (size_t chunk = 1; chunk <= 9; chunk++) {
            char *s = parse_chunked(texts[t], chunk);
            if (!CHECK(!strcmp(s, whole))) {
                fprintf(stderr, "chunk %zu: %s vs %s\n", chunk, s, whole);
            }
            free(s);
        }
        free(whole);
    }
    end();

    /* OVS's lexer lets a NUL byte continue a number token and then reads
     * the token as a C string, so "1<NUL>23" is the number 1.  lib-json
     * reproduces this, whatever the chunking. */
    begin("a NUL byte inside a number ends it, as in OVS");
    {
        static const char text[] = "[1\00023, 4.5\0e9]";
        for (size_t chunk = 1; chunk <= sizeof text; chunk++) {
            char *s = parse_chunked_len(text, sizeof text - 1, chunk);
            if (!CHECK(!strcmp(s, "[1,4.5]"))) {
                fprintf(stderr, "chunk %zu: %s\n", chunk, s);
            }
            free(s);
        }
    }
    end();

    begin("incremental parser without JSPF_TRAILER stops after a value");
    {
        struct json_parser *p = json_parser_create(0);
        const char *in = "[1,2] [3]";
        size_t n = json_parser_feed(p, in, strlen(in));
        struct json *j;
        char *s;

        CHECK(n == 5 && json_parser_is_done(p));
        j = json_parser_finish(p);
        s = ser(j);
        CHECK(!strcmp(s, "[1,2]"));
        free(s);
        json_destroy(j);
        p = json_parser_create(0);
        json_parser_feed(p, "[1,", 3);
        json_parser_abort(p);
    }
    end();

    begin("pretty printing");
    {
        struct json *j = json_from_string("{\"b\":[1,{}],\"a\":{\"c\":[]}}");
        char *s = json_to_string(j, JSSF_SORT | JSSF_PRETTY);
        CHECK(!strcmp(s, "{\n  \"a\": {\n    \"c\": []},\n  \"b\": [\n    1,"
                      "\n    {\n      }]}"));
        free(s);
        json_destroy(j);
    }
    end();
}

/* Checks the conformance cases in directory 'dir' in this process (quick
 * under sanitizers): y_ accepted, n_ rejected, i_ either, each value also
 * surviving serialize, reparse, deep clone and equality. */
static void
test_conformance_dir(const char *dir)
{
    struct dirent *de;
    DIR *d = opendir(dir);
    int n = 0;

    begin("conformance cases in-process");
    if (!CHECK(d != NULL)) {
        end();
        return;
    }
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        char path[4096];
        struct json *j;
        bool accepted;

        if (strlen(name) < 6 || strcmp(name + strlen(name) - 5, ".json")) {
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, name);
        j = json_from_file(path);
        accepted = j->type != JSON_STRING;
        if ((name[0] == 'y' && !accepted) || (name[0] == 'n' && accepted)) {
            check__(false, name, __LINE__);
        }
        if (accepted) {
            char *text = ser(j);
            struct json *k = json_from_string(text);
            struct json *c = json_deep_clone(j);

            CHECK(k->type == j->type && json_equal(c, j));
            CHECK(json_hash(c, 5) == json_hash(j, 5));
            json_destroy(k);
            json_destroy(c);
            free(text);
        }
        json_destroy(j);
        n++;
    }
    closedir(d);
    CHECK(n > 40);
    end();
}

int
main(int argc, char *argv[])
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1) {
        test_conformance_dir(argv[1]);
    }
    test_layout();
    test_string_lengths();
    test_utf8_boundary();
    test_escapes();
    test_arrays();
    test_forms();
    test_objects();
    test_api_36();
    test_serialized();
    test_numbers();
    test_errors();
    test_incremental();
    return cases_summary();
}
