/* Uses OVS's json API the way code written for upstream OVS 3.6 and later
 * does, and checks what upstream guarantees.  Built against a patched 3.5.0
 * or 3.1.0 tree and against upstream 4.0.0 (tests/t-backport.sh), under
 * AddressSanitizer: the same program must build and pass on all of them.
 *
 * Each check prints one "ok" or "FAIL" line; the exit status is the number
 * of failures. */

#include <config.h>

#include <stdio.h>
#include <string.h>

#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "openvswitch/util.h"
#include "util.h"
#include "uuid.h"

static int failures;

static void
expect(bool ok, const char *what)
{
    printf("%s %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

/* A stand-in for the symbol lookup of ovsdb-idl's substitute_uuids(): a
 * ["named-uuid", NAME] pair becomes ["uuid", UUID]. */
static struct json *
replace_named_uuid(struct json *json)
{
    if (json->type == JSON_ARRAY
        && json_array_size(json) == 2
        && json_array_at(json, 0)->type == JSON_STRING
        && !strcmp(json_string(json_array_at(json, 0)), "named-uuid")) {
        struct uuid uuid = { .parts = { 1, 2, 3, 4 } };

        json_destroy(json);
        return json_array_create_2(json_string_create("uuid"),
                                   json_string_create_uuid(&uuid));
    }
    return json;
}

/* The shape of substitute_uuids() in lib/ovsdb-idl.c: every element goes
 * through a function that returns either the element itself or a
 * replacement, and json_array_set() stores the result. */
static struct json *
substitute(struct json *json)
{
    if (json->type == JSON_ARRAY) {
        json = replace_named_uuid(json);
        if (json->type == JSON_ARRAY) {
            for (size_t i = 0; i < json_array_size(json); i++) {
                json_array_set(json, i,
                               substitute(CONST_CAST(struct json *,
                                                     json_array_at(json, i))));
            }
        }
    } else if (json->type == JSON_OBJECT) {
        struct shash_node *node;

        SHASH_FOR_EACH (node, json_object(json)) {
            node->data = substitute(node->data);
        }
    }
    return json;
}

static void
test_substitute_uuids(void)
{
    struct json *json = json_from_string(
        "[\"insert\", {\"ref\": [\"named-uuid\", \"row1\"], "
        "\"set\": [\"set\", [[\"named-uuid\", \"row1\"], "
        "[\"uuid\", \"00000000-0000-0000-0000-000000000000\"], 1, 2]]}, "
        "[\"named-uuid\", \"row1\"], \"unchanged\"]");

    json = substitute(json);
    char *s = json_to_string(json, JSSF_SORT);
    expect(!strcmp(s, "[\"insert\",{\"ref\":[\"uuid\","
                   "\"00000001-0000-0002-0000-000300000004\"],"
                   "\"set\":[\"set\",[[\"uuid\","
                   "\"00000001-0000-0002-0000-000300000004\"],"
                   "[\"uuid\",\"00000000-0000-0000-0000-000000000000\"],"
                   "1,2]]},[\"uuid\","
                   "\"00000001-0000-0002-0000-000300000004\"],"
                   "\"unchanged\"]"),
           "substitute_uuids() idiom: every element kept or replaced");
    if (failures) {
        printf("got: %s\n", s);
    }
    free(s);
    json_destroy(json);
}

static void
test_array_set_ownership(void)
{
    for (size_t n = 1; n <= 5; n++) {
        struct json *array = json_array_create_empty();

        for (size_t i = 0; i < n; i++) {
            json_array_add(array, json_integer_create(i));
        }

        struct json *old = CONST_CAST(struct json *,
                                      json_array_at(array, n - 1));
        json_array_set(array, n - 1, json_string_create("new"));

        char what[80];
        snprintf(what, sizeof what,
                 "json_array_set() leaves the old element to the caller "
                 "(%"PRIuSIZE" elements)", n);
        expect(old->count == 1 && json_integer(old) == n - 1, what);
        json_destroy(old);

        snprintf(what, sizeof what,
                 "json_array_at() is NULL past the end (%"PRIuSIZE
                 " elements)", n);
        expect(json_array_at(array, n) == NULL
               && json_array_at(array, SIZE_MAX) == NULL, what);
        json_destroy(array);
    }

    struct json *empty = json_array_create_empty();
    expect(json_array_size(empty) == 0 && !json_array_at(empty, 0),
           "empty array: size 0, json_array_at(0) is NULL");
    expect(!json_array_pop(empty), "json_array_pop() of an empty array");
    json_destroy(empty);
}

static void
test_array_constructors(void)
{
    struct json *a1 = json_array_create_1(json_integer_create(1));
    struct json *a2 = json_array_create_2(json_integer_create(1),
                                          json_integer_create(2));
    struct json *a3 = json_array_create_3(json_integer_create(1),
                                          json_integer_create(2),
                                          json_integer_create(3));
    expect(a1->storage_type == JSON_ARRAY_INLINE_1
           && a2->storage_type == JSON_ARRAY_INLINE_2
           && a3->storage_type == JSON_ARRAY_INLINE_3,
           "json_array_create_1/2/3() store elements inline");
    expect(json_array_size(a3) == 3
           && json_integer(json_array_at(a3, 2)) == 3,
           "json_array_create_3(): elements in order");

    /* Growing past the inline capacity moves the elements out. */
    json_array_add(a3, json_integer_create(4));
    expect(a3->storage_type == JSON_ARRAY_DYNAMIC
           && a3->array.size == 4 && a3->array.allocated >= 4
           && json_integer(a3->array.elements[3]) == 4,
           "4th element: dynamic storage in 'array'");

    struct json *popped = json_array_pop(a3);
    expect(json_integer(popped) == 4 && json_array_size(a3) == 3,
           "json_array_pop() returns the last element");
    json_destroy(popped);
    json_array_trim(a3);
    expect(json_array_size(a3) == 3
           && json_integer(json_array_at(a3, 0)) == 1,
           "json_array_trim() keeps the elements");

    expect(a1->elements[0] == json_array_at(a1, 0),
           "inline elements are readable as 'elements[]'");

    json_destroy(a1);
    json_destroy(a2);
    json_destroy(a3);
}

static void
test_strings(void)
{
    char buf[JSON_STRING_INLINE_LEN + 2];

    memset(buf, 'x', sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    buf[JSON_STRING_INLINE_LEN] = '\0';
    struct json *inl = json_string_create(buf);
    buf[JSON_STRING_INLINE_LEN] = 'x';
    struct json *dyn = json_string_create(buf);
    expect(inl->storage_type == JSON_STRING_INLINE
           && !strcmp(inl->str, json_string(inl)),
           "JSON_STRING_INLINE_LEN bytes: inline, in 'str'");
    expect(dyn->storage_type == JSON_STRING_DYNAMIC
           && dyn->str_ptr == json_string(dyn),
           "one byte more: dynamic, in 'str_ptr'");

    /* json_string_create_nocopy() keeps the caller's buffer, however
     * short: the caller may keep using the pointer while the node lives. */
    char *mine = xstrdup("short");
    struct json *nc = json_string_create_nocopy(mine);
    expect(json_string(nc) == mine && !strcmp(mine, "short"),
           "json_string_create_nocopy() keeps the caller's buffer");

    /* Static strings, as python/ovs/db/data.py generates them for enums. */
    static struct json literal = {
        .type = JSON_STRING, .storage_type = JSON_STRING_DYNAMIC,
        .str_ptr = "literal", .count = 2,
    };
    struct json *copy = json_string_create("literal");
    expect(!strcmp(json_string(&literal), "literal")
           && json_equal(&literal, copy),
           "static JSON_STRING_DYNAMIC initializer");
    json_destroy(copy);

    struct uuid uuid = { .parts = { 0x550e8400, 0xe29b41d4,
                                    0xa7164466, 0x55440000 } };
    struct json *u = json_string_create_uuid(&uuid);
    expect(!strcmp(json_string(u), "550e8400-e29b-41d4-a716-446655440000"),
           "json_string_create_uuid()");

    struct json *obj = json_object_create();
    json_object_put_uuid(obj, "_uuid", &uuid);
    expect(json_equal(shash_find_data(json_object(obj), "_uuid"), u),
           "json_object_put_uuid()");

    json_destroy(obj);
    json_destroy(u);
    json_destroy(nc);
    json_destroy(dyn);
    json_destroy(inl);
}

int
main(int argc OVS_UNUSED, char *argv[])
{
    set_program_name(argv[0]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_substitute_uuids();
    test_array_set_ownership();
    test_array_constructors();
    test_strings();
    printf("%d failures\n", failures);
    return failures != 0;
}
