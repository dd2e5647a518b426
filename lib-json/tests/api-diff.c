/* Differential test of the API: one case per row of the parity table in
 * lib-json/README.md, each printing what it observes.  Built twice, against
 * lib-json and (with -DUSE_OVS) against the libopenvswitch of an OVS tree
 * with 3.6's json.h (4.0.0, or a 3.5.0 patched to 3.6's API); the two
 * outputs must be identical.  lib-json/tests/api-diff.expected holds OVS
 * 4.0.0's output, so that the lib-json build can be checked without an OVS
 * build.
 *
 * Only what both define is printed: never an unsorted serialization of an
 * object with several members (OVS's order is its hash order), never the
 * capacity of an array that grew by json_array_add().
 *
 * The streaming rows (json_parser_set_member_cb(), which the 4.0.0 series
 * of ovs-json-perf adds to OVS) are left out with -DAPI_DIFF_NO_STREAMING
 * for a tree without that function; api-diff.expected has them, from OVS
 * 4.0.0 with the series. */

#ifdef USE_OVS
#include <config.h>
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "openvswitch/uuid.h"
#else
#include "ovsjson/dynamic-string.h"
#include "ovsjson/json.h"
#include "ovsjson/shash.h"
#include "ovsjson/uuid.h"
#endif
#include "feed.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *
storage_name(const struct json *j)
{
    static const char *const names[] = {
        "STRING_DYNAMIC", "STRING_INLINE", "ARRAY_DYNAMIC",
        "ARRAY_INLINE_1", "ARRAY_INLINE_2", "ARRAY_INLINE_3",
    };
    unsigned int st = j->storage_type;
    return st < 6 ? names[st] : "?";
}

/* Prints ROW: the sorted serialization of 'j' (or "(null)"). */
static void
show(const char *row, const struct json *j)
{
    char *s = j ? json_to_string(j, JSSF_SORT) : NULL;
    printf("%s: %s\n", row, s ? s : "(null)");
    free(s);
}

static void
rows_scalars(void)
{
    for (int t = JSON_NULL; t <= JSON_N_TYPES; t++) {
        printf("json_type_to_string(%d): %s\n", t,
               json_type_to_string((enum json_type) t));
    }
    printf("json_type_to_string(SERIALIZED): %s\n",
           json_type_to_string(JSON_SERIALIZED_OBJECT));

    struct json *a[] = {
        json_null_create(), json_boolean_create(true),
        json_boolean_create(false), json_integer_create(-42),
        json_integer_create(9223372036854775807LL), json_real_create(0.1),
        json_real_create(-1e300),
    };
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        struct json *arr = json_array_create_1(json_clone(a[i]));
        printf("scalar %zu: type %s", i, json_type_to_string(a[i]->type));
        if (a[i]->type == JSON_TRUE || a[i]->type == JSON_FALSE) {
            printf(" json_boolean %d", json_boolean(a[i]));
        }
        if (a[i]->type == JSON_INTEGER) {
            printf(" json_integer %lld json_real %.17g",
                   (long long int) json_integer(a[i]), json_real(a[i]));
        }
        if (a[i]->type == JSON_REAL) {
            printf(" json_real %.17g", json_real(a[i]));
        }
        show("", arr);
        json_destroy(arr);
        json_destroy(a[i]);
    }
}

static void
rows_strings(void)
{
    static const char *texts[] = {
        "", "x", "exactly 23 bytes long..", "exactly 24 bytes long...",
        "caf\xc3\xa9 \x01 \"q\" \\",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct json *s = json_string_create(texts[i]);
        char *own = strdup(texts[i]);
        struct json *n = json_string_create_nocopy(own);
        struct json *c = json_deep_clone(n);
        struct ds ds;

        printf("json_string_create(%zu bytes): %s, json_string equal %d\n",
               strlen(texts[i]), storage_name(s),
               !strcmp(json_string(s), texts[i]));
        printf("json_string_create_nocopy(%zu bytes): %s, keeps the "
               "pointer %d\n", strlen(texts[i]), storage_name(n),
               json_string(n) == own);
        printf("json_deep_clone of that: %s, equal %d, same hash %d\n",
               storage_name(c), json_equal(c, n),
               json_hash(c, 5) == json_hash(n, 5));
        ds_init(&ds);
        ds_put_cstr(&ds, ">");
        json_string_escape(texts[i], &ds);
        printf("json_string_escape: %s\n", ds_cstr(&ds));
        ds_destroy(&ds);
        show("json_to_string", s);
        json_destroy(s);
        json_destroy(n);
        json_destroy(c);
    }

    struct uuid u = { { 0xdeadbeef, 0x0123abcd, 0x00000001, 0xffffffff } };
    struct json *su = json_string_create_uuid(&u);
    printf("json_string_create_uuid: %s %s\n", json_string(su),
           storage_name(su));
    json_destroy(su);

    static const struct { const char *in; size_t len; } esc[] = {
        { "plain", 5 }, { "a\\nb\\t\\\"\\\\\\/\\b\\f\\r", 19 },
        { "\\u00e9\\ud83d\\ude00", 18 }, { "\\u0000", 6 },
        { "\\ud83d", 6 }, { "\\ud83dx", 7 }, { "\\ud83d\\u0041", 12 },
        { "\\u12", 4 }, { "\\u12g4", 6 }, { "\\x", 2 }, { "a\\", 2 },
        { "a\"b", 3 }, { "a\0b", 3 }, { "a\0\\n", 4 }, { "a\0\\q", 4 },
        { "a\0\"", 3 }, { "\\\0", 2 },
    };
    for (size_t i = 0; i < sizeof esc / sizeof esc[0]; i++) {
        char *out;
        bool ok = json_string_unescape(esc[i].in, esc[i].len, &out);
        struct ds hex;

        /* The bytes up to the terminator; if the input has a NUL, past
         * the first NUL up to the next one. */
        size_t max_nuls = memchr(esc[i].in, '\0', esc[i].len) ? 2 : 1;
        ds_init(&hex);
        for (size_t k = 0, nuls = 0; ok && nuls < max_nuls; k++) {
            ds_put_format(&hex, "%02x", (unsigned char) out[k]);
            nuls += !out[k];
        }
        printf("json_string_unescape #%zu: %s %s\n", i,
               ok ? "ok" : "error", ok ? ds_cstr(&hex) : out);
        ds_destroy(&hex);
        free(out);
    }
}

static void
rows_arrays(void)
{
    struct json *a = json_array_create_empty();
    printf("json_array_create_empty: %s size %zu at(0) %s\n",
           storage_name(a), json_array_size(a),
           json_array_at(a, 0) ? "element" : "NULL");
    for (int i = 0; i < 6; i++) {
        json_array_add(a, json_integer_create(i));
        printf("json_array_add #%d: %s size %zu at(%d) %lld at(%d) %s\n",
               i, storage_name(a), json_array_size(a), i,
               (long long int) json_integer(json_array_at(a, i)), i + 1,
               json_array_at(a, i + 1) ? "element" : "NULL");
    }
    json_array_trim(a);
    printf("json_array_trim: %s size %zu allocated %zu\n", storage_name(a),
           json_array_size(a), a->array.allocated);

    /* json_array_set() leaves the old element to the caller. */
    struct json *old = (struct json *) json_array_at(a, 2);
    json_array_set(a, 2, json_string_create("two"));
    show("json_array_set then the old element", old);
    json_destroy(old);
    show("json_array_set array", a);

    for (int i = 0; i < 7; i++) {
        struct json *e = json_array_pop(a);
        printf("json_array_pop #%d: %s, then %s size %zu\n", i,
               e ? "element" : "NULL", storage_name(a), json_array_size(a));
        json_destroy(e);
    }
    json_array_add(a, json_null_create());
    printf("json_array_add after popping all: %s size %zu\n",
           storage_name(a), json_array_size(a));
    json_destroy(a);

    struct json *i1 = json_array_create_1(json_string_create("a"));
    struct json *i2 = json_array_create_2(json_string_create("a"),
                                          json_string_create("b"));
    struct json *i3 = json_array_create_3(json_string_create("a"),
                                          json_string_create("b"),
                                          json_integer_create(3));
    printf("json_array_create_1/2/3: %s %s %s\n", storage_name(i1),
           storage_name(i2), storage_name(i3));
#ifndef API_DIFF_NO_CONTAINS_STRING     /* OVS 3.1 has no such function. */
    printf("json_array_contains_string: %d %d %d\n",
           json_array_contains_string(i3, "b"),
           json_array_contains_string(i3, "c"),
           json_array_contains_string(i1, "a"));
#endif
    json_array_add(i3, json_integer_create(4));
    printf("json_array_add to INLINE_3: %s size %zu\n", storage_name(i3),
           json_array_size(i3));
    json_array_trim(i1);
    printf("json_array_trim of INLINE_1: %s\n", storage_name(i1));
    json_destroy(i1);
    json_destroy(i2);
    json_destroy(i3);

    struct json **v = malloc(2 * sizeof *v);
    v[0] = json_boolean_create(true);
    v[1] = json_null_create();
    struct json *c = json_array_create(v, 2);
    printf("json_array_create(v, 2): %s size %zu allocated %zu owns v %d\n",
           storage_name(c), json_array_size(c), c->array.allocated,
           c->array.elements == v);
    json_destroy(c);

    static const char *docs[] = { "[]", "[1]", "[1,2]", "[1,2,3]",
                                  "[1,2,3,4]", "[[[]],[1,[2,[3,[4]]]]]" };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        struct json *p = json_from_string(docs[i]);
        struct json *d = json_deep_clone(p);
        printf("parsed %s: %s, deep clone %s\n", docs[i], storage_name(p),
               storage_name(d));
        json_destroy(p);
        json_destroy(d);
    }
}

static void
rows_objects(void)
{
    struct json *o = json_object_create();
    struct json *arr = json_array_create_empty();
    struct uuid u = { { 1, 2, 3, 4 } };

#ifndef API_DIFF_NO_OBJECT_IS_EMPTY     /* Not in the 3.5 and 3.1 backports. */
    printf("json_object_is_empty: new %d, array %d, NULL %d\n",
           json_object_is_empty(o), json_object_is_empty(arr),
           json_object_is_empty(NULL));
#endif
    json_object_put(o, "b", json_integer_create(1));
    json_object_put(o, "b", json_integer_create(2));    /* Replaces. */
    json_object_put_nocopy(o, strdup("a"), json_string_create("x"));
    json_object_put_string(o, "c", "a string longer than twenty-three");
    json_object_put_format(o, "d", "%d-%s-%.2f", 7, "fmt", 0.5);
    json_object_put_uuid(o, "e", &u);
#ifndef API_DIFF_NO_OBJECT_IS_EMPTY
    printf("json_object_is_empty: filled %d, count %zu\n",
           json_object_is_empty(o), shash_count(json_object(o)));
#endif
    printf("shash_find_data(json_object(o), \"b\"): %lld\n",
           (long long int) json_integer(shash_find_data(json_object(o),
                                                        "b")));
    show("objects, sorted", o);

    char *pretty = json_to_string(o, JSSF_SORT | JSSF_PRETTY);
    printf("objects, sorted and pretty:\n%s\n", pretty);
    free(pretty);

    json_destroy(shash_find_and_delete(json_object(o), "c"));
    show("after shash_find_and_delete", o);

    struct json *so = json_serialized_object_create(o);
    struct json *wrap = json_array_create_2(json_clone(so),
                                            json_integer_create(0));
    printf("json_serialized_object: %s\n", json_serialized_object(so));
    show("serialized object inside an array", wrap);
    struct json *back = json_from_serialized_object(so);
    printf("json_from_serialized_object equal %d\n", json_equal(back, o));
    json_destroy(back);
    json_destroy(wrap);
    json_destroy(so);
    json_destroy(arr);
    json_destroy(o);

    struct json *e = json_object_create();
    show("empty object", e);
    pretty = json_to_string(e, JSSF_PRETTY);
    printf("empty object, pretty: [%s]\n", pretty);
    free(pretty);
    json_destroy(e);
}

static void
rows_copies(void)
{
    static const char *docs[] = {
        "[1,2.5,\"x\",true,false,null,{\"k\":[]}]",
        "{\"b\":{\"c\":[1,2,3,4,5]},\"a\":\"long string of many characters\"}",
        "[[],{},[[]],[{}]]", "[0.1,1e300,-0,123456789012]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        struct json *j = json_from_string(docs[i]);
        struct json *c = json_clone(j);
        struct json *d = json_deep_clone(j);

        printf("doc %zu: json_clone same %d count %zu, deep clone equal %d "
               "count %zu, json_hash %zx %zx\n", i, c == j, j->count,
               json_equal(j, d), d->count, json_hash(j, 0), json_hash(d, 7));
        json_destroy(c);
        printf("doc %zu: count after json_destroy of the clone %zu\n", i,
               j->count);
        json_destroy(d);
        json_destroy(j);
    }
    printf("json_nullable_clone(NULL): %p\n",
           (void *) json_nullable_clone(NULL));

    static const char *pairs[][2] = {
        { "[1]", "[1.0]" }, { "[1]", "[1]" }, { "{\"a\":1,\"b\":2}",
        "{\"b\":2,\"a\":1}" }, { "[\"a\"]", "[\"b\"]" }, { "[[]]", "[{}]" },
        { "[1,2,3]", "[1,2,3,4]" }, { "[0.5]", "[0.5]" },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        struct json *a = json_from_string(pairs[i][0]);
        struct json *b = json_from_string(pairs[i][1]);
        printf("json_equal(%s, %s): %d\n", pairs[i][0], pairs[i][1],
               json_equal(a, b));
        json_destroy(a);
        json_destroy(b);
    }
}

static void
rows_parser(void)
{
    static const char *text = "{\"a\": [1, 2, {\"b\": \"c\"}], \"d\": 1e2} x";
    for (size_t step = 1; step <= 7; step += 3) {
        struct json_parser *p = json_parser_create(0);
        size_t pos = feed_pieces(p, text, strlen(text), step);

        printf("json_parser_feed by %zu: stopped at %zu, is_done %d\n",
               step, pos, json_parser_is_done(p));
        struct json *done = json_parser_finish(p);
        show("json_parser_finish", done);
        json_destroy(done);
    }

    struct json_parser *p = json_parser_create(JSPF_TRAILER);
    json_parser_feed(p, "[1] x", 5);
    struct json *r = json_parser_finish(p);
    show("JSPF_TRAILER with garbage", r);
    json_destroy(r);

    p = json_parser_create(0);
    json_parser_feed(p, "[1, {", 5);
    json_parser_abort(p);
    json_parser_abort(NULL);
    printf("json_parser_abort: done\n");

    static const char *bad[] = {
        "", "[", "[1,]", "{\"a\"}", "{\"a\":1,}", "[tru]", "[\"\\u0000\"]",
        "[01]", "[1e999999999999]", "[1e400]", "\"top\"", "[\"a\nb\"]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct json *j = json_from_string(bad[i]);
        printf("json_from_string #%zu: %s %s\n", i,
               json_type_to_string(j->type),
               j->type == JSON_STRING ? json_string(j) : "");
        json_destroy(j);
    }

    r = json_from_file("/nonexistent/lib-json-api-diff.json");
    printf("json_from_file of a missing file: %s\n", json_string(r));
    json_destroy(r);

    FILE *f = tmpfile();
    fputs("{\"from\": \"stream\"}\n", f);
    rewind(f);
    r = json_from_stream(f);
    show("json_from_stream", r);
    json_destroy(r);
    fclose(f);

    struct ds ds;
    ds_init(&ds);
    ds_put_cstr(&ds, "prefix ");
    r = json_from_string("[1,[2,[3]],{\"k\":\"v\"}]");
    json_to_ds(r, JSSF_PRETTY, &ds);
    printf("json_to_ds appends:\n%s\n", ds_cstr(&ds));
    ds_destroy(&ds);
    json_destroy(r);
}

#ifndef API_DIFF_NO_STREAMING   /* OVS 4.0.0 with ovs-json-perf's series. */
/* json_parser_set_member_cb(): prints each member with its names and the
 * depth it was given, takes it unless its name starts with "keep". */
static bool
print_member(void *aux, const char *names[], size_t depth, struct json *value)
{
    const char *tag = aux;
    bool keep = !strncmp(names[depth - 1], "keep", 4);
    char *s;

    printf("%s: member (depth %zu)", tag, depth);
    for (size_t i = 0; i < depth; i++) {
        printf("%s%s", i ? "/" : " ", names[i]);
    }
    if (!value) {
        printf(" repeated\n");
        return false;
    }
    s = json_to_string(value, JSSF_SORT);
    printf("%s: %s\n", keep ? " declined" : "", s);
    free(s);
    if (!keep) {
        json_destroy(value);
    }
    return !keep;
}

/* Streams 'text' at 'depth', fed 'step' bytes at a time (0: all). */
static void
stream_row(const char *tag, const char *text, size_t depth, size_t step,
           int flags)
{
    struct json_parser *p = json_parser_create(flags);
    size_t n = strlen(text);

    json_parser_set_member_cb(p, depth, print_member, (void *) tag);
    size_t pos = feed_pieces(p, text, n, step);
    printf("%s: fed %zu of %zu, is_done %d\n", tag, pos, n,
           json_parser_is_done(p));
    struct json *r = json_parser_finish(p);
    show(tag, r);
    json_destroy(r);
}

static void
rows_streaming(void)
{
    static const char *doc =
        "{\"a\": {\"x\": {\"r\": [1, {\"s\": 2}]}, \"keep\": [1, 2], "
        "\"y\": null, \"n\": -12.5e1},\n \"b\": [{\"z\": {\"w\": 1}}], "
        "\"c\": 3, \"d\": {\"e\": {\"f\": {\"g\": 1}}}, \"h\": {}, "
        "\"keep2\": {\"k\": \"a string longer than 23 bytes\"}}";
    char tag[64];

    for (size_t depth = 1; depth <= 4; depth++) {
        snprintf(tag, sizeof tag, "member_cb depth %zu", depth);
        stream_row(tag, doc, depth, 0, JSPF_TRAILER);
        snprintf(tag, sizeof tag, "member_cb depth %zu by 3", depth);
        stream_row(tag, doc, depth, 3, 0);
    }
    stream_row("member_cb in arrays", "[{\"a\": {\"b\": 1}}, [{\"c\": 2}]]",
               1, 0, 0);
    stream_row("member_cb under an array", "{\"a\": [{\"b\": {\"c\": 1}}]}",
               2, 0, 0);
    stream_row("member_cb empty", "", 1, 0, 0);
    stream_row("member_cb spaces", "  \n ", 2, 0, 0);
    stream_row("member_cb truncated in a member",
               "{\"a\": {\"x\": {\"r\": 1}, \"y\": {\"s\": {\"t\": 2", 2, 0, 0);
    stream_row("member_cb number at the end",
               "{\"a\": {\"x\": 12", 2, 0, 0);
    stream_row("member_cb string at the end",
               "{\"a\": {\"x\": \"12", 2, 0, 0);
    stream_row("member_cb error in a member",
               "{\"a\": {\"x\": [1, 2], \"y\": [3 4]}}", 2, 0, 0);
    stream_row("member_cb error after members",
               "{\"a\": {\"x\": 1, \"y\": 2}} x", 2, 0, JSPF_TRAILER);
    stream_row("member_cb without trailer check",
               "{\"a\": {\"x\": 1}} {\"b\": {\"y\": 2}}", 2, 0, 0);
    stream_row("member_cb duplicate names",
               "{\"a\": {\"x\": 1, \"keep\": 2, \"x\": 3, \"keep\": 4}}",
               2, 0, 0);
    stream_row("member_cb deep", "{\"a\": {\"b\": {\"c\": {\"d\": "
               "{\"e\": [1]}}}}}", 5, 1, 0);

    /* Aborted in the middle of a member. */
    struct json_parser *p = json_parser_create(0);
    json_parser_set_member_cb(p, 2, print_member, (void *) "member_cb abort");
    json_parser_feed(p, "{\"a\": {\"x\": 1, \"y\": {\"z\": [1, {", 30);
    json_parser_abort(p);
    printf("member_cb abort: done\n");
}
#endif

static void
rows_shash(void)
{
    static struct shash sh = SHASH_INITIALIZER(&sh);
    struct shash_node *node, *next;
    char name[16];
    int data[40];
    size_t n;

    printf("SHASH_INITIALIZER: empty %d count %zu\n", shash_is_empty(&sh),
           shash_count(&sh));
    for (int i = 0; i < 40; i++) {
        data[i] = i;
        snprintf(name, sizeof name, "n%02d", (i * 13) % 40);
        shash_add(&sh, name, &data[i]);
    }
    printf("shash_add_once of a present name: %d, of a new one: %d\n",
           shash_add_once(&sh, "n05", NULL),
           shash_add_once(&sh, "new", &data[0]));
    shash_add_assert(&sh, "newer", &data[1]);
    printf("shash_find_and_delete_assert: %d\n",
           *(int *) shash_find_and_delete_assert(&sh, "newer"));
    printf("shash_find_and_delete of a missing name: %p\n",
           shash_find_and_delete(&sh, "missing"));
    n = 0;
    SHASH_FOR_EACH_SAFE (node, &sh) {
        n++;
        if (node->name[2] % 2) {
            shash_delete(&sh, node);
        }
    }
    printf("SHASH_FOR_EACH_SAFE (short) visited %zu, left %zu\n", n,
           shash_count(&sh));
    n = 0;
    size_t lasts = 0;
    SHASH_FOR_EACH_SAFE (node, next, &sh) {
        n++;
        lasts += !next;
        if (node->name[1] == '1') {
            shash_delete(&sh, node);
        }
    }
    printf("SHASH_FOR_EACH_SAFE (long) visited %zu, left %zu, %zu without "
           "NEXT\n", n, shash_count(&sh), lasts);
    const struct shash_node **sorted = shash_sort(&sh);
    printf("shash_sort:");
    for (size_t i = 0; i < shash_count(&sh); i++) {
        printf(" %s=%d", sorted[i]->name,
               sorted[i]->data ? *(int *) sorted[i]->data : -1);
    }
    printf("\n");
    free(sorted);
    n = 0;
    SHASH_FOR_EACH (node, &sh) {
        n += !!shash_find(&sh, node->name);
    }
    printf("SHASH_FOR_EACH finds all %zu\n", n);
    shash_destroy(&sh);
    printf("shash_destroy: empty %d\n", shash_is_empty(&sh));
}

static void
rows_more_shash(void)
{
    struct shash sh;
    int x = 1, y = 2;

    shash_init(&sh);
    printf("shash_replace of a new name: %p\n", shash_replace(&sh, "a", &x));
    printf("shash_replace of a present one: %d\n",
           *(int *) shash_replace(&sh, "a", &y));
    printf("shash_replace_nocopy: %d\n",
           *(int *) shash_replace_nocopy(&sh, strdup("a"), &x));
    printf("shash_replace_nocopy of a new name: %p\n",
           shash_replace_nocopy(&sh, strdup("b"), &y));
    struct shash_node *node = shash_add_nocopy(&sh, strdup("c"), &x);
    printf("shash_add_nocopy: %s=%d, shash_find %s, shash_find_data %d\n",
           node->name, *(int *) node->data, shash_find(&sh, "c")->name,
           *(int *) shash_find_data(&sh, "b"));
    printf("shash_find of a missing name: %p, data %p\n",
           (void *) shash_find(&sh, "z"), shash_find_data(&sh, "z"));
    shash_clear(&sh);
    printf("shash_clear: count %zu\n", shash_count(&sh));
    shash_add(&sh, "after clear", NULL);
    printf("shash_add after clear: count %zu\n", shash_count(&sh));
    shash_destroy(&sh);
}

static void
rows_ds(void)
{
    struct ds ds = DS_EMPTY_INITIALIZER;

    ds_put_cstr(&ds, "a");
    ds_put_char(&ds, 'b');
    ds_put_buffer(&ds, "cdef", 2);
    ds_put_char_multiple(&ds, '-', 3);
    ds_put_format(&ds, "%05d|%s|%x", 42, "s", 255u);
    memcpy(ds_put_uninit(&ds, 2), "!!", 2);
    ds_put_utf8(&ds, 0xe9);
    ds_put_utf8(&ds, 0x20ac);
    ds_put_utf8(&ds, 0x1f600);
    printf("ds: %s (length %zu)\n", ds_cstr(&ds), ds.length);
    ds_clear(&ds);
    printf("ds_clear: [%s] length %zu\n", ds_cstr(&ds), ds.length);
    ds_reserve(&ds, 1000);
    printf("ds_reserve: length %zu, room %d\n", ds.length,
           ds.allocated >= 1000);
    ds_put_cstr(&ds, "stolen");
    char *s = ds_steal_cstr(&ds);
    printf("ds_steal_cstr: %s, then length %zu\n", s, ds.length);
    free(s);
    ds_destroy(&ds);
    ds_init(&ds);
    printf("ds_init, ds_cstr: [%s]\n", ds_cstr(&ds));
    ds_destroy(&ds);
}

static void
rows_files(void)
{
    char name[] = "/tmp/lib-json-api-diff-XXXXXX";
    int fd = mkstemp(name);
    FILE *f = fdopen(fd, "w");

    fputs("[\"from a file\", {\"n\": 1}]  \n", f);
    fclose(f);
    struct json *j = json_from_file(name);
    show("json_from_file", j);
    json_destroy(j);
    f = fopen(name, "w");
    fputs("[1] [2]", f);
    fclose(f);
    j = json_from_file(name);
    show("json_from_file with a trailer", j);
    json_destroy(j);
    unlink(name);
}

int
main(void)
{
    rows_scalars();
    rows_strings();
    rows_arrays();
    rows_objects();
    rows_copies();
    rows_parser();
#ifndef API_DIFF_NO_STREAMING
    rows_streaming();
#endif
    rows_shash();
    rows_more_shash();
    rows_ds();
    rows_files();
    return 0;
}
