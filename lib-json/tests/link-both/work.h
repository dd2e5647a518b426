/* The body of libjson_side() and ovs_side(): included by main.c (with
 * lib-json's headers) and by ovs-side.c (with OVS's), under SIDE_FN. */

char *
SIDE_FN(const char *text)
{
    struct json *j = json_from_string(text);
    struct shash names;
    struct ds out;
    char name[32];

    if (j->type != JSON_OBJECT) {
        char *s = json_to_string(j, JSSF_SORT);
        json_destroy(j);
        return s;
    }

    /* Enough members to grow the map well past its first allocation. */
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "m%03d", (i * 37) % 200);
        json_object_put(j, name, json_integer_create(i));
    }
    for (int i = 0; i < 200; i += 3) {
        snprintf(name, sizeof name, "m%03d", i);
        json_destroy(shash_find_and_delete(json_object(j), name));
    }

    /* A map of our own, pointing into the value. */
    shash_init(&names);
    for (int i = 0; i < 200; i += 7) {
        snprintf(name, sizeof name, "m%03d", i);
        shash_add(&names, name, shash_find_data(json_object(j), name));
    }

    ds_init(&out);
    ds_put_format(&out, "%zu members, %zu named;", shash_count(json_object(j)),
                  shash_count(&names));
    for (int i = 0; i < 200; i += 7) {
        snprintf(name, sizeof name, "m%03d", i);
        const struct json *v = shash_find_data(&names, name);
        ds_put_format(&out, " %s=%lld", name,
                      v ? (long long int) json_integer(v) : -1LL);
    }
    shash_destroy(&names);

    char *s = json_to_string(j, JSSF_SORT);
    ds_put_format(&out, "; %s", s);
    free(s);
    json_destroy(j);
    return ds_steal_cstr(&out);
}
