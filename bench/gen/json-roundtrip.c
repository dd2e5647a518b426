/* json-roundtrip: the fixed workload of the callgrind figure of
 * "bench json".  Parses a JSON file with OVS's JSON library, serializes it
 * with sorted object keys, and frees everything, 'iterations' times.  Writes
 * the serialized text of the last iteration to stdout, so that two builds
 * can be checked for identical output.
 *
 * Built by bench/json.sh against each tree's lib/.libs/libopenvswitch.a.
 *
 * Usage: json-roundtrip FILE [ITERATIONS]
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/json.h"

int
main(int argc, char *argv[])
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FILE [ITERATIONS]\n", argv[0]);
        return 1;
    }
    int iterations = argc > 2 ? atoi(argv[2]) : 1;
    if (iterations < 1) {
        fprintf(stderr, "%s: bad iteration count '%s'\n", argv[0], argv[2]);
        return 1;
    }

    char *text = NULL;
    for (int i = 0; i < iterations; i++) {
        struct json *json = json_from_file(argv[1]);
        if (json->type == JSON_STRING) {
            /* json_from_file() reports errors as a string. */
            fprintf(stderr, "%s: %s\n", argv[1], json_string(json));
            json_destroy(json);
            return 1;
        }
        free(text);
        text = json_to_string(json, JSSF_SORT);
        json_destroy(json);
    }
    if (fputs(text, stdout) == EOF || putchar('\n') == EOF) {
        fprintf(stderr, "%s: write error: %s\n", argv[0], strerror(errno));
        return 1;
    }
    free(text);
    return 0;
}
