/* Seed corpus for the OVS json fuzzers (scripts/fuzz.sh).
 *
 *   gen-seeds DIR
 *
 * Writes one small JSON document per file into DIR, each ending in a null
 * byte (OVS's json_parser_target ignores inputs that do not).  The seeds
 * aim at the edges of the in-place storage of the series: strings whose
 * decoded length is 20 to 26 bytes (JSON_STRING_INLINE_LEN is 23), with
 * multibyte UTF-8 and escapes (\n, \", \\, \u00XX, \uXXXX, surrogate pairs,
 * broken ones) starting at every offset around the boundary; arrays of 0 to
 * 5 elements (JSON_ARRAY_INLINE_LEN is 3), nested and mixed; objects with
 * such keys and values; deep nesting around the parser's limit of 1000;
 * numbers at the edges of int64 and double; and truncated documents. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dir;
static unsigned int n_seeds;

static void
emit(const char *kind, const char *doc)
{
    char name[4096];
    FILE *f;

    snprintf(name, sizeof name, "%s/%s-%04u", dir, kind, n_seeds++);
    f = fopen(name, "wb");
    if (!f || fwrite(doc, 1, strlen(doc) + 1, f) != strlen(doc) + 1
        || fclose(f)) {
        perror(name);
        exit(1);
    }
}

static void
emitf(const char *kind, const char *fmt, ...)
{
    char buf[8192];
    va_list args;

    va_start(args, fmt);
    vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    emit(kind, buf);
}

/* Pieces that a string may hold: the text inside the quotes, and how many
 * bytes it decodes to (0 for a piece that makes the string invalid). */
struct piece {
    const char *text;
    int bytes;
};

static const struct piece pieces[] = {
    { "\\n", 1 }, { "\\\"", 1 }, { "\\\\", 1 }, { "\\/", 1 },
    { "\\t\\r\\b\\f", 4 }, { "\\u0041", 1 }, { "\\u00e9", 2 },
    { "\\u20ac", 3 }, { "\\ud83d\\ude00", 4 }, { "\xc3\xa9", 2 },
    { "\xe2\x82\xac", 3 }, { "\xf0\x9f\x98\x80", 4 },
    { "\\u0000", 0 }, { "\\ud83d", 0 }, { "\\ude00", 0 },
    { "\\ud83d\\u0041", 0 }, { "\xc3", 0 }, { "\xe2\x82", 0 },
    { "\xc0\x80", 0 }, { "\xed\xa0\x80", 0 }, { "\x01", 0 },
    { "\\x", 0 }, { "\\u12", 0 },
};

/* A string literal (with quotes) that decodes to 'len' bytes, 'piece'
 * starting at decoded offset 'at'. */
static void
make_string(char *out, size_t len, const struct piece *piece, size_t at)
{
    char *p = out;
    size_t n = 0;

    *p++ = '"';
    while (n < at && n < len) {
        *p++ = 'a' + n % 26;
        n++;
    }
    if (piece) {
        p += sprintf(p, "%s", piece->text);
        n += piece->bytes;
    }
    while (n < len) {
        *p++ = 'A' + n % 26;
        n++;
    }
    *p++ = '"';
    *p = '\0';
}

static void
strings(void)
{
    char s[256], t[256];

    for (size_t len = 0; len <= 30; len++) {
        make_string(s, len, NULL, 0);
        emitf("string", "[%s]", s);
        if (len >= 19 && len <= 27) {
            emitf("string", "{%s:%s}", s, s);
        }
    }
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        const struct piece *pc = &pieces[i];

        for (size_t len = 20; len <= 26; len++) {
            for (size_t at = 17; at <= 24; at++) {
                if (at + pc->bytes > len && pc->bytes) {
                    continue;
                }
                make_string(s, len, pc, at);
                emitf("utf8-escape", "[%s]", s);
            }
        }
        make_string(s, 23, pc, 21);
        make_string(t, 24, pc, 22);
        emitf("utf8-escape", "{%s:%s,\"k\":[%s,%s]}", s, t, t, s);
    }
}

static void
arrays(void)
{
    static const char *elems[] = {
        "0", "\"short\"", "\"exactly twenty-three b\"",
        "\"twenty-four bytes long..\"", "null", "true", "-1.5e3",
        "[]", "{}", "[1,2,3]", "{\"a\":[1]}",
    };
    size_t n_elems = sizeof elems / sizeof *elems;
    char buf[4096];

    for (size_t n = 0; n <= 5; n++) {
        for (size_t e = 0; e < n_elems; e++) {
            char *p = buf;

            *p++ = '[';
            for (size_t i = 0; i < n; i++) {
                p += sprintf(p, "%s%s", i ? "," : "",
                             elems[(e + i) % n_elems]);
            }
            strcpy(p, "]");
            emit("array", buf);
            emitf("array", "[%s,%s]", buf, buf);
            emitf("array", "{\"a\":%s,\"b\":[%s]}", buf, buf);
        }
    }
    /* Arrays that end early, or with stray commas. */
    emit("array", "[1,2,3,4,");
    emit("array", "[1,,2]");
    emit("array", "[1,2,3,4,5,]");
    emit("array", "[[[1,2,3],[4,5,6,7]],[]");
}

static void
nesting(void)
{
    static const size_t depths[] = { 2, 10, 100, 998, 999, 1000, 1001,
                                     1002 };
    static char buf[8192];

    for (size_t i = 0; i < sizeof depths / sizeof *depths; i++) {
        size_t d = depths[i], n = 0;

        for (size_t j = 0; j < d; j++) {
            buf[n++] = '[';
        }
        for (size_t j = 0; j < d; j++) {
            buf[n++] = ']';
        }
        buf[n] = '\0';
        emit("deep", buf);

        /* Objects nested d deep (as deep as 'buf' allows). */
        size_t opens = 0;
        n = 0;
        while (opens < d && n < sizeof buf - 64 - opens) {
            n += sprintf(buf + n, "{\"k\":");
            opens++;
        }
        n += sprintf(buf + n, "\"abcdefghijklmnopqrstuvwxyz\"");
        while (opens-- > 0) {
            buf[n++] = '}';
        }
        buf[n] = '\0';
        emit("deep", buf);
    }
}

static void
objects(void)
{
    emit("object", "{}");
    emit("object", "{\"a\":1,\"a\":2}");
    emit("object", "{\"b\":1,\"a\":2,\"c\":{\"z\":[],\"y\":{}}}");
    emit("object", "{\"uuid\":[\"uuid\",\"550e8400-e29b-41d4-a716-446655440000\"]}");
    emit("object", "{\"set\":[\"set\",[[\"uuid\",\"550e8400-e29b-41d4-a716-446655440000\"]]]}");
    emit("object", "{\"map\":[\"map\",[[\"k\",\"v\"],[\"key of twenty-three b\",1]]]}");
    emit("object", "{\"method\":\"echo\",\"params\":[],\"id\":0}");
    emit("object", "{\"result\":{},\"error\":null,\"id\":\"x\"}");
    emit("object", "{\"method\":\"update\",\"params\":[null,{}],\"id\":null}");
    emit("object", "{1:2}");
    emit("object", "{\"a\" 1}");
    emit("object", "{\"a\":1,}");
}

static void
numbers(void)
{
    static const char *nums[] = {
        "0", "-0", "1", "-1", "9223372036854775807",
        "-9223372036854775808", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "1.5", "-0.0",
        "1e308", "1e309", "-1e400", "1e-400", "4.9e-324", "0.1e1",
        "1E+2", "1e-2", "123456789012345678901234567890", "01", "1.",
        ".5", "-", "1e", "1e+", "0x10", "NaN", "Infinity",
    };

    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        emitf("number", "[%s]", nums[i]);
        emitf("number", "{\"n\":%s}", nums[i]);
    }
}

static void
misc(void)
{
    emit("misc", "");
    emit("misc", "   ");
    emit("misc", "[true,false,null]");
    emit("misc", "[tru]");
    emit("misc", "[nul");
    emit("misc", "[1] [2]");
    emit("misc", "[1] x");
    emit("misc", "\"top-level string of 24 b\"");
    emit("misc", "[\"unterminated string of twenty");
    emit("misc", "[\"\\u");
    emit("misc", "\xef\xbb\xbf[1]");
}

int
main(int argc, char *argv[])
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    dir = argv[1];
    strings();
    arrays();
    nesting();
    objects();
    numbers();
    misc();
    printf("%u seeds in %s\n", n_seeds, dir);
    return 0;
}
