/* libFuzzer target for lib-json: parse, serialize, reparse, compare.
 *
 * For every input:
 *   - parsing it whole and parsing it in two pieces give the same result
 *     (the same serialization, or the same error message);
 *   - if it parses: its sorted serialization S1 parses again; the value's
 *     deep clone is equal and hashes the same; S2 = serialize(parse(S1))
 *     is a fixed point (parse and serialize it again: same text, equal
 *     values, same hash); the pretty serialization parses to the same
 *     value as S1 does;
 *   - streaming (json_parser_set_member_cb(), at a depth of 1 to 3 that the
 *     input's last byte picks, fed in two pieces): a callback that declines
 *     every member gives the same result as the normal parse; one that
 *     takes and frees every member gives the same error, or a tree with no
 *     member left at that depth;
 *   - members kept as text (json_parser_set_text_member(), for the name of
 *     the first member of the outermost object, fed in two pieces): the
 *     same error, or the same members, where that one, if an object or an
 *     array, is a serialized object of bytes of the input that parse to
 *     the normal value. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* memmem() */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/json.h"
#include "ovsjson/shash.h"

#define REQUIRE(COND)                                                   \
    do {                                                                \
        if (!(COND)) {                                                  \
            fprintf(stderr, "fuzz-json: %s:%d: %s\n", __FILE__,         \
                    __LINE__, #COND);                                   \
            abort();                                                    \
        }                                                               \
    } while (0)

static struct json *
parse_split(const char *data, size_t size, size_t split)
{
    struct json_parser *p = json_parser_create(JSPF_TRAILER);
    size_t n = json_parser_feed(p, data, split);

    if (n == split) {
        json_parser_feed(p, data + split, size - split);
    }
    return json_parser_finish(p);
}

/* Member callbacks: 'aux' says whether to take the members. */
static bool
member_cb(void *aux, const char *names[], size_t depth, struct json *value)
{
    bool take = *(bool *) aux;

    REQUIRE(depth >= 1 && names[depth - 1]);
    if (take) {
        json_destroy(value);
    }
    return take;
}

static struct json *
parse_streaming(const char *data, size_t size, size_t split, size_t depth,
                bool take)
{
    struct json_parser *p = json_parser_create(JSPF_TRAILER);
    size_t n;

    json_parser_set_member_cb(p, depth, member_cb, &take);
    n = json_parser_feed(p, data, split);
    if (n == split) {
        json_parser_feed(p, data + split, size - split);
    }
    return json_parser_finish(p);
}

/* Checks a parse of 'data' with the first member of the outermost object of
 * 'full', its normal parse, kept as text. */
static void
check_text_member(const char *data, size_t size, size_t split,
                  const struct json *full)
{
    if (full->type != JSON_OBJECT || !shash_count(json_object(full))) {
        return;
    }

    struct shash_node *node = NULL;
    SHASH_FOR_EACH (node, json_object(full)) {
        break;
    }
    const char *name = node->name;
    struct json_parser *p = json_parser_create(JSPF_TRAILER);
    json_parser_set_text_member(p, name);
    if (json_parser_feed(p, data, split) == split) {
        json_parser_feed(p, data + split, size - split);
    }
    struct json *got = json_parser_finish(p);

    REQUIRE(got->type == JSON_OBJECT);
    REQUIRE(shash_count(json_object(got)) == shash_count(json_object(full)));
    SHASH_FOR_EACH (node, json_object(full)) {
        const struct json *a = node->data;
        const struct json *b = shash_find_data(json_object(got), node->name);

        REQUIRE(b);
        if (strcmp(node->name, name)
            || (a->type != JSON_OBJECT && a->type != JSON_ARRAY)) {
            REQUIRE(json_equal(a, b));
        } else {
            const char *t = json_serialized_object(b);
            struct json *reparsed = json_from_string(t);

            /* The input's own bytes, but for those of a number from a
             * null byte on, which do not count (in the value either). */
            REQUIRE(memchr(data, '\0', size) || memmem(data, size, t,
                                                        strlen(t)));
            REQUIRE(json_equal(a, reparsed));
            json_destroy(reparsed);
        }
    }
    json_destroy(got);
}

/* The number of members 'depth' levels deep in 'j', through objects. */
static size_t
count_members(const struct json *j, size_t depth)
{
    struct shash_node *node;
    size_t n = 0;

    if (j->type != JSON_OBJECT) {
        return 0;
    }
    SHASH_FOR_EACH (node, json_object(j)) {
        n += depth == 1 ? 1 : count_members(node->data, depth - 1);
    }
    return n;
}

static char *
describe(const struct json *j)
{
    return j->type == JSON_STRING ? strdup(json_string(j))
                                  : json_to_string(j, JSSF_SORT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *) data;
    struct json *j1 = json_from_buffer(text, size);
    struct json *js = parse_split(text, size, size ? data[0] % size : 0);
    char *d1 = describe(j1), *ds = describe(js);

    REQUIRE(!strcmp(d1, ds));
    free(ds);
    json_destroy(js);

    size_t split = size ? data[0] % size : 0;
    size_t depth = 1 + (size ? data[size - 1] % 3 : 0);
    js = parse_streaming(text, size, split, depth, false);
    ds = describe(js);
    REQUIRE(!strcmp(d1, ds));
    free(ds);
    json_destroy(js);
    js = parse_streaming(text, size, split, depth, true);
    if (j1->type == JSON_STRING) {
        REQUIRE(js->type == JSON_STRING
                && !strcmp(json_string(js), json_string(j1)));
    } else {
        REQUIRE(js->type == j1->type && !count_members(js, depth));
    }
    json_destroy(js);
    check_text_member(text, size, split, j1);

    if (j1->type == JSON_STRING) {
        REQUIRE(!strncmp(d1, "line ", 5));
    } else {
        struct json *clone = json_deep_clone(j1);
        struct json *j2 = json_from_string(d1), *j3, *jp;
        char *s2, *s3, *pretty;

        REQUIRE(json_equal(j1, clone) && json_equal(clone, j1));
        REQUIRE(json_hash(j1, 42) == json_hash(clone, 42));
        json_destroy(clone);

        REQUIRE(j2->type == JSON_OBJECT || j2->type == JSON_ARRAY);
        s2 = json_to_string(j2, JSSF_SORT);
        j3 = json_from_string(s2);
        s3 = json_to_string(j3, JSSF_SORT);
        REQUIRE(!strcmp(s2, s3));
        REQUIRE(json_equal(j2, j3));
        REQUIRE(json_hash(j2, 0) == json_hash(j3, 0));

        pretty = json_to_string(j1, JSSF_SORT | JSSF_PRETTY);
        jp = json_from_string(pretty);
        REQUIRE(json_equal(jp, j2));

        free(pretty);
        free(s2);
        free(s3);
        json_destroy(jp);
        json_destroy(j2);
        json_destroy(j3);
    }
    free(d1);
    json_destroy(j1);
    return 0;
}
