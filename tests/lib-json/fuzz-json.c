/* libFuzzer target for lib-json: parse, serialize, reparse, compare.
 *
 * For every input:
 *   - parsing it whole and parsing it in two pieces give the same result
 *     (the same serialization, or the same error message);
 *   - if it parses: its sorted serialization S1 parses again; the value's
 *     deep clone is equal and hashes the same; S2 = serialize(parse(S1))
 *     is a fixed point (parse and serialize it again: same text, equal
 *     values, same hash); the pretty serialization parses to the same
 *     value as S1 does. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/json.h"

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
