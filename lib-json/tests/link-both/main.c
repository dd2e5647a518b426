/* The link-both test, lib-json's half and main(): one program linked with
 * lib-json and with OVS's libopenvswitch, which define the same json_*,
 * shash_* and ds_* names in source (with different "struct shash"
 * layouts).  Both halves must produce the same report for every input, and
 * neither may corrupt the other's memory (run it under ASan or valgrind to
 * see that too).
 *
 * usage: link-both FILE...   Prints "ok"/"FAIL" lines and a closing
 * "N passed, N failed". */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/dynamic-string.h"
#include "ovsjson/json.h"
#include "ovsjson/shash.h"
#include "side.h"

#define SIDE_FN libjson_side
#include "work.h"

static char *
read_file(const char *name)
{
    FILE *f = fopen(name, "rb");
    char *buf = NULL;
    size_t n = 0;

    if (f) {
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        rewind(f);
        buf = malloc(n + 1);
        buf[fread(buf, 1, n, f)] = '\0';
        fclose(f);
    }
    return buf;
}

int
main(int argc, char *argv[])
{
    int passed = 0, failed = 0;

    if (ovs_side_parser() == (void *) json_from_string) {
        printf("FAIL both halves call the same json_from_string()\n");
        failed++;
    }

    for (int i = 1; i < argc; i++) {
        char *text = read_file(argv[i]);
        char *a = text ? libjson_side(text) : NULL;
        char *b = text ? ovs_side(text) : NULL;

        if (a && b && !strcmp(a, b)) {
            passed++;
        } else {
            failed++;
            printf("FAIL %s\n  lib-json: %.300s\n  ovs:      %.300s\n",
                   argv[i], a ? a : "(none)", b ? b : "(none)");
        }
        free(a);
        free(b);
        free(text);
    }
    printf("%s lib-json and libopenvswitch in one program agree on %d "
           "inputs\n", failed ? "FAIL" : "ok", passed);
    printf("%d passed, %d failed\n", !failed, !!failed);
    return failed != 0;
}
