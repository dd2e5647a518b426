/* lib-json thread-safety test, meant for a -fsanitize=thread build: several
 * threads start at the same moment and parse, serialize, clone, hash and
 * compare their own documents; their results are checked against what
 * the main thread computes after joining them.  Nothing is shared between
 * the threads but the library itself, so any report from ThreadSanitizer
 * is a data race inside lib-json (such as lazily built tables).
 *
 * usage: threads [N_THREADS]
 * Prints "ok ..." lines and a closing "N passed, N failed". */

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/json.h"

static const char *const docs[] = {
    "{\"b\":[1,2.5,-3e2,true,false,null],\"a\":\"x\\u00e9\\ud83d\\ude00\"}",
    "[\"uuid\",\"01234567-89ab-cdef-0011-2233fedcba98\"]",
    "{\"z\":{\"y\":{\"x\":[[],[[]],{}]}},\"long string of more than 23\":1}",
    "[1e400]",
    "{\"unterminated\": [1, 2",
    "[18446744073709551619, 0.1, -0, \"\\t\\n\\\\\"]",
};
#define N_DOCS (sizeof docs / sizeof docs[0])
#define ROUNDS 200

static pthread_barrier_t start;

struct worker {
    pthread_t thread;
    size_t id;
    char *first[N_DOCS];        /* This thread's first digest of each doc. */
    long bad;                   /* Later digests that differ from it. */
};

/* What one document gives: its serialization (or error), its pretty form
 * and its hash, in one string. */
static char *
digest(const char *text)
{
    struct json *j = json_from_string(text);
    struct json *copy = json_deep_clone(j);
    char *plain = json_to_string(j, JSSF_SORT);
    char *pretty = json_to_string(copy, JSSF_SORT | JSSF_PRETTY);
    size_t n = strlen(plain) + strlen(pretty) + 64;
    char *out = malloc(n);

    snprintf(out, n, "%s|%s|%zx|%d", plain, pretty, json_hash(j, 0),
             json_equal(j, copy));
    free(plain);
    free(pretty);
    json_destroy(copy);
    json_destroy(j);
    return out;
}

static void *
work(void *w_)
{
    struct worker *w = w_;

    pthread_barrier_wait(&start);
    for (int r = 0; r < ROUNDS; r++) {
        size_t d = (w->id + r) % N_DOCS;
        char *got = digest(docs[d]);

        if (!w->first[d]) {
            w->first[d] = got;
        } else {
            w->bad += strcmp(got, w->first[d]) != 0;
            free(got);
        }
    }
    return NULL;
}

int
main(int argc, char *argv[])
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    struct worker *ws = calloc(n, sizeof *ws);
    long bad = 0;

    /* The first parse of the process happens in the threads, all at
     * once; the main thread parses only after joining them. */
    pthread_barrier_init(&start, NULL, n);
    for (int i = 0; i < n; i++) {
        ws[i].id = i;
        pthread_create(&ws[i].thread, NULL, work, &ws[i]);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(ws[i].thread, NULL);
    }
    for (size_t d = 0; d < N_DOCS; d++) {
        char *want = digest(docs[d]);
        for (int i = 0; i < n; i++) {
            bad += ws[i].bad + (strcmp(ws[i].first[d], want) != 0);
            ws[i].bad = 0;
            free(ws[i].first[d]);
        }
        free(want);
    }
    printf("%s %d threads x %d parses from a cold start: %ld wrong "
           "results\n", bad ? "FAIL" : "ok", n, ROUNDS, bad);
    printf("%d passed, %d failed\n", !bad, !!bad);
    free(ws);
    return bad != 0;
}
