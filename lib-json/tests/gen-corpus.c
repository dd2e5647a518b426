/* Generates JSON documents for the lib-json differential test:
 *
 *   gen-corpus SEED N DIR
 *
 * writes DIR/v-NNNN.json (random valid documents shaped like OVSDB data
 * and like the edge cases of the inline layout) and DIR/x-NNNN.json (the
 * same documents damaged: truncated, a byte replaced or inserted), and
 * DIR/multi.json (all of them concatenated, for --multiple).  Output is a
 * pure function of SEED and N.  Only libc is used. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint32_t
rnd(void)
{
    /* xorshift64*. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t) ((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t
below(uint32_t n)
{
    return rnd() % n;
}

struct buf {
    char *s;
    size_t n, alloc;
};

static void
put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->alloc) {
        b->alloc = (b->n + n + 1) * 2;
        b->s = realloc(b->s, b->alloc);
        if (!b->s) {
            abort();
        }
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void
puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void
ws(struct buf *b)
{
    static const char *spaces[] = { "", "", "", " ", "\n", "\t", "\r\n  " };
    puts_(b, spaces[below(7)]);
}

/* A string body of 'len' units, mixing ASCII, UTF-8 and escapes. */
static void
gen_string(struct buf *b, size_t len)
{
    static const char *units[] = {
        "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r",
        "\\u00e9", "\\u20AC", "\\ud83d\\ude00", "\\u0001", "\\u001f",
        "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x7f", "\\udc00",
    };
    size_t i;

    put(b, "\"", 1);
    for (i = 0; i < len; i++) {
        if (below(10) == 0) {
            puts_(b, units[below(sizeof units / sizeof *units)]);
        } else {
            char c = ' ' + below(95);
            if (c == '"' || c == '\\') {
                c = 'q';
            }
            put(b, &c, 1);
        }
    }
    put(b, "\"", 1);
}

static size_t
string_len(void)
{
    switch (below(6)) {
    case 0:
        return 20 + below(8);   /* Around the inline boundary. */
    case 1:
        return below(4);
    case 2:
        return 36;              /* A UUID's length. */
    case 3:
        return 40 + below(300);
    default:
        return below(24);
    }
}

static void
gen_number(struct buf *b)
{
    static const char *specials[] = {
        "0", "-0", "0.0", "-0.0", "1e2", "1E+2", "100e-2", "1.5", "-1.5e-3",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "18446744073709551615", "18446744073709551616", "1e19", "1e15",
        "123456789012345678901234567890", "0.1", "3.141592653589793",
        "1e-300", "1e300", "2.5e-5", "12.5e1", "1.000000000000001",
    };
    char tmp[64];

    switch (below(4)) {
    case 0:
        puts_(b, specials[below(sizeof specials / sizeof *specials)]);
        break;
    case 1:
        snprintf(tmp, sizeof tmp, "%d", (int) rnd() - (int) (rnd() / 2));
        puts_(b, tmp);
        break;
    case 2:
        snprintf(tmp, sizeof tmp, "%u.%u", below(100000), below(1000));
        puts_(b, tmp);
        break;
    default:
        snprintf(tmp, sizeof tmp, "%u", below(1000));
        puts_(b, tmp);
        break;
    }
}

static void gen_value(struct buf *, int depth);

static void
gen_uuid_pair(struct buf *b)
{
    char tmp[80];
    snprintf(tmp, sizeof tmp, "[\"uuid\",\"%08x-%04x-%04x-%04x-%04x%08x\"]",
             rnd(), below(65536), below(65536), below(65536), below(65536),
             rnd());
    puts_(b, tmp);
}

/* An object member's name: OVSDB-like, sometimes duplicated among the 'n'
 * members, or a random string. */
static void
gen_name(struct buf *b, size_t n)
{
    if (below(3) == 0) {
        char tmp[32];

        snprintf(tmp, sizeof tmp, "\"col%u\"", below(n + 2));
        puts_(b, tmp);
    } else {
        gen_string(b, string_len() % 30);
    }
    ws(b);
    put(b, ":", 1);
    ws(b);
}

/* An array or, if 'object', an object, with white space around its
 * members: up to 15 at the top, usually fewer than 6 (arrays) or 8
 * (objects) when nested, sometimes up to 40 at depth 1. */
static void
gen_container(struct buf *b, int depth, bool object)
{
    size_t n = (depth == 0 ? 1 + below(15)
                : below(4) || depth > 1 ? below(object ? 8 : 6) : below(40));
    size_t i;

    put(b, object ? "{" : "[", 1);
    ws(b);
    for (i = 0; i < n; i++) {
        if (i) {
            put(b, ",", 1);
            ws(b);
        }
        if (object) {
            gen_name(b, n);
        }
        gen_value(b, depth + 1);
        if (!object) {
            ws(b);
        }
    }
    if (object) {
        ws(b);
    }
    put(b, object ? "}" : "]", 1);
}

static void
gen_value(struct buf *b, int depth)
{
    uint32_t r = depth > 4 ? 2 + below(6) : below(10);

    switch (r) {
    case 0:
    case 1:
        gen_container(b, depth, r == 1);
        break;
    case 2:
    case 3:
        gen_string(b, string_len());
        break;
    case 4:
    case 5:
        gen_number(b);
        break;
    case 6:
        puts_(b, below(3) == 0 ? "null" : below(2) ? "true" : "false");
        break;
    case 7:
        gen_uuid_pair(b);
        break;
    default:
        if (depth < 4) {
            gen_container(b, depth, !below(2));
        } else {
            gen_number(b);
        }
        break;
    }
}

static void
write_file(const char *dir, const char *prefix, int i, const struct buf *b)
{
    char name[4096];
    FILE *f;

    snprintf(name, sizeof name, "%s/%s-%04d.json", dir, prefix, i);
    f = fopen(name, "wb");
    if (!f || fwrite(b->s, 1, b->n, f) != b->n || fclose(f)) {
        fprintf(stderr, "gen-corpus: cannot write %s\n", name);
        exit(1);
    }
}

/* Damages a copy of 'src' in one of a few ways. */
static void
damage(const struct buf *src, struct buf *dst)
{
    static const char bytes[] = "\"\\[]{}:,0-eE.+ \x01\x80\xffutx";
    size_t pos = src->n ? below(src->n) : 0;
    char c = bytes[below(sizeof bytes - 1)];

    dst->n = 0;
    switch (below(3)) {
    case 0:                     /* Truncate. */
        put(dst, src->s, pos);
        break;
    case 1:                     /* Replace a byte. */
        put(dst, src->s, src->n);
        if (dst->n) {
            dst->s[pos] = c;
        }
        break;
    default:                    /* Insert a byte. */
        put(dst, src->s, pos);
        put(dst, &c, 1);
        put(dst, src->s + pos, src->n - pos);
        break;
    }
}

int
main(int argc, char *argv[])
{
    struct buf doc = { NULL, 0, 0 }, bad = { NULL, 0, 0 };
    struct buf multi = { NULL, 0, 0 };
    int i, n;

    if (argc != 4) {
        fprintf(stderr, "usage: %s SEED N DIR\n", argv[0]);
        return 1;
    }
    rng_state = strtoull(argv[1], NULL, 10) * 2654435761u + 1;
    n = atoi(argv[2]);
    for (i = 0; i < n; i++) {
        doc.n = 0;
        ws(&doc);
        gen_container(&doc, 0, !below(2));
        ws(&doc);
        write_file(argv[3], "v", i, &doc);
        put(&multi, doc.s, doc.n);
        put(&multi, "\n", 1);

        damage(&doc, &bad);
        write_file(argv[3], "x", i, &bad);
    }
    doc = multi;
    write_file(argv[3], "multi", 0, &doc);
    return 0;
}
