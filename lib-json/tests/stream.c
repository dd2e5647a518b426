/* Tests of lib-json's streaming parser (json_parser_set_member_cb() and
 * json_parser_set_text_member()):
 *
 *   stream [DIR...]
 *
 * - equality: on every file of each DIR (the conformance cases, the
 *   generated corpus) and on generated database-like documents, at member
 *   depths 1 to 4 and fed whole, byte by byte and in pieces, the members
 *   handed out are exactly the members at that depth of the tree that the
 *   non-streaming parse gives (same paths, same sorted serializations, same
 *   order), the tree that the streaming parse returns is that tree without
 *   them, and putting them back gives the same tree; declined members stay
 *   in the tree; an invalid document gives the same error either way;
 * - corruption at the first byte, in the middle of a member and at the
 *   last byte: the same error as the normal parser, and exactly the members
 *   that were complete before the damage;
 * - truncation at every length: the same error, and exactly the members
 *   complete before the cut;
 * - ownership: callbacks that free members at once, keep them until the
 *   end, or share them with json_clone(), parsers aborted in the middle of
 *   a member: every byte the library allocated is freed exactly once (the
 *   allocation counter below; in the ASan+UBSan build also ASan);
 * - bounded memory: a large generated document streamed with a callback
 *   that frees each row never holds more than a small, size-independent
 *   number of bytes, where the normal parse holds the whole tree;
 * - members kept as text (json_parser_set_text_member()): the input's own
 *   bytes however it is fed, the rest of the tree as usual, the normal
 *   parser's error for damage or truncation at every byte, a peak of at
 *   most twice the text, and nothing left by an abort.
 *
 * Link with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
 * (the static library): every allocation of lib-json goes through the
 * counter.  Prints "ok NAME" or "FAIL NAME: why" per case and ends with
 * "N passed, N failed". */

#include <dirent.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/dynamic-string.h"
#include "ovsjson/json.h"
#include "ovsjson/shash.h"
#include "cases.h"
#include "feed.h"
#include "xorshift.h"

/* Allocation counter. */

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);

static long long live_bytes;    /* Allocated and not yet freed. */
static long long peak_bytes;    /* Highest 'live_bytes' since reset. */
static long long n_blocks;      /* Live blocks. */

static void
count_in(void *p)
{
    if (p) {
        live_bytes += malloc_usable_size(p);
        n_blocks++;
        if (live_bytes > peak_bytes) {
            peak_bytes = live_bytes;
        }
    }
}

static void
count_out(void *p)
{
    if (p) {
        live_bytes -= malloc_usable_size(p);
        n_blocks--;
    }
}

void *
__wrap_malloc(size_t n)
{
    void *p = __real_malloc(n);
    count_in(p);
    return p;
}

void *
__wrap_calloc(size_t n, size_t size)
{
    void *p = __real_calloc(n, size);
    count_in(p);
    return p;
}

void *
__wrap_realloc(void *old, size_t n)
{
    size_t old_size = old ? malloc_usable_size(old) : 0;
    void *p = __real_realloc(old, n);

    if (p) {
        live_bytes += (long long) malloc_usable_size(p) - (long long) old_size;
        n_blocks += !old;
        if (live_bytes > peak_bytes) {
            peak_bytes = live_bytes;
        }
    }
    return p;
}

void
__wrap_free(void *p)
{
    count_out(p);
    __real_free(p);
}

/* Cases. */

/* Ends the current case, named by 'format'. */
static void __attribute__((format(printf, 1, 2)))
end(const char *format, ...)
{
    char name[512];
    va_list args;

    va_start(args, format);
    vsnprintf(name, sizeof name, format, args);
    va_end(args);
    case_end(name);
}

static void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        abort();
    }
    return p;
}

static char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

/* A list of members: "path: sorted serialization" lines. */
struct list {
    char **items;
    size_t n, alloc;
};

static void
list_add(struct list *l, char *item)
{
    if (l->n == l->alloc) {
        l->alloc = l->alloc ? 2 * l->alloc : 16;
        l->items = realloc(l->items, l->alloc * sizeof *l->items);
    }
    l->items[l->n++] = item;
}

static void
list_clear(struct list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i]);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* "names[0]/names[1]/...: value" */
static char *
member_line(const char *names[], size_t depth, const struct json *value)
{
    struct ds ds = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < depth; i++) {
        if (i) {
            ds_put_char(&ds, '/');
        }
        ds_put_cstr(&ds, names[i]);
    }
    if (value) {
        ds_put_cstr(&ds, ": ");
        json_to_ds(value, JSSF_SORT, &ds);
    } else {
        ds_put_cstr(&ds, " repeated");
    }
    return ds_steal_cstr(&ds);
}

/* Index of the first difference between 'a' and 'b', or SIZE_MAX. */
static size_t
list_diff(const struct list *a, const struct list *b)
{
    size_t n = a->n < b->n ? a->n : b->n;

    for (size_t i = 0; i < n; i++) {
        if (strcmp(a->items[i], b->items[i])) {
            return i;
        }
    }
    return a->n == b->n ? SIZE_MAX : n;
}

/* Appends to 'out' the members 'depth' levels deep of 'json' that the
 * streaming parser passes: those reached through objects only, in order. */
static void
walk(const struct json *json, size_t depth, const char *names[], size_t level,
     struct list *out)
{
    struct shash_node *node;

    if (json->type != JSON_OBJECT) {
        return;
    }
    SHASH_FOR_EACH (node, json_object(json)) {
        names[level] = node->name;
        if (level + 1 == depth) {
            list_add(out, member_line(names, depth, node->data));
        } else {
            walk(node->data, depth, names, level + 1, out);
        }
    }
}

static void
walk_members(const struct json *json, size_t depth, struct list *out)
{
    const char *names[8];
    walk(json, depth, names, 0, out);
}

/* A streaming parse. */
enum policy {
    TAKE_FREE,                  /* Take each member, free it at once. */
    TAKE_KEEP,                  /* Take each member, keep it until the end. */
    TAKE_SHARE,                 /* Keep a clone until the end, decline the
                                 * member. */
    DECLINE_SOME,               /* Decline every third member. */
    DECLINE_KEEP,               /* Decline the members whose names start
                                 * with "keep", as OVS's test-json does. */
};

struct stream_ctx {
    enum policy policy;
    struct list seen;           /* Every member offered, in order, and
                                 * with 'log_repeated', every repeat
                                 * reported. */
    bool log_repeated;          /* Which repeats are reported depends on
                                 * what the callback took, so only
                                 * test_repeated() logs them. */
    struct list declined;       /* The declined ones. */
    /* TAKE_KEEP, DECLINE_SOME: the members taken, with their names. */
    char ***names;
    struct json **values;
    size_t n_taken, alloc_taken;
    size_t n_offered;
    struct json **shared;       /* TAKE_SHARE: the clones. */
    size_t n_shared;
};

static bool
member_cb(void *aux, const char *names[], size_t depth, struct json *value)
{
    struct stream_ctx *ctx = aux;
    char *line = member_line(names, depth, value);
    bool take;

    if (!value) {
        /* A repeated member, reported: nothing to take. */
        if (ctx->log_repeated) {
            list_add(&ctx->seen, line);
        } else {
            free(line);
        }
        return false;
    }
    list_add(&ctx->seen, xstrdup(line));
    ctx->n_offered++;
    switch (ctx->policy) {
    case TAKE_FREE:
        free(line);
        json_destroy(value);
        return true;
    case TAKE_SHARE: {
        /* The callback keeps a reference and the tree keeps the member. */
        ctx->shared = realloc(ctx->shared,
                              (ctx->n_shared + 1) * sizeof *ctx->shared);
        ctx->shared[ctx->n_shared++] = json_clone(value);
        list_add(&ctx->declined, line);
        return false;
    }
    case DECLINE_SOME:
        take = ctx->n_offered % 3 != 0;
        break;
    case DECLINE_KEEP:
        take = strncmp(names[depth - 1], "keep", 4) != 0;
        break;
    case TAKE_KEEP:
    default:
        take = true;
        break;
    }
    if (!take) {
        list_add(&ctx->declined, line);
        return false;
    }
    free(line);
    if (ctx->n_taken == ctx->alloc_taken) {
        ctx->alloc_taken = ctx->alloc_taken ? 2 * ctx->alloc_taken : 16;
        ctx->names = realloc(ctx->names,
                             ctx->alloc_taken * sizeof *ctx->names);
        ctx->values = realloc(ctx->values,
                              ctx->alloc_taken * sizeof *ctx->values);
    }
    char **copy = xmalloc((depth + 1) * sizeof *copy);
    for (size_t i = 0; i < depth; i++) {
        copy[i] = xstrdup(names[i]);
    }
    copy[depth] = NULL;
    ctx->names[ctx->n_taken] = copy;
    ctx->values[ctx->n_taken++] = value;
    return true;
}

static void
ctx_clear(struct stream_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_taken; i++) {
        for (char **n = ctx->names[i]; *n; n++) {
            free(*n);
        }
        free(ctx->names[i]);
        json_destroy(ctx->values[i]);
    }
    free(ctx->names);
    free(ctx->values);
    for (size_t i = 0; i < ctx->n_shared; i++) {
        json_destroy(ctx->shared[i]);
    }
    free(ctx->shared);
    list_clear(&ctx->seen);
    list_clear(&ctx->declined);
    memset(ctx, 0, sizeof *ctx);
}

/* Parses the 'n' bytes at 's' with members at 'depth' going to member_cb(),
 * fed in pieces of 'piece' bytes (0: all at once). */
static struct json *
stream_parse(const char *s, size_t n, size_t depth, size_t piece,
             struct stream_ctx *ctx)
{
    struct json_parser *p = json_parser_create(JSPF_TRAILER);

    json_parser_set_member_cb(p, depth, member_cb, ctx);
    feed_pieces(p, s, n, piece);
    return json_parser_finish(p);
}

static char *
ser(const struct json *j)
{
    return json_to_string(j, JSSF_SORT);
}

static bool
is_error(const struct json *j)
{
    return j->type == JSON_STRING;
}

/* Puts the taken members of 'ctx' back into 'tree' at their paths. */
static bool
put_back(struct json *tree, struct stream_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_taken; i++) {
        struct json *obj = tree;
        char **names = ctx->names[i];
        size_t k;

        for (k = 0; names[k + 1]; k++) {
            obj = json_object_get(obj, names[k]);
            if (!obj || obj->type != JSON_OBJECT) {
                return false;
            }
        }
        json_object_put(obj, names[k], ctx->values[i]);
        ctx->values[i] = NULL;
    }
    return true;
}

/* Does a streaming parse of the document and compares with 'full', the
 * normal parse.  Returns false (with case_why[] set) on a difference.
 *
 * 'dups': the document repeats a name in an object on the way to the
 * members, so the callback gets members that the normal parse replaced.
 * Then only the error, or the tree with every member declined, can be
 * compared.
 *
 * 'ref', if nonnull: the members offered by an earlier parse of the same
 * document at the same depth (set by the first call), which every other
 * parse must repeat, however it is fed and whatever the callback does:
 * the check for invalid documents, where there is no tree to compare. */
static bool
check_stream(const char *label, const char *s, size_t n,
             const struct json *full, size_t depth, size_t piece,
             enum policy policy, bool dups, struct list *ref)
{
    struct stream_ctx ctx = { .policy = policy };
    long long blocks0 = n_blocks, bytes0 = live_bytes;
    struct json *got = stream_parse(s, n, depth, piece, &ctx);
    bool ok = true;

#define BAD(...) (case_failed(__VA_ARGS__), ok = false)
    if (ref && !ref->items) {
        /* Kept by the caller: not a leak. */
        *ref = ctx.seen;
        memset(&ctx.seen, 0, sizeof ctx.seen);
        if (ref->items) {
            blocks0 += ref->n + 1;
            bytes0 += malloc_usable_size(ref->items);
            for (size_t i = 0; i < ref->n; i++) {
                bytes0 += malloc_usable_size(ref->items[i]);
            }
        }
    } else if (ref) {
        size_t d = list_diff(ref, &ctx.seen);
        if (d != SIZE_MAX) {
            BAD("%s depth %zu piece %zu policy %d: member #%zu: %.150s, "
                "the first parse got %.150s", label, depth, piece,
                (int) policy, d, d < ctx.seen.n ? ctx.seen.items[d] : "(none)",
                d < ref->n ? ref->items[d] : "(none)");
        }
    }
    if (is_error(full) || is_error(got)) {
        if (!is_error(full) || !is_error(got)
            || strcmp(json_string(full), json_string(got))) {
            char *a = ser(full), *b = ser(got);
            BAD("%s depth %zu piece %zu: normal parse %.150s, streaming "
                "%.150s", label, depth, piece, a, b);
            free(a);
            free(b);
        }
    } else {
        struct list want = { 0 }, rest = { 0 };
        size_t d;

        /* Every member offered, in order. */
        walk_members(full, depth, &want);
        d = dups ? SIZE_MAX : list_diff(&want, ref ? ref : &ctx.seen);
        if (d != SIZE_MAX) {
            BAD("%s depth %zu piece %zu: member #%zu: tree has %.150s, "
                "callback got %.150s (%zu and %zu members)", label, depth,
                piece, d, d < want.n ? want.items[d] : "(none)",
                d < ctx.seen.n ? ctx.seen.items[d] : "(none)", want.n,
                ctx.seen.n);
        }
        /* Only the declined ones are left in the tree. */
        walk_members(got, depth, &rest);
        d = dups ? SIZE_MAX : list_diff(&rest, &ctx.declined);
        if (ok && d != SIZE_MAX) {
            BAD("%s depth %zu piece %zu: left in the tree #%zu: %.150s, "
                "declined: %.150s", label, depth, piece, d,
                d < rest.n ? rest.items[d] : "(none)",
                d < ctx.declined.n ? ctx.declined.items[d] : "(none)");
        }
        /* And with the taken ones put back (unless the callback freed
         * them), it is the same tree. */
        if (policy == TAKE_FREE || (dups && policy != TAKE_SHARE)) {
            /* Nothing to put back, or cannot be compared. */
        } else if (ok && !put_back(got, &ctx)) {
            BAD("%s depth %zu: a taken member's parent is not in the tree",
                label, depth);
        }
        if (ok && policy != TAKE_FREE && (!dups || policy == TAKE_SHARE)) {
            char *a = ser(full), *b = ser(got);
            if (strcmp(a, b) || !json_equal(full, got)) {
                BAD("%s depth %zu piece %zu: rebuilt %.150s, normal %.150s",
                    label, depth, piece, b, a);
            }
            free(a);
            free(b);
        }
        list_clear(&want);
        list_clear(&rest);
    }
    json_destroy(got);
    ctx_clear(&ctx);
    if (n_blocks != blocks0 || live_bytes != bytes0) {
        BAD("%s depth %zu piece %zu policy %d: %lld blocks, %lld bytes not "
            "freed (or freed twice)", label, depth, piece, (int) policy,
            n_blocks - blocks0, live_bytes - bytes0);
    }
#undef BAD
    return ok;
}

/* A scanner of valid JSON text, independent of the parser's member
 * handling: finds an object, reached through objects only at a level
 * below 4, that has a name twice (after unescaping).  There, the callback
 * gets members that the normal parse replaced. */
static const char *
skip_space(const char *s, const char *e)
{
    while (s < e && strchr(" \t\r\n", *s)) {
        s++;
    }
    return s;
}

/* 's' is at a '"'; returns the byte after the closing quote.  Stores the
 * unescaped string in '*name' if 'name' is nonnull. */
static const char *
scan_string(const char *s, const char *e, char **name)
{
    const char *body = ++s;

    while (s < e && *s != '"') {
        s += *s == '\\' ? 2 : 1;
    }
    if (name && !json_string_unescape(body, s - body, name)) {
        free(*name);
        *name = NULL;
    }
    return s + 1;
}

static const char *
scan_value(const char *s, const char *e, int level, bool on_path, bool *dup)
{
    s = skip_space(s, e);
    if (s >= e) {
        return e;
    }
    if (*s == '"') {
        return scan_string(s, e, NULL);
    } else if (*s == '[') {
        s = skip_space(s + 1, e);
        while (s < e && *s != ']') {
            s = skip_space(scan_value(s, e, level + 1, false, dup), e);
            s += s < e && *s == ',';
        }
        return s + 1;
    } else if (*s == '{') {
        struct list names = { 0 };

        s = skip_space(s + 1, e);
        while (s < e && *s == '"') {
            char *name = NULL;

            s = skip_space(scan_string(s, e, &name), e) + 1;   /* ':' */
            if (on_path && level < 4 && name) {
                for (size_t i = 0; i < names.n; i++) {
                    *dup |= !strcmp(names.items[i], name);
                }
                list_add(&names, name);
            } else {
                free(name);
            }
            s = skip_space(scan_value(s, e, level + 1, on_path, dup), e);
            s = skip_space(s + (s < e && *s == ','), e);
        }
        list_clear(&names);
        return s + 1;
    } else {
        while (s < e && !strchr(",]} \t\r\n", *s)) {
            s++;
        }
        return s;
    }
}

static bool
has_duplicate_names(const char *s, size_t n)
{
    struct json *full = json_from_buffer(s, n);
    bool dup = false;

    if (!is_error(full)) {
        scan_value(s, s + n, 0, true, &dup);
    }
    json_destroy(full);
    return dup;
}

static char *
read_file(const char *name, size_t *np)
{
    FILE *f = fopen(name, "rb");
    size_t n = 0, alloc = 1 << 16, got;
    char *s;

    if (!f) {
        return NULL;
    }
    s = xmalloc(alloc);
    while ((got = fread(s + n, 1, alloc - n, f)) > 0) {
        n += got;
        if (n == alloc) {
            alloc *= 2;
            s = realloc(s, alloc);
        }
    }
    fclose(f);
    *np = n;
    return s;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Equality on every file of 'dir'. */
static void
test_dir(const char *dir)
{
    static const size_t pieces[] = { 0, 1, 7, 4096 };
    static const enum policy policies[] = {
        TAKE_FREE, TAKE_KEEP, TAKE_SHARE, DECLINE_SOME,
    };
    struct list files = { 0 };
    size_t n_docs = 0, n_invalid = 0, n_dup = 0, n_runs = 0;
    struct dirent *de;
    DIR *d = opendir(dir);

    case_begin();
    if (!d) {
        case_failed("cannot open %s", dir);
        end("equality: %s", dir);
        return;
    }
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len > 5 && !strcmp(de->d_name + len - 5, ".json")
            && strncmp(de->d_name, "multi", 5)) {
            struct ds path = DS_EMPTY_INITIALIZER;
            ds_put_format(&path, "%s/%s", dir, de->d_name);
            list_add(&files, ds_steal_cstr(&path));
        }
    }
    closedir(d);
    qsort(files.items, files.n, sizeof *files.items, compare_names);

    for (size_t i = 0; i < files.n && !case_why[0]; i++) {
        const char *label = strrchr(files.items[i], '/') + 1;
        size_t n;
        char *s = read_file(files.items[i], &n);
        struct json *full;

        if (!s) {
            case_failed("cannot read %s", files.items[i]);
            break;
        }
        n_docs++;
        full = json_from_buffer(s, n);
        n_invalid += is_error(full);
        bool dups = has_duplicate_names(s, n);
        n_dup += dups;
        for (size_t depth = 1; depth <= 4; depth++) {
            struct list ref = { 0 };
            for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
                if (pieces[k] == 1 && n > 20000) {
                    continue;
                }
                for (size_t m = 0; m < sizeof policies / sizeof *policies;
                     m++) {
                    n_runs++;
                    if (!check_stream(label, s, n, full, depth, pieces[k],
                                      policies[m], dups, &ref)) {
                        list_clear(&ref);
                        goto next;
                    }
                }
            }
            list_clear(&ref);
        }
    next:
        json_destroy(full);
        free(s);
    }
    list_clear(&files);
    end("equality: %zu documents of %s (%zu invalid: the same error and the "
        "same members however fed, %zu with a duplicate name: declining all "
        "gives the same tree), %zu streaming parses, depths 1-4, fed whole, by "
        "1, 7, 4096 bytes; members taken, kept, shared, declined",
        n_docs, dir, n_invalid, n_dup, n_runs);
}

/* Generated OVSDB-like documents: {"Table": {"uuid": {row}, ...}, ...},
 * with the byte range of each row (member at depth 2) recorded. */

static uint64_t rng = XORSHIFT_SEED;

static uint32_t
rnd(void)
{
    return xorshift_next(&rng);
}

struct doc {
    struct ds text;
    size_t n_rows;
    size_t *row_start;          /* Offset of the row's name. */
    size_t *row_end;            /* Offset of the row's closing '}'. */
};

static void
gen_uuid(struct ds *ds)
{
    ds_put_format(ds, "\"%08x-%04x-%04x-%04x-%04x%08x\"", rnd(),
                  rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff,
                  rnd() & 0xffff, rnd());
}

static void
gen_row(struct ds *ds)
{
    static const char *const words[] = {
        "router", "switch-port", "a much longer name, beyond 23 bytes",
        "esc\\\"aped\\n\\u00e9", "", "x",
    };
    size_t n_cols = 3 + rnd() % 6;

    ds_put_char(ds, '{');
    for (size_t c = 0; c < n_cols; c++) {
        if (c) {
            ds_put_cstr(ds, rnd() % 4 ? "," : ",\n  ");
        }
        ds_put_format(ds, "\"col%zu\":", c);
        switch (rnd() % 7) {
        case 0:
            ds_put_format(ds, "\"%s\"", words[rnd() % 6]);
            break;
        case 1:
            ds_put_format(ds, "%d", (int) (rnd() % 200000) - 100000);
            break;
        case 2:
            ds_put_format(ds, "%u.%u", rnd() % 1000, rnd() % 1000);
            break;
        case 3:
            ds_put_cstr(ds, "[\"uuid\",");
            gen_uuid(ds);
            ds_put_char(ds, ']');
            break;
        case 4: {
            size_t k = rnd() % 5;
            ds_put_cstr(ds, "[\"set\",[");
            for (size_t i = 0; i < k; i++) {
                ds_put_cstr(ds, i ? ",[\"uuid\"," : "[\"uuid\",");
                gen_uuid(ds);
                ds_put_char(ds, ']');
            }
            ds_put_cstr(ds, "]]");
            break;
        }
        case 5:
            ds_put_format(ds, "[\"map\",[[\"k%u\",\"%s\"],[\"k\",{\"o\":"
                          "{\"p\":true}}]]]", rnd() % 10, words[rnd() % 6]);
            break;
        default:
            ds_put_format(ds, "{\"n\":{\"m\":%s,\"l\":[{\"q\":null}]}}",
                          rnd() % 2 ? "false" : "[]");
            break;
        }
    }
    ds_put_char(ds, '}');
}

/* A document of 'n_tables' tables of 'n_rows' rows each. */
static void
gen_doc(struct doc *doc, size_t n_tables, size_t n_rows)
{
    size_t r = 0;

    ds_init(&doc->text);
    doc->n_rows = n_tables * n_rows;
    doc->row_start = xmalloc(doc->n_rows * sizeof *doc->row_start);
    doc->row_end = xmalloc(doc->n_rows * sizeof *doc->row_end);
    ds_put_cstr(&doc->text, "{");
    for (size_t t = 0; t < n_tables; t++) {
        ds_put_format(&doc->text, "%s\"Table_%zu\": {\n", t ? ",\n" : "",
                      t);
        for (size_t i = 0; i < n_rows; i++, r++) {
            if (i) {
                ds_put_cstr(&doc->text, ",\n");
            }
            doc->row_start[r] = doc->text.length;
            gen_uuid(&doc->text);
            ds_put_cstr(&doc->text, ": ");
            gen_row(&doc->text);
            doc->row_end[r] = doc->text.length - 1;
        }
        ds_put_cstr(&doc->text, "}");
    }
    ds_put_cstr(&doc->text, ",\"_comment\":\"generated\",\"_date\":1}\n");
}

static void
doc_destroy(struct doc *doc)
{
    ds_destroy(&doc->text);
    free(doc->row_start);
    free(doc->row_end);
}

static void
test_generated(void)
{
    static const size_t pieces[] = { 0, 1, 13, 65536 };
    size_t n_runs = 0;

    case_begin();
    for (size_t i = 0; i < 12 && !case_why[0]; i++) {
        struct doc doc;
        struct json *full;
        char label[32];

        gen_doc(&doc, 1 + i % 4, i * 7);
        snprintf(label, sizeof label, "generated #%zu", i);
        full = json_from_buffer(doc.text.string, doc.text.length);
        if (is_error(full)) {
            case_failed("%s does not parse: %s", label, json_string(full));
        }
        for (size_t depth = 1; depth <= 4 && !case_why[0]; depth++) {
            for (size_t k = 0; k < 4; k++) {
                for (int m = TAKE_FREE; m <= DECLINE_SOME; m++) {
                    n_runs++;
                    check_stream(label, doc.text.string, doc.text.length,
                                 full, depth, pieces[k], m, false, NULL);
                }
            }
        }
        json_destroy(full);
        doc_destroy(&doc);
    }
    end("equality: 12 generated OVSDB-like documents, %zu streaming parses",
        n_runs);
}

/* The members complete before offset 'limit' (a row's last byte), as the
 * streaming parser must have passed them. */
static void
rows_before(const struct doc *doc, const struct list *all, size_t limit,
            struct list *out)
{
    for (size_t r = 0; r < doc->n_rows && doc->row_end[r] < limit; r++) {
        list_add(out, xstrdup(all->items[r]));
    }
}

/* Streams 'text' at depth 2 and checks the error and the rows passed. */
static void
check_damaged(const char *what, const char *s, size_t n,
              const struct list *want)
{
    struct json *full = json_from_buffer(s, n);

    for (size_t k = 0; k < 2; k++) {
        struct stream_ctx ctx = { .policy = TAKE_FREE };
        struct json *got = stream_parse(s, n, 2, k ? 5 : 0, &ctx);
        size_t d = list_diff(want, &ctx.seen);

        if (!is_error(full)) {
            case_failed("%s: the normal parser accepts it", what);
        } else if (!is_error(got)
                   || strcmp(json_string(full), json_string(got))) {
            char *b = ser(got);
            case_failed("%s: normal parser: %s; streaming: %.200s", what,
                        json_string(full), b);
            free(b);
        } else if (d != SIZE_MAX) {
            case_failed("%s: row #%zu passed: %.100s, expected %.100s "
                        "(%zu and %zu rows)", what, d,
                        d < ctx.seen.n ? ctx.seen.items[d] : "(none)",
                        d < want->n ? want->items[d] : "(none)", ctx.seen.n,
                        want->n);
        }
        json_destroy(got);
        ctx_clear(&ctx);
    }
    json_destroy(full);
}

static void
test_damage(void)
{
    long long blocks0 = n_blocks, bytes0 = live_bytes;
    struct doc doc;
    struct list all = { 0 };
    struct json *full;
    size_t n_cases = 0, n_trunc = 0;

    case_begin();
    gen_doc(&doc, 3, 40);
    full = json_from_buffer(doc.text.string, doc.text.length);
    walk_members(full, 2, &all);
    json_destroy(full);
    if (all.n != doc.n_rows) {
        case_failed("generator: %zu rows, the parse has %zu", doc.n_rows,
                    all.n);
    }

    /* A byte replaced by U+0001, an error both inside and outside
     * strings: at the first byte, in the middle of rows (the first, some
     * in between, the last), and at the last byte. */
    char *s = xmalloc(doc.text.length);
    size_t n = doc.text.length;
    size_t at[16];
    size_t n_at = 0;
    at[n_at++] = 0;
    for (size_t r = 0; r < doc.n_rows; r += doc.n_rows / 4 - 1) {
        at[n_at++] = (doc.row_start[r] + doc.row_end[r]) / 2;
    }
    at[n_at++] = (doc.row_start[doc.n_rows - 1]
                  + doc.row_end[doc.n_rows - 1]) / 2;
    at[n_at++] = n - 2;         /* The last '}' (a newline follows). */
    at[n_at++] = n - 1;         /* The very last byte. */
    for (size_t i = 0; i < n_at && !case_why[0]; i++) {
        struct list want = { 0 };
        char what[64];

        memcpy(s, doc.text.string, n);
        s[at[i]] = '\x01';
        rows_before(&doc, &all, at[i], &want);
        snprintf(what, sizeof what, "byte %zu of %zu damaged", at[i], n);
        check_damaged(what, s, n, &want);
        list_clear(&want);
        n_cases++;
    }

    free(s);
    list_clear(&all);
    doc_destroy(&doc);

    /* A smaller one truncated at every length. */
    gen_doc(&doc, 2, 8);
    full = json_from_buffer(doc.text.string, doc.text.length);
    walk_members(full, 2, &all);
    json_destroy(full);
    n = doc.text.length;
    for (size_t len = 0; len < n && !case_why[0]; len++) {
        struct list want = { 0 };
        char what[64];

        rows_before(&doc, &all, len, &want);
        snprintf(what, sizeof what, "truncated to %zu of %zu bytes", len, n);
        /* The whole document minus its final newline is complete. */
        if (len != n - 1) {
            check_damaged(what, doc.text.string, len, &want);
            n_trunc++;
        }
        list_clear(&want);
    }
    list_clear(&all);
    doc_destroy(&doc);
    if (n_blocks != blocks0 || live_bytes != bytes0) {
        case_failed("%lld blocks, %lld bytes not freed (or freed twice)",
                    n_blocks - blocks0, live_bytes - bytes0);
    }
    end("damage: %zu damaged documents (first byte, middle of rows, last "
        "bytes) and %zu truncations give the normal parser's error and "
        "exactly the rows before the damage", n_cases, n_trunc);
}

/* Ownership: abort in the middle of a member, with members kept. */
static void
test_abort(void)
{
    long long blocks0 = n_blocks, bytes0 = live_bytes;
    struct doc doc;
    size_t n_cases = 0;

    case_begin();
    gen_doc(&doc, 2, 30);
    for (size_t r = 0; r < doc.n_rows; r += 3) {
        size_t cut = (doc.row_start[r] + doc.row_end[r]) / 2;
        for (int m = TAKE_FREE; m <= DECLINE_SOME; m++) {
            struct stream_ctx ctx = { .policy = m };
            struct json_parser *p = json_parser_create(0);

            json_parser_set_member_cb(p, 2, member_cb, &ctx);
            json_parser_feed(p, doc.text.string, cut);
            json_parser_abort(p);
            if (ctx.n_offered != r) {
                case_failed("aborted in row %zu: %zu rows offered", r,
                            ctx.n_offered);
            }
            ctx_clear(&ctx);
            n_cases++;
        }
    }
    doc_destroy(&doc);
    if (n_blocks != blocks0 || live_bytes != bytes0) {
        case_failed("%lld blocks, %lld bytes not freed (or freed twice)",
                    n_blocks - blocks0, live_bytes - bytes0);
    }
    end("ownership: %zu parsers aborted in the middle of a row free "
        "everything exactly once", n_cases);
}

/* Bounded memory. */

struct peak {
    size_t rows;                /* Rows seen by the callback. */
};

static bool
consume_row(void *aux, const char *names[], size_t depth, struct json *row)
{
    struct peak *pk = aux;

    (void) names;
    (void) depth;
    pk->rows++;
    json_destroy(row);
    return true;
}

/* Feeds the 'n' bytes at 's' to 'p' in 64 kB pieces and finishes it.
 * Returns the peak of the bytes held since they were 'base' (and
 * 'peak_bytes' was reset), and stores in '*kept', if nonnull, what the
 * result held. */
static long long
held_while_parsing(struct json_parser *p, const char *s, size_t n,
                   long long base, long long *kept)
{
    struct json *result;

    feed_pieces(p, s, n, 65536);
    result = json_parser_finish(p);
    if (is_error(result)) {
        case_failed("generated document: %s", json_string(result));
    }
    if (kept) {
        *kept = live_bytes - base;
    }
    json_destroy(result);
    return peak_bytes - base;
}

/* Feeds 'doc' in 64 kB pieces; returns the peak of the bytes the parse
 * held, streaming at depth 2 if 'streaming'. */
static long long
parse_peak(const struct doc *doc, bool streaming, struct peak *pk)
{
    long long base = live_bytes;
    struct json_parser *p;

    memset(pk, 0, sizeof *pk);
    peak_bytes = live_bytes;
    p = json_parser_create(JSPF_TRAILER);
    if (streaming) {
        json_parser_set_member_cb(p, 2, consume_row, pk);
    }
    return held_while_parsing(p, doc->text.string, doc->text.length, base,
                              NULL);
}

static void
test_peak(void)
{
    struct doc small, large;
    struct peak pk_small, pk_large, pk_full;
    long long full, stream_small, stream_large;

    case_begin();
    rng = 1234567;
    gen_doc(&small, 5, 1000);
    rng = 7654321;
    gen_doc(&large, 10, 4000);
    full = parse_peak(&large, false, &pk_full);
    stream_small = parse_peak(&small, true, &pk_small);
    stream_large = parse_peak(&large, true, &pk_large);

    if (pk_large.rows != large.n_rows || pk_small.rows != small.n_rows) {
        case_failed("rows passed: %zu of %zu, %zu of %zu", pk_small.rows,
                    small.n_rows, pk_large.rows, large.n_rows);
    } else if (stream_large > 256 * 1024) {
        case_failed("streaming %zu bytes held %lld bytes at the peak "
                    "(limit 256 kB)", large.text.length, stream_large);
    } else if (stream_large > stream_small + stream_small / 2) {
        case_failed("the streaming peak grows with the document: %lld bytes "
                    "for %zu bytes, %lld for %zu", stream_small,
                    small.text.length, stream_large, large.text.length);
    } else if (stream_large * 50 > full) {
        case_failed("streaming peak %lld bytes is not under 1/50 of the "
                    "normal parse's %lld", stream_large, full);
    }
    end("bounded memory: streaming %.1f MB (%zu rows) holds at most %lld "
        "bytes (%.1f MB: %lld), the normal parse %.1f MB",
        large.text.length / 1e6, large.n_rows, stream_large,
        small.text.length / 1e6, stream_small, full / 1e6);
    doc_destroy(&small);
    doc_destroy(&large);
}

/* Repeated members above the callback's depth, and repeats of declined
 * members at it, are reported, once per repeat, before they are passed
 * on; a container above that depth when it starts.  Repeats of taken
 * members, deeper repeats and repeats inside arrays are not.  The same
 * document and expected lines as the json.at test of OVS's parser with
 * ovs-json-perf's series. */
static void
test_repeated(void)
{
    static const char doc[] =
        "{\"a\": {\"x\": 1, \"x\": 2, \"keep\": 3, \"keep\": 4, "
        "\"y\": {\"z\": 5, \"z\": 6},\n"
        "       \"keep2\": 7, \"keep2\": 8, \"y\": 9},\n"
        " \"a\": {\"w\": 10}, \"b\": [{\"c\": 1, \"c\": 2}], \"b\": 3, "
        "\"d\": {}}\n";
    static const char *const want2[] = {
        "a/x: 1", "a/x: 2", "a/keep: 3", "a/keep repeated", "a/keep: 4",
        "a/y: {\"z\":6}", "a/keep2: 7", "a/keep2 repeated", "a/keep2: 8",
        "a/y: 9", "a repeated", "a/w: 10", "b repeated",
    };
    /* The same with every member taken: no repeat at depth 2 is. */
    static const char *const want2_taken[] = {
        "a/x: 1", "a/x: 2", "a/keep: 3", "a/keep: 4", "a/y: {\"z\":6}",
        "a/keep2: 7", "a/keep2: 8", "a/y: 9", "a repeated", "a/w: 10",
        "b repeated",
    };
    static const char *const want1[] = {
        "a: {\"keep\":4,\"keep2\":8,\"x\":2,\"y\":9}", "a: {\"w\":10}",
        "b: [{\"c\":2}]", "b: 3", "d: {}",
    };
    static const struct {
        size_t depth;
        enum policy policy;
        const char *const *want;
        size_t n;
        const char *tree;       /* What is left in the tree. */
    } runs[] = {
        { 2, DECLINE_KEEP, want2, sizeof want2 / sizeof *want2,
          "{\"a\":{},\"b\":3,\"d\":{}}" },
        { 2, TAKE_FREE, want2_taken, sizeof want2_taken / sizeof *want2_taken,
          "{\"a\":{},\"b\":3,\"d\":{}}" },
        { 1, DECLINE_KEEP, want1, sizeof want1 / sizeof *want1, "{}" },
    };
    static const size_t pieces[] = { 0, 1, 5 };

    case_begin();
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            struct stream_ctx ctx = { .policy = runs[r].policy,
                                      .log_repeated = true };
            struct json *got = stream_parse(doc, strlen(doc), runs[r].depth,
                                            pieces[k], &ctx);
            char *tree = ser(got);

            for (size_t i = 0; i < runs[r].n || i < ctx.seen.n; i++) {
                const char *a = i < runs[r].n ? runs[r].want[i] : "(none)";
                const char *b = i < ctx.seen.n ? ctx.seen.items[i] : "(none)";
                if (strcmp(a, b)) {
                    case_failed("depth %zu policy %d piece %zu: line %zu "
                                "is %s, expected %s", runs[r].depth,
                                (int) runs[r].policy, pieces[k], i, b, a);
                    break;
                }
            }
            if (strcmp(tree, runs[r].tree)) {
                case_failed("depth %zu policy %d piece %zu: tree %s, "
                            "expected %s", runs[r].depth,
                            (int) runs[r].policy, pieces[k], tree,
                            runs[r].tree);
            }
            free(tree);
            json_destroy(got);
            ctx_clear(&ctx);
        }
    }
    end("repeated members: reported above the depth and for declined "
        "members at it, however fed, as by OVS's parser with the series");
}

/* Members kept as text (json_parser_set_text_member()). */

/* Parses the 'n' bytes at 's' keeping the outermost object's members
 * 'name' as text, fed 'piece' bytes at a time (0: all at once). */
static struct json *
text_parse(const char *s, size_t n, const char *name, size_t piece)
{
    struct json_parser *p = json_parser_create(JSPF_TRAILER);

    json_parser_set_text_member(p, name);
    feed_pieces(p, s, n, piece);
    return json_parser_finish(p);
}

/* Compares 'got', a parse of a document with members 'name' kept as text,
 * with 'full', the normal parse of it: the same error, or the same members
 * but for 'name', whose value, if an object or an array, is a serialized
 * object whose text parses to the normal value and is 'want' if nonnull.
 * Returns false (with case_why[] set) on a difference. */
static bool
check_text(const char *label, const struct json *full, const struct json *got,
           const char *name, const char *want)
{
    if (is_error(full) || is_error(got)) {
        if (!is_error(full) || !is_error(got)
            || strcmp(json_string(full), json_string(got))) {
            char *a = ser(full), *b = ser(got);
            case_failed("%s: normal parse %.200s, with the text member "
                        "%.200s", label, a, b);
            free(a);
            free(b);
            return false;
        }
        return true;
    }
    if (full->type != JSON_OBJECT) {
        if (!json_equal(full, got)) {
            case_failed("%s: not an object, yet the trees differ", label);
            return false;
        }
        return true;
    }
    if (got->type != JSON_OBJECT
        || shash_count(json_object(full)) != shash_count(json_object(got))) {
        case_failed("%s: the members differ", label);
        return false;
    }

    struct shash_node *node;
    SHASH_FOR_EACH (node, json_object(full)) {
        const struct json *a = node->data;
        const struct json *b = shash_find_data(json_object(got), node->name);
        bool as_text = !strcmp(node->name, name)
                       && (a->type == JSON_OBJECT || a->type == JSON_ARRAY);

        if (!b) {
            case_failed("%s: member %s missing", label, node->name);
            return false;
        } else if (!as_text) {
            if (b->type == JSON_SERIALIZED_OBJECT || !json_equal(a, b)) {
                case_failed("%s: member %s differs", label, node->name);
                return false;
            }
            continue;
        } else if (b->type != JSON_SERIALIZED_OBJECT) {
            case_failed("%s: member %s is not kept as text", label, name);
            return false;
        }

        const char *text = json_serialized_object(b);
        struct json *reparsed = json_from_string(text);
        bool same = json_equal(a, reparsed);
        json_destroy(reparsed);
        if (!same || (want && strcmp(text, want))) {
            case_failed("%s: text of %s is %.200s%s", label, name, text,
                        same ? ", not the input's bytes"
                             : ", which does not parse to the value");
            return false;
        }
    }
    return true;
}

/* Appends 'doc' to 'ds' as a member's value: without the new-line that
 * gen_doc() ends it with. */
static void
put_doc_value(struct ds *ds, const struct doc *doc)
{
    ds_put_buffer(ds, doc->text.string, doc->text.length - 1);
}

/* Exact bytes, however the input is split: generated database documents
 * as the value of "prev_data" (an object, and [schema, data] as in a raft
 * header), with other members, deeper members of that name, a member of
 * that name that is a scalar, and repeats (the last counts). */
static void
test_text_member(void)
{
    static const size_t pieces[] = { 0, 1, 3, 7, 4096 };
    size_t n_runs = 0;

    case_begin();
    for (size_t i = 0; i < 6 && !case_why[0]; i++) {
        struct doc doc;
        struct ds value = DS_EMPTY_INITIALIZER;
        struct ds text = DS_EMPTY_INITIALIZER;
        char label[64];

        rng = 4242 + i;
        gen_doc(&doc, 1 + i % 3, 3 + i * 5);
        if (i % 2) {
            ds_put_cstr(&value, "[ {\"name\": \"DB\", \"tables\": {\"T\":"
                        " {\"columns\": {\"prev_data\": [1]}}}},\n");
            ds_put_buffer(&value, doc.text.string, doc.text.length);
            ds_put_cstr(&value, "  ]");
        } else {
            put_doc_value(&value, &doc);
        }
        ds_put_cstr(&text, "{\"h\": [1, {\"prev_data\": [2]}], "
                    "\"term\": 3,\n");
        if (i >= 2) {
            /* Repeats: a scalar, then another value; the last counts. */
            ds_put_cstr(&text, "\"prev_data\": 17, \"prev_data\" : "
                        "{\"x\": [ ]}, ");
        }
        ds_put_cstr(&text, "\"prev_data\" :\t");
        ds_put_buffer(&text, value.string, value.length);
        ds_put_cstr(&text, " ,\"z\": {\"prev_data\": {\"y\": null}}}\n");

        struct json *full = json_from_buffer(text.string, text.length);
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            struct json *got = text_parse(text.string, text.length,
                                          "prev_data", pieces[k]);
            snprintf(label, sizeof label, "document #%zu by %zu", i,
                     pieces[k]);
            n_runs++;
            if (is_error(full)) {
                case_failed("%s: %s", label, json_string(full));
            }
            check_text(label, full, got, "prev_data", value.string);
            json_destroy(got);
        }
        /* A member of that name that is a scalar: parsed as usual. */
        struct json *got = text_parse(text.string, text.length, "term", 3);
        check_text("scalar member", full, got, "term", NULL);
        json_destroy(got);

        json_destroy(full);
        ds_destroy(&value);
        ds_destroy(&text);
        doc_destroy(&doc);
    }

    /* The bytes of a number from a null byte on do not count, in the text
     * either, however the input is split. */
    static const char nul[] = "{\"prev_data\": [1\0009, {\"n\": 2\0\0}],"
                              " \"b\": 4\0005}";
    struct json *nul_full = json_from_buffer(nul, sizeof nul - 1);
    char label[64];
    for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
        struct json *got = text_parse(nul, sizeof nul - 1, "prev_data",
                                      pieces[k]);
        snprintf(label, sizeof label, "null byte in a number by %zu",
                 pieces[k]);
        n_runs++;
        check_text(label, nul_full, got, "prev_data", "[1, {\"n\": 2}]");
        json_destroy(got);
    }
    json_destroy(nul_full);

    /* Only the outermost object's members count. */
    static const char nested[] = "[{\"prev_data\": {\"a\": 1}}]";
    struct json *full = json_from_string(nested);
    struct json *got = text_parse(nested, strlen(nested), "prev_data", 0);
    check_text("outermost array", full, got, "prev_data", NULL);
    json_destroy(full);
    json_destroy(got);

    end("text members: %zu parses of 6 generated documents and a number "
        "with a null byte, fed whole and by 1, 3, 7, 4096 bytes: the input's "
        "own bytes, the rest as usual", n_runs);
}

/* True if objects 'a' and 'b' have the same members, equal but for the
 * member 'skip', which both have. */
static bool
equal_but(const struct json *a, const struct json *b, const char *skip)
{
    struct shash_node *node;

    if (a->type != JSON_OBJECT || b->type != JSON_OBJECT
        || shash_count(json_object(a)) != shash_count(json_object(b))
        || !shash_find(json_object(b), skip)) {
        return false;
    }
    SHASH_FOR_EACH (node, json_object(a)) {
        const struct json *other = shash_find_data(json_object(b),
                                                   node->name);
        if (!other || (strcmp(node->name, skip)
                       && !json_equal(node->data, other))) {
            return false;
        }
    }
    return true;
}

/* Members at a depth (json_parser_set_text_member_depth()): generated
 * database documents as the "data" of a JSON-RPC request's parameters, at
 * depth 3, as raft's install_snapshot_request carries its snapshot, fed
 * whole and in pieces: that member is the input's own bytes, and "data"
 * members at depths 1 and 4 are parsed as usual. */
static void
test_text_member_depth(void)
{
    static const size_t pieces[] = { 0, 1, 3, 7, 4096 };
    size_t n_runs = 0;

    case_begin();
    for (size_t i = 0; i < 4 && !case_why[0]; i++) {
        struct doc doc;
        struct ds value = DS_EMPTY_INITIALIZER;
        struct ds text = DS_EMPTY_INITIALIZER;

        rng = 5151 + i;
        gen_doc(&doc, 1 + i % 3, 3 + i * 5);
        put_doc_value(&value, &doc);
        ds_put_cstr(&text, "{\"data\": [0], \"method\": \"m\", \"params\": "
                    "[{\"term\": 1, \"data\" : ");
        ds_put_buffer(&text, value.string, value.length);
        ds_put_cstr(&text, " , \"x\": {\"data\": {\"y\": 1}}}], "
                    "\"id\": null}\n");

        struct json *full = json_from_buffer(text.string, text.length);
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            struct json_parser *p = json_parser_create(JSPF_TRAILER);

            json_parser_set_text_member_depth(p, 3, "data");
            feed_pieces(p, text.string, text.length, pieces[k]);
            struct json *got = json_parser_finish(p);
            n_runs++;

            /* The request's parameters: the one object of the array. */
            const struct json *fo = json_array_at(
                shash_find_data(json_object(full), "params"), 0);
            const struct json *go = (got->type == JSON_OBJECT
                                     ? shash_find_data(json_object(got),
                                                       "params")
                                     : NULL);
            go = go && go->type == JSON_ARRAY ? json_array_at(go, 0) : NULL;
            char label[64];
            snprintf(label, sizeof label, "request #%zu by %zu", i,
                     pieces[k]);
            if (!go || go->type != JSON_OBJECT) {
                case_failed("%s: no parameters", label);
            } else {
                /* Everything but params[0].data as usual... */
                if (!equal_but(full, got, "params")
                    || json_array_size(shash_find_data(json_object(got),
                                                       "params")) != 1
                    || !equal_but(fo, go, "data")) {
                    case_failed("%s: the other members differ", label);
                }

                /* ...and params[0].data the input's bytes. */
                check_text(label, fo, go, "data", value.string);
            }
            json_destroy(got);
        }
        json_destroy(full);
        ds_destroy(&value);
        ds_destroy(&text);
        doc_destroy(&doc);
    }
    end("text members at depth 3: %zu parses of 4 JSON-RPC requests fed "
        "whole and by 1, 3, 7, 4096 bytes: the input's own bytes there, the "
        "rest as usual", n_runs);
}

/* Damage and truncation: the same error as the normal parser, at every
 * byte of a document whose text member starts at its first value. */
static void
test_text_member_damage(void)
{
    static const char bad[] = { '}', ']', 'x', '\x01', '"', ',' };
    struct doc doc;
    struct ds text = DS_EMPTY_INITIALIZER;
    size_t n_cases = 0;

    case_begin();
    rng = 99;
    gen_doc(&doc, 2, 6);
    ds_put_cstr(&text, "{\"prev_data\": [{\"n\": \"DB\"}, ");
    put_doc_value(&text, &doc);
    ds_put_cstr(&text, "], \"z\": 1}\n");

    char *s = xmalloc(text.length);
    for (size_t at = 0; at <= text.length && !case_why[0]; at++) {
        for (size_t b = 0; b <= sizeof bad && !case_why[0]; b++) {
            size_t n = text.length;
            char label[64];

            memcpy(s, text.string, n);
            if (b == sizeof bad) {
                n = at;         /* Truncated. */
                snprintf(label, sizeof label, "cut at %zu", at);
            } else if (at < n) {
                s[at] = bad[b];
                snprintf(label, sizeof label, "byte %zu is 0x%02x", at,
                         (unsigned char) bad[b]);
            } else {
                continue;
            }
            struct json *full = json_from_buffer(s, n);
            for (size_t piece = 0; piece <= 3; piece += 3) {
                struct json *got = text_parse(s, n, "prev_data", piece);
                n_cases++;
                check_text(label, full, got, "prev_data", NULL);
                json_destroy(got);
            }
            json_destroy(full);
        }
    }
    free(s);
    ds_destroy(&text);
    doc_destroy(&doc);
    end("text members: %zu damaged or truncated documents, fed whole and "
        "by 3 bytes: the normal parser's error or value", n_cases);
}

/* Parses 'text' in 64 kB pieces, keeping "prev_data" as text if 'as_text';
 * returns the peak of the bytes the parse held and, in '*kept', the final
 * size of the member (its serialized object and text). */
static long long
text_peak(const struct ds *text, bool as_text, long long *kept)
{
    long long base = live_bytes;
    struct json_parser *p;

    peak_bytes = live_bytes;
    p = json_parser_create(JSPF_TRAILER);
    if (as_text) {
        json_parser_set_text_member(p, "prev_data");
    }
    return held_while_parsing(p, text->string, text->length, base, kept);
}

/* A large member kept as text costs its text: the parse holds at most
 * twice its size (the buffer grows by doubling) and a little more, where
 * the normal parse holds its tree, and member names inside it do not pile
 * up: the value here is one object of 60000 members. */
static void
test_text_member_peak(void)
{
    struct doc doc;
    struct ds text = DS_EMPTY_INITIALIZER;
    long long full, peak, kept, kept_full;

    case_begin();
    rng = 31337;
    gen_doc(&doc, 1, 60000);
    ds_put_cstr(&text, "{\"term\": 1, \"prev_data\": ");
    put_doc_value(&text, &doc);
    ds_put_cstr(&text, "}\n");
    long long len = (long long) doc.text.length;

    full = text_peak(&text, false, &kept_full);
    peak = text_peak(&text, true, &kept);
    if (kept > len + len / 16 + 4096) {
        case_failed("the member kept %lld bytes for %lld bytes of text",
                    kept, len);
    } else if (peak > 2 * len + 64 * 1024) {
        case_failed("the parse held %lld bytes at the peak for %lld bytes "
                    "of text (limit: twice the text and 64 kB)", peak, len);
    } else if (peak * 2 > full) {
        case_failed("peak %lld bytes is not under half of the normal "
                    "parse's %lld", peak, full);
    }
    end("text members: %.1f MB kept as text hold %lld bytes after the "
        "parse and %.1f MB at the peak; the normal parse %.1f MB",
        len / 1e6, kept, peak / 1e6, full / 1e6);
    ds_destroy(&text);
    doc_destroy(&doc);
}

/* Aborted in the middle of the text, or with a complete text member in the
 * unfinished tree: everything is freed (the counter checked at the end). */
static void
test_text_member_abort(void)
{
    static const char doc[] = "{\"a\": 1, \"prev_data\": [{\"x\": \"y\"}, 2],"
                              " \"prev_data\": {\"k\": [1, 2, {\"n\": 3}]},"
                              " \"b\": [";
    long long blocks0 = n_blocks, bytes0 = live_bytes;
    size_t n = strlen(doc);

    case_begin();
    for (size_t cut = 0; cut <= n; cut++) {
        struct json_parser *p = json_parser_create(0);
        json_parser_set_text_member(p, "prev_data");
        feed_pieces(p, doc, cut, 2);
        json_parser_abort(p);
    }
    if (n_blocks != blocks0 || live_bytes != bytes0) {
        case_failed("%lld blocks, %lld bytes left", n_blocks - blocks0,
                    live_bytes - bytes0);
    }
    end("text members: parsers aborted at each of %zu bytes free "
        "everything", n + 1);
}

int
main(int argc, char *argv[])
{
    long long blocks0 = n_blocks, bytes0 = live_bytes;

    for (int i = 1; i < argc; i++) {
        test_dir(argv[i]);
    }
    test_generated();
    test_damage();
    test_repeated();
    test_abort();
    test_peak();
    test_text_member();
    test_text_member_depth();
    test_text_member_damage();
    test_text_member_peak();
    test_text_member_abort();

    case_begin();
    if (n_blocks != blocks0 || live_bytes != bytes0) {
        case_failed("%lld blocks, %lld bytes", n_blocks - blocks0,
                    live_bytes - bytes0);
    }
    end("allocation counter back to its start");
    return cases_summary();
}
