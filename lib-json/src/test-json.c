/* lib-json/test-json: the same command line and output as OVS's
 * "ovstest test-json [--pretty] [--multiple] FILE|-".  Our own program.
 *
 * Prints the sorted serialization of each input JSON text, or "error: "
 * followed by the parser's message, and exits with status 1 if any input
 * failed.  Each parsed value is also checked against its shallow clone and
 * its deep clone (equal, same hash, reference counts right). */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/json.h"

static int pretty;              /* --pretty: indent the output. */
static int multiple;            /* --multiple: many texts in one input. */

static void
check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "test-json: check failed: %s\n", what);
        abort();
    }
}

/* Checks json_clone() and json_deep_clone() on 'json'. */
static void
check_clones(struct json *json)
{
    struct json *copy = json_clone(json);
    struct json *deep;

    check(copy == json && json->count == 2, "clone shares");
    check(json_equal(json, copy), "clone equal");
    json_destroy(copy);
    check(json->count == 1, "clone released");

    deep = json_deep_clone(json);
    check(deep != json && deep->count == 1, "deep clone is new");
    check(json_equal(json, deep) && json_equal(deep, json),
          "deep clone equal");
    check(json_hash(json, 0) == json_hash(deep, 0), "deep clone hash");
    json_destroy(deep);
    check(json->count == 1, "deep clone independent");
}

static int
print_and_free(struct json *json)
{
    int ok;

    if (json->type == JSON_STRING) {
        printf("error: %s\n", json_string(json));
        ok = 0;
    } else {
        char *s = json_to_string(json, JSSF_SORT | (pretty ? JSSF_PRETTY : 0));
        puts(s);
        free(s);
        ok = 1;
    }
    check_clones(json);
    json_destroy(json);
    return ok;
}

/* Parses a sequence of JSON texts, each starting at a non-space byte. */
static int
parse_multiple(FILE *stream)
{
    struct json_parser *parser = NULL;
    char buffer[BUFSIZ];
    size_t n = 0, used = 0;
    int ok = 1;

    for (;;) {
        if (used >= n) {
            if (feof(stream)) {
                break;
            }
            n = fread(buffer, 1, sizeof buffer, stream);
            used = 0;
            if (ferror(stream)) {
                fprintf(stderr, "test-json: Error reading input file (%s)\n",
                        strerror(errno));
                exit(1);
            }
            if (!n) {
                break;
            }
        }
        if (!parser && isspace((unsigned char) buffer[used])) {
            used++;
            continue;
        }
        if (!parser) {
            parser = json_parser_create(0);
        }
        used += json_parser_feed(parser, &buffer[used], n - used);
        if (used < n) {
            ok &= print_and_free(json_parser_finish(parser));
            parser = NULL;
        }
    }
    if (parser) {
        ok &= print_and_free(json_parser_finish(parser));
    }
    return ok;
}

int
main(int argc, char *argv[])
{
    static const struct option options[] = {
        {"pretty", no_argument, &pretty, 1},
        {"multiple", no_argument, &multiple, 1},
        {NULL, 0, NULL, 0},
    };
    const char *input_file;
    FILE *stream;
    int ok;

    for (;;) {
        int c = getopt_long(argc, argv, "", options, NULL);
        if (c == -1) {
            break;
        } else if (c != 0) {
            exit(1);
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "test-json: usage: %s [--pretty] [--multiple] "
                "INPUT.json\n", argv[0]);
        exit(1);
    }

    input_file = argv[optind];
    stream = !strcmp(input_file, "-") ? stdin : fopen(input_file, "r");
    if (!stream) {
        fprintf(stderr, "test-json: Cannot open \"%s\" (%s)\n", input_file,
                strerror(errno));
        exit(1);
    }
    ok = multiple ? parse_multiple(stream)
                  : print_and_free(json_from_stream(stream));
    fclose(stream);
    return !ok;
}
