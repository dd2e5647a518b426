/* Differential libFuzzer target: stock against patched OVS lib/json.c.
 *
 * Links into one program the patched libopenvswitch.a and the stock
 * lib/json.c of the same base, compiled against the stock headers, whose
 * defined global symbols scripts/fuzz.sh renamed with the prefix "stock_"
 * (objcopy --redefine-syms).  The stock objects are opaque here: this file
 * is compiled against the patched headers and only ever hands a stock
 * value back to stock functions.
 *
 * For every input, truncated at its first null byte, both builds must
 * agree on:
 *   - json_from_string(): the compact and the pretty, sorted serialization
 *     (an error is a string value, so an error must have the same text);
 *   - json_parser_feed() in pieces of 1 to 8 bytes (the piece size comes
 *     from the input), with and without JSPF_TRAILER: the same;
 *   - the deep clone of the parsed value: same serialization, and equal
 *     to the value;
 *   - json_hash() of the parsed value;
 *   - json_string_unescape() and json_string_escape() of the input.
 * A difference prints both sides and aborts, so libFuzzer keeps the input
 * as a crash-* file. */

#include <config.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"

/* The stock build, renamed. */
struct stock_json;
struct stock_json_parser;
struct stock_json *stock_json_from_string(const char *);
struct stock_json_parser *stock_json_parser_create(int flags);
size_t stock_json_parser_feed(struct stock_json_parser *, const char *,
                              size_t);
struct stock_json *stock_json_parser_finish(struct stock_json_parser *);
char *stock_json_to_string(const struct stock_json *, int flags);
struct stock_json *stock_json_deep_clone(const struct stock_json *);
bool stock_json_equal(const struct stock_json *, const struct stock_json *);
size_t stock_json_hash(const struct stock_json *, size_t basis);
bool stock_json_string_unescape(const char *, size_t, char **);
void stock_json_string_escape(const char *, struct ds *);
#if STOCK_DESTROY_YIELD
void stock_json_destroy__(struct stock_json *, bool yield);
#define STOCK_DESTROY(J) stock_json_destroy__(J, false)
#else
void stock_json_destroy__(struct stock_json *);
#define STOCK_DESTROY(J) stock_json_destroy__(J)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
mismatch(const char *what, const char *input, const char *stock,
         const char *patched)
{
    fprintf(stderr, "json-diff: MISMATCH in %s\n  input:   %s\n"
            "  stock:   %s\n  patched: %s\n", what, input,
            stock ? stock : "(null)", patched ? patched : "(null)");
    abort();
}

static void
compare_strings(const char *what, const char *input, char *stock,
                char *patched)
{
    if (!stock != !patched || (stock && strcmp(stock, patched))) {
        mismatch(what, input, stock, patched);
    }
    free(stock);
    free(patched);
}

/* Both serializations of both values. */
static void
compare_values(const char *what, const char *input,
               const struct stock_json *s, const struct json *p)
{
    static const int flags[] = { 0, JSSF_PRETTY | JSSF_SORT };

    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        compare_strings(what, input, stock_json_to_string(s, flags[i]),
                        json_to_string(p, flags[i]));
    }
}

/* Feeds the 'len' bytes at 's' to 'parser' with 'feed', 'piece' bytes at a
 * time, until it takes less than it is given. */
static void
feed_pieces(void *parser, size_t (*feed)(void *, const char *, size_t),
            const char *s, size_t len, size_t piece)
{
    for (size_t ofs = 0; ofs < len; ofs += piece) {
        size_t n = len - ofs < piece ? len - ofs : piece;

        if (feed(parser, s + ofs, n) != n) {
            break;
        }
    }
}

/* json_parser_feed() of each build, for feed_pieces(). */
static size_t
patched_parser_feed(void *parser, const char *s, size_t n)
{
    return json_parser_feed(parser, s, n);
}

static size_t
stock_parser_feed(void *parser, const char *s, size_t n)
{
    return stock_json_parser_feed(parser, s, n);
}

static struct json *
patched_feed(const char *s, size_t len, size_t piece, int flags)
{
    struct json_parser *parser = json_parser_create(flags);

    feed_pieces(parser, patched_parser_feed, s, len, piece);
    return json_parser_finish(parser);
}

static struct stock_json *
stock_feed(const char *s, size_t len, size_t piece, int flags)
{
    struct stock_json_parser *parser = stock_json_parser_create(flags);

    feed_pieces(parser, stock_parser_feed, s, len, piece);
    return stock_json_parser_finish(parser);
}

static void
compare_escapes(const char *input, size_t len)
{
    char *s_out = NULL, *p_out = NULL;
    bool s_ok = stock_json_string_unescape(input, len, &s_out);
    bool p_ok = json_string_unescape(input, len, &p_out);

    if (s_ok != p_ok) {
        mismatch("json_string_unescape() result", input,
                 s_ok ? "true" : "false", p_ok ? "true" : "false");
    }
    compare_strings("json_string_unescape() output", input, s_out, p_out);

    struct ds s_ds = DS_EMPTY_INITIALIZER;
    struct ds p_ds = DS_EMPTY_INITIALIZER;
    stock_json_string_escape(input, &s_ds);
    json_string_escape(input, &p_ds);
    compare_strings("json_string_escape()", input, ds_steal_cstr(&s_ds),
                    ds_steal_cstr(&p_ds));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *input = malloc(size + 1);

    memcpy(input, data, size);
    input[size] = '\0';
    size_t len = strlen(input);

    /* Whole. */
    struct stock_json *s = stock_json_from_string(input);
    struct json *p = json_from_string(input);
    compare_values("json_from_string()", input, s, p);

    /* Deep clones, equality and hashes. */
    struct stock_json *s_clone = stock_json_deep_clone(s);
    struct json *p_clone = json_deep_clone(p);
    compare_values("json_deep_clone()", input, s_clone, p_clone);
    bool s_eq = stock_json_equal(s, s_clone);
    bool p_eq = json_equal(p, p_clone);
    if (!s_eq || !p_eq) {
        mismatch("json_equal(value, deep clone)", input,
                 s_eq ? "true" : "false", p_eq ? "true" : "false");
    }
    size_t basis = size ? data[0] : 0;
    size_t s_hash = stock_json_hash(s, basis);
    size_t p_hash = json_hash(p, basis);
    if (s_hash != p_hash) {
        char s_str[32], p_str[32];

        snprintf(s_str, sizeof s_str, "%zu", s_hash);
        snprintf(p_str, sizeof p_str, "%zu", p_hash);
        mismatch("json_hash()", input, s_str, p_str);
    }
    STOCK_DESTROY(s_clone);
    json_destroy(p_clone);

    /* In pieces, with and without JSPF_TRAILER. */
    size_t piece = 1 + (size ? data[size - 1] % 8 : 0);
    for (int flags = 0; flags <= JSPF_TRAILER; flags += JSPF_TRAILER) {
        struct stock_json *s2 = stock_feed(input, len, piece, flags);
        struct json *p2 = patched_feed(input, len, piece, flags);

        compare_values(flags ? "json_parser_feed(JSPF_TRAILER)"
                       : "json_parser_feed()", input, s2, p2);
        STOCK_DESTROY(s2);
        json_destroy(p2);
    }

    compare_escapes(input, len);

    STOCK_DESTROY(s);
    json_destroy(p);
    free(input);
    return 0;
}
