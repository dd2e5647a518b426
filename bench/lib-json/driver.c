/* Benchmark driver for lib-json and OVS's lib/json.c.  The same source is
 * compiled against lib-json and against the libopenvswitch.a of a built
 * OVS tree; it uses only API that both have.
 *
 *   driver gen KIND SCALE FILE   write a generated document (KIND: ovsdb,
 *                                uuid-pairs, strings) of about SCALE MB
 *   driver hash FILE             print json_hash() of the document parsed
 *                                from FILE, with two bases (to compare the
 *                                hash values of the implementations)
 *   driver run FILE ITER         parse FILE and serialize it sorted, ITER
 *                                times; print "ns=<per iteration> bytes=<out
 *                                length> sum=<checksum of the output>"
 *   driver unsort IN OUT         (lib-json build only) write IN again with
 *                                the members of every object in a random
 *                                order: an input that does not arrive
 *                                sorted
 *
 * Under callgrind, only the function workload() is measured
 * (--toggle-collect=workload). */

#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "openvswitch/json.h"
#include "../../lib-json/tests/xorshift.h"

static uint64_t rng = XORSHIFT_SEED;

static uint32_t
rnd(void)
{
    return xorshift_next(&rng);
}

static void
uuid(FILE *f)
{
    fprintf(f, "\"%08x-%04x-%04x-%04x-%04x%08x\"", rnd(), rnd() & 0xffff,
            rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff, rnd());
}

static void
word(FILE *f, size_t len)
{
    static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789_.-";
    for (size_t i = 0; i < len; i++) {
        fputc(alpha[rnd() % (sizeof alpha - 1)], f);
    }
}

/* OVN-like rows: logical switch ports (short strings, UUID references,
 * maps) and logical flows (long match/actions strings). */
static void
gen_ovsdb(FILE *f, size_t n_rows)
{
    size_t i;

    fputs("{\"Logical_Switch_Port\":{", f);
    for (i = 0; i < n_rows; i++) {
        fputs(i ? "," : "", f);
        uuid(f);
        fprintf(f, ":{\"name\":\"pod-%06zu\",\"addresses\":[\"set\",[\""
                "0a:58:0a:f4:%02x:%02x 10.244.%u.%u\"]],\"up\":true,"
                "\"type\":\"\",\"tag\":[\"set\",[]],\"enabled\":[\"set\","
                "[true]],\"external_ids\":[\"map\",[[\"namespace\","
                "\"ns-%u\"],[\"pod\",\"true\"],[\"k8s.ovn.org/nad\","
                "\"default\"]]],\"options\":[\"map\",[[\"requested-chassis\","
                "\"node-%u\"]]],\"_version\":[\"uuid\",", i,
                rnd() & 0xff, rnd() & 0xff, rnd() & 0xff, rnd() & 0xff,
                rnd() % 50, rnd() % 100);
        uuid(f);
        fputs("]}", f);
    }
    fputs("},\"Logical_Flow\":{", f);
    for (i = 0; i < n_rows * 2; i++) {
        fputs(i ? "," : "", f);
        uuid(f);
        fprintf(f, ":{\"logical_datapath\":[\"uuid\",");
        uuid(f);
        fprintf(f, "],\"match\":\"inport == \\\"pod-%06u\\\" && eth.src == "
                "{0a:58:0a:f4:00:05} && ip4.src == {10.244.0.5} && ",
                rnd() % 100000);
        word(f, rnd() % 120);
        fprintf(f, "\",\"actions\":\"reg0[%u] = 1; next(pipeline=ingress, "
                "table=%u);\",\"priority\":%u,\"table_id\":%u,\"pipeline\":"
                "\"ingress\",\"external_ids\":[\"map\",[[\"source\",\"northd"
                ".c:%u\"],[\"stage-name\",\"ls_in_port_sec_l2\"]]]}",
                rnd() % 10, rnd() % 30, rnd() % 65536, rnd() % 30,
                rnd() % 20000);
    }
    fputs("}}", f);
}

static void
gen_uuid_pairs(FILE *f, size_t n)
{
    fputs("[\"set\",[", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",[\"uuid\"," : "[\"uuid\",", f);
        uuid(f);
        fputs("]", f);
    }
    fputs("]]", f);
}

static void
gen_strings(FILE *f, size_t n)
{
    static const size_t lens[] = { 4, 8, 12, 16, 20, 23, 24, 30, 40, 64,
                                   100, 200 };
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",{" : "{", f);
        for (int k = 0; k < 16; k++) {
            fprintf(f, "%s\"key%02d\":\"", k ? "," : "", k);
            word(f, lens[rnd() % (sizeof lens / sizeof *lens)]);
            if (rnd() % 8 == 0) {
                fputs("\\n\\\"", f);
            }
            fputc('"', f);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

static char *
read_file(const char *name, size_t *lenp)
{
    FILE *f = fopen(name, "rb");
    char *buf;
    long len;

    if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0
        || fseek(f, 0, SEEK_SET)) {
        fprintf(stderr, "driver: cannot read %s\n", name);
        exit(1);
    }
    buf = malloc(len + 1);
    if (!buf || fread(buf, 1, len, f) != (size_t) len) {
        fprintf(stderr, "driver: cannot read %s\n", name);
        exit(1);
    }
    buf[len] = '\0';
    fclose(f);
    *lenp = len;
    return buf;
}

#ifdef OVSJSON_JSON_H
/* A copy of 'j' whose objects have their members in a random order (lib-json
 * serializes unsorted objects in insertion order). */
static struct json *
unsorted_copy(const struct json *j)
{
    if (j->type == JSON_ARRAY) {
        struct json *copy = json_array_create_empty();
        for (size_t i = 0; i < json_array_size(j); i++) {
            json_array_add(copy, unsorted_copy(json_array_at(j, i)));
        }
        return copy;
    } else if (j->type == JSON_OBJECT) {
        const struct shash *members = json_object(j);
        size_t n = shash_count(members);
        const struct shash_node **order = malloc((n + 1) * sizeof *order);
        struct json *copy = json_object_create();
        const struct shash_node *node;
        size_t k = 0;

        SHASH_FOR_EACH (node, members) {
            order[k++] = node;
        }
        for (size_t i = n; i > 1; i--) {    /* Fisher-Yates. */
            size_t r = rnd() % i;
            const struct shash_node *t = order[i - 1];
            order[i - 1] = order[r];
            order[r] = t;
        }
        for (size_t i = 0; i < n; i++) {
            json_object_put(copy, order[i]->name,
                            unsorted_copy(order[i]->data));
        }
        free(order);
        return copy;
    }
    return json_deep_clone(j);
}
#endif

/* Parse, serialize sorted, free: the measured work. */
__attribute__((noinline)) char *
workload(const char *text)
{
    struct json *json = json_from_string(text);
    char *out;

    if (json->type == JSON_STRING) {
        fprintf(stderr, "driver: parse error: %s\n", json_string(json));
        exit(1);
    }
    out = json_to_string(json, JSSF_SORT);
    json_destroy(json);
    return out;
}

int
main(int argc, char *argv[])
{
    if (argc == 5 && !strcmp(argv[1], "gen")) {
        double mb = atof(argv[3]);
        FILE *f = fopen(argv[4], "w");

        if (!f) {
            fprintf(stderr, "driver: cannot write %s\n", argv[4]);
            return 1;
        }
        if (!strcmp(argv[2], "ovsdb")) {
            gen_ovsdb(f, (size_t) (mb * 1e6 / 1300));
        } else if (!strcmp(argv[2], "uuid-pairs")) {
            gen_uuid_pairs(f, (size_t) (mb * 1e6 / 48));
        } else if (!strcmp(argv[2], "strings")) {
            gen_strings(f, (size_t) (mb * 1e6 / 900));
        } else {
            fprintf(stderr, "driver: unknown kind %s\n", argv[2]);
            return 1;
        }
        return fclose(f) != 0;
    } else if (argc == 3 && !strcmp(argv[1], "hash")) {
        size_t len;
        char *text = read_file(argv[2], &len);
        struct json *json = json_from_string(text);

        printf("%08zx %08zx\n", json_hash(json, 0), json_hash(json, 12345));
        json_destroy(json);
        free(text);
        return 0;
    } else if (argc == 4 && !strcmp(argv[1], "run")) {
        size_t len, out_len = 0;
        char *text = read_file(argv[2], &len);
        int iter = atoi(argv[3]);
        uint64_t sum = 0;
        struct timespec t0, t1;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < iter; i++) {
            char *out = workload(text);
            if (i == 0) {
                out_len = strlen(out);
                for (size_t k = 0; k < out_len; k++) {
                    sum = sum * 31 + (unsigned char) out[k];
                }
            }
            free(out);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("ns=%.0f bytes=%zu sum=%016llx\n",
               ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec))
               / (iter > 0 ? iter : 1), out_len, (unsigned long long) sum);
        free(text);
        return 0;
    }
#ifdef OVSJSON_JSON_H
    else if (argc == 4 && !strcmp(argv[1], "unsort")) {
        size_t len;
        char *text = read_file(argv[2], &len);
        struct json *json = json_from_string(text);
        struct json *copy = unsorted_copy(json);
        char *out = json_to_string(copy, 0);
        FILE *f = fopen(argv[3], "w");

        if (!f || fputs(out, f) < 0 || fclose(f)) {
            fprintf(stderr, "driver: cannot write %s\n", argv[3]);
            return 1;
        }
        json_destroy(copy);
        json_destroy(json);
        free(out);
        free(text);
        return 0;
    }
#endif
    fprintf(stderr, "usage: %s gen KIND MB FILE | run FILE ITER"
            " | unsort IN OUT\n", argv[0]);
    return 1;
}
