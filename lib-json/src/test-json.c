/* lib-json/test-json: the command line and output of OVS's
 * "ovstest test-json [--pretty] [--multiple] [--member-depth=N] FILE|-"
 * (--member-depth as the 4.0.0 series of ovs-json-perf adds it to OVS's
 * test-json).  Our own program.
 *
 * For each JSON text in the input it prints the sorted serialization, or
 * "error: " and the parser's message, and it exits with status 1 if any
 * text failed.  Every parsed value also goes through a few self-checks of
 * json_clone() and json_deep_clone() (equal, same hash, reference counts
 * right).
 *
 * --member-depth=N streams: each member at depth N goes to a callback that
 * prints "member NAME/NAME...: VALUE" and takes it, or declines it (and
 * says "(declined)") when its own name starts with "keep"; then the rest
 * of the document is printed as above.
 *
 * --text-member=NAME keeps the outermost object's members NAME as text
 * (json_parser_set_text_member()), feeding the parser 3 bytes at a time
 * as OVS's test-json does: it prints "text NAME: TEXT" for such a member,
 * then the sorted serialization, never pretty.  With --text-depth=N, the
 * members NAME at depth N are kept as text instead
 * (json_parser_set_text_member_depth()); "text" lines are printed for the
 * outermost object's members only, as by OVS's. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/json.h"
#include "ovsjson/shash.h"

/* Options. */
static bool opt_pretty;         /* --pretty: indented output. */
static bool opt_multiple;       /* --multiple: a sequence of texts. */
static int opt_member_depth;    /* --member-depth=N: stream members. */
static const char *opt_text_member; /* --text-member=NAME. */
static int opt_text_depth = 1;  /* --text-depth=N. */

static void __attribute__((noreturn))
die(const char *message, const char *arg)
{
    fprintf(stderr, "test-json: %s%s%s\n", message, arg ? " " : "",
            arg ? arg : "");
    exit(1);
}

static void
self_check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "test-json: self-check failed: %s\n", what);
        abort();
    }
}

/* json_clone() shares, json_deep_clone() copies; both compare and hash
 * equal, and neither disturbs the other's reference count. */
static void
check_copies(struct json *value)
{
    struct json *shared = json_clone(value);
    struct json *copy;

    self_check(shared == value && value->count == 2, "clone shares");
    self_check(json_equal(shared, value), "clone equal");
    json_destroy(shared);
    self_check(value->count == 1, "clone released");

    copy = json_deep_clone(value);
    self_check(copy != value && copy->count == 1, "deep clone is new");
    self_check(json_equal(copy, value) && json_equal(value, copy),
               "deep clone equal");
    self_check(json_hash(copy, 0) == json_hash(value, 0), "deep clone hash");
    json_destroy(copy);
    self_check(value->count == 1, "deep clone independent");
}

/* Prints the outcome of one text and frees it.  Returns true for a value,
 * false for an error. */
static bool
report(struct json *value)
{
    bool is_error = value->type == JSON_STRING;
    int flags = JSSF_SORT;

    if (opt_pretty) {
        flags |= JSSF_PRETTY;
    }
    if (is_error) {
        printf("error: %s\n", json_string(value));
    } else {
        char *text = json_to_string(value, flags);
        printf("%s\n", text);
        free(text);
    }
    check_copies(value);
    json_destroy(value);
    return !is_error;
}

/* Reads all of 'stream' into memory; stores its length in '*np'. */
static char *
slurp(FILE *stream, size_t *np)
{
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    size_t got;

    while (buf && (got = fread(buf + n, 1, cap - n, stream)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    if (!buf) {
        die("out of memory", NULL);
    } else if (ferror(stream)) {
        die("error reading input:", strerror(errno));
    }
    *np = n;
    return buf;
}

/* The --member-depth callback: prints each member and takes it, unless
 * its name starts with "keep", and each repeated member it is told of. */
static bool
take_member(void *aux, const char *names[], size_t depth, struct json *value)
{
    bool keep = !strncmp(names[depth - 1], "keep", 4);
    char *text;

    (void) aux;
    fputs("member", stdout);
    for (size_t i = 0; i < depth; i++) {
        putchar(i ? '/' : ' ');
        fputs(names[i], stdout);
    }
    if (!value) {
        puts(" repeated");
        return false;
    }
    text = json_to_string(value, JSSF_SORT);
    printf("%s: %s\n", keep ? " (declined)" : "", text);
    free(text);
    if (keep) {
        return false;
    }
    json_destroy(value);
    return true;
}

/* Feeds all of 'stream' to 'parser', 'piece' bytes at a time (0: at once),
 * and returns what json_parser_finish() returns. */
static struct json *
parse_stream(struct json_parser *parser, FILE *stream, size_t piece)
{
    size_t n;
    char *input = slurp(stream, &n);

    for (size_t pos = 0; pos < n; pos += piece ? piece : n) {
        size_t k = piece && n - pos > piece ? piece : n - pos;
        json_parser_feed(parser, input + pos, k);
    }
    free(input);
    return json_parser_finish(parser);
}

/* --member-depth: one text, streamed.  (The member callback makes the
 * difference, not how the bytes arrive: feeding it all at once prints the
 * same as OVS's piecewise feeding.) */
static bool
run_members(FILE *stream)
{
    struct json_parser *parser = json_parser_create(JSPF_TRAILER);

    json_parser_set_member_cb(parser, opt_member_depth, take_member, NULL);
    return report(parse_stream(parser, stream, 0));
}

/* --text-member: one text, fed 3 bytes at a time. */
static bool
run_text_member(FILE *stream)
{
    struct json_parser *parser = json_parser_create(JSPF_TRAILER);
    struct json *result;
    char *text;

    if (opt_text_depth == 1) {
        json_parser_set_text_member(parser, opt_text_member);
    } else {
        json_parser_set_text_member_depth(parser, opt_text_depth,
                                          opt_text_member);
    }
    result = parse_stream(parser, stream, 3);
    if (result->type == JSON_STRING) {
        printf("error: %s\n", json_string(result));
        json_destroy(result);
        return false;
    }
    if (result->type == JSON_OBJECT) {
        const struct json *member = shash_find_data(json_object(result),
                                                    opt_text_member);
        if (member && member->type == JSON_SERIALIZED_OBJECT) {
            printf("text %s: %s\n", opt_text_member,
                   json_serialized_object(member));
        }
    }
    text = json_to_string(result, JSSF_SORT);
    puts(text);
    free(text);
    json_destroy(result);
    return true;
}

/* --multiple: texts one after another.  Between texts, white space (as
 * isspace() defines it) is skipped; a text runs until the parser stops
 * taking bytes or the input ends. */
static bool
run_multiple(FILE *stream)
{
    size_t n, pos = 0;
    char *input = slurp(stream, &n);
    bool all_ok = true;

    while (pos < n) {
        struct json_parser *parser;

        if (strchr(" \t\n\v\f\r", input[pos]) && input[pos]) {
            pos++;
            continue;
        }
        parser = json_parser_create(0);
        pos += json_parser_feed(parser, input + pos, n - pos);
        all_ok = report(json_parser_finish(parser)) && all_ok;
    }
    free(input);
    return all_ok;
}

int
main(int argc, char *argv[])
{
    const char *file = NULL;
    FILE *stream;
    bool ok;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pretty")) {
            opt_pretty = true;
        } else if (!strcmp(argv[i], "--multiple")) {
            opt_multiple = true;
        } else if (!strncmp(argv[i], "--member-depth=", 15)
                   || (!strcmp(argv[i], "--member-depth") && i + 1 < argc)) {
            const char *n = argv[i][14] ? argv[i] + 15 : argv[++i];
            opt_member_depth = atoi(n);
            if (opt_member_depth < 1) {
                die("--member-depth must be at least 1", NULL);
            }
        } else if (!strncmp(argv[i], "--text-member=", 14)) {
            opt_text_member = argv[i] + 14;
        } else if (!strncmp(argv[i], "--text-depth=", 13)) {
            opt_text_depth = atoi(argv[i] + 13);
            if (opt_text_depth < 1) {
                die("--text-depth must be at least 1", NULL);
            }
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            die("unknown option", argv[i]);
        } else if (!file) {
            file = argv[i];
        } else {
            file = NULL;
            break;
        }
    }
    if (!file) {
        die("usage: test-json [--pretty] [--multiple] [--member-depth=N] "
            "[--text-member=NAME [--text-depth=N]] INPUT.json", NULL);
    }

    stream = strcmp(file, "-") ? fopen(file, "r") : stdin;
    if (!stream) {
        die("cannot open", file);
    }
    ok = opt_text_member ? run_text_member(stream)
         : opt_member_depth ? run_members(stream)
         : opt_multiple ? run_multiple(stream)
         : report(json_from_stream(stream));
    if (stream != stdin) {
        fclose(stream);
    }
    return ok ? 0 : 1;
}
