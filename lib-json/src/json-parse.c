/* lib-json: the JSON parser.  Our own implementation of OVS's parser API
 * and behaviour: RFC 8259 grammar, OVS's error messages and the positions
 * (line, column, byte) at which OVS reports them, OVS's number rules.
 *
 * The lexer works directly on the caller's buffer: a token that lies
 * entirely inside one json_parser_feed() call is never copied to a scratch
 * buffer, strings without escapes are copied once into their final place
 * (inline in "struct json" when short), and containers are built only when
 * they close, from a value stack, with exactly the space they need.
 *
 * With a member callback (json_parser_set_member_cb()), a value that
 * completes as a member at the chosen depth goes to the callback instead of
 * the value stack: since containers are built only when they close, such a
 * member never joins its parent unless the callback declines it, and an
 * unfinished one is still on the value stack, where json_parser_abort()
 * frees it. */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/dynamic-string.h"
#include "json-private.h"
#include "shash-private.h"

/* How much json_from_stream() reads at a time. */
#define CHUNK_SIZE 16384

/* Lexer states between feeds. */
enum lex_state {
    LEX_START,                  /* Not inside a token. */
    LEX_STRING,                 /* Inside a quoted string. */
    LEX_ESCAPE,                 /* Inside a quoted string, just after '\'. */
    LEX_NUMBER,                 /* Inside a number. */
    LEX_KEYWORD,                /* Inside a keyword. */
};

/* What the grammar expects next. */
enum parse_state {
    P_START,                    /* Beginning of input. */
    P_END,                      /* After the top-level value. */
    P_OBJ_INIT,                 /* Expecting '}' or an object name. */
    P_OBJ_NAME,                 /* Expecting an object name. */
    P_OBJ_COLON,                /* Expecting ':'. */
    P_OBJ_VALUE,                /* Expecting an object member value. */
    P_OBJ_NEXT,                 /* Expecting ',' or '}'. */
    P_ARR_INIT,                 /* Expecting ']' or a value. */
    P_ARR_VALUE,                /* Expecting a value. */
    P_ARR_NEXT,                 /* Expecting ',' or ']'. */
};

/* An open container. */
struct frame {
    bool is_object;             /* Object (else array). */
    size_t vstart;              /* Its first value in 'vals'. */
    size_t kstart;              /* Its first name offset in 'keys'. */
    size_t nstart;              /* Its first name byte in 'names'. */
};

struct json_parser {
    int flags;                  /* JSPF_*. */
    bool done;                  /* No more input accepted. */
    char *error;                /* First error message, or NULL. */

    /* Lexer. */
    enum lex_state lex;         /* State at the end of the last feed. */
    bool str_escaped;           /* Buffered string contains a backslash. */
    struct ds buf;              /* Token text carried between feeds. */
    long long base;             /* Bytes consumed before this feed. */
    long long line_start;       /* Offset of the current line's start. */
    int line;                   /* Current line number, from 0. */

    /* Grammar. */
    enum parse_state state;     /* What comes next. */
    struct frame *frames;       /* Open containers, outermost first. */
    size_t height, frames_alloc;
    struct json **vals;         /* Values of the open containers. */
    size_t n_vals, vals_alloc;
    size_t *keys;               /* Offsets into 'names' of member names. */
    size_t n_keys, keys_alloc;
    char *names;                /* Member names of the open objects. */
    size_t names_len, names_alloc;
    struct json *result;        /* The top-level value, once complete. */

    /* Streaming: see json_parser_set_member_cb(). */
    json_parser_member_cb *member_cb;   /* NULL if none. */
    void *member_aux;                   /* Its 'aux'. */
    size_t member_depth;                /* Depth of the members it gets. */
    const char **member_path;           /* 'member_depth' names for it. */
    struct shash *seen;                 /* 'member_depth' sets: seen[i] has
                                         * the names of the members of the
                                         * open object at height i + 1 (on
                                         * the callback's path) that are in
                                         * the tree: all of them above the
                                         * callback's depth, the declined
                                         * ones at it. */

    /* A member kept as text: see json_parser_set_text_member(). */
    char *text_member;          /* Its name, or NULL. */
    size_t text_depth;          /* The depth of the members kept as text. */
    size_t text_height;         /* The stack's height inside its value
                                 * while that value is parsed, else 0. */
    struct ds text;             /* Its bytes so far. */
    const char *feed_input;     /* This feed's input. */
    const char *text_from;      /* First byte of this feed not yet in
                                 * 'text'. */
};

static void parser_error(struct json_parser *, long long pos,
                         const char *format, ...)
    __attribute__((format(printf, 3, 4)));

struct json_parser *
json_parser_create(int flags)
{
    struct json_parser *p = ojs_xzalloc(sizeof *p);
    p->flags = flags;
    ds_init(&p->buf);
    return p;
}

bool
json_parser_is_done(const struct json_parser *p)
{
    return p->done;
}

static void
parser_error(struct json_parser *p, long long pos, const char *format, ...)
{
    struct ds msg;
    va_list args;

    if (p->error) {
        return;
    }
    ds_init(&msg);
    ds_put_format(&msg, "line %d, column %lld, byte %lld: ",
                  p->line, pos - p->line_start, pos);
    va_start(args, format);
    ds_put_format_valist(&msg, format, args);
    va_end(args);
    p->error = ds_steal_cstr(&msg);
    p->done = true;
}

/* Reports the error for a token that the grammar does not expect. */
static void
unexpected(struct json_parser *p, long long pos)
{
    const char *msg;

    switch (p->state) {
    case P_START:
        msg = "syntax error at beginning of input";
        break;
    case P_END:
        msg = "trailing garbage at end of input";
        break;
    case P_OBJ_INIT:
    case P_OBJ_NAME:
        msg = "syntax error parsing object expecting string";
        break;
    case P_OBJ_COLON:
        msg = "syntax error parsing object expecting ':'";
        break;
    case P_OBJ_NEXT:
        msg = "syntax error expecting '}' or ','";
        break;
    case P_ARR_NEXT:
        msg = "syntax error expecting ']' or ','";
        break;
    case P_OBJ_VALUE:
    case P_ARR_INIT:
    case P_ARR_VALUE:
    default:
        msg = "syntax error expecting value";
        break;
    }
    parser_error(p, pos, "%s", msg);
}

static inline bool
expects_value(const struct json_parser *p)
{
    return p->state == P_ARR_VALUE || p->state == P_ARR_INIT
           || p->state == P_OBJ_VALUE;
}

/* Stacks. */

static void
grow(void **ptr, size_t *alloc, size_t need, size_t elem_size)
{
    size_t n = *alloc ? *alloc : 16;
    while (n < need) {
        n *= 2;
    }
    *ptr = ojs_xrealloc(*ptr, n * elem_size);
    *alloc = n;
}

static inline void
push_val(struct json_parser *p, struct json *v)
{
    if (OVSJSON_UNLIKELY(p->n_vals >= p->vals_alloc)) {
        grow((void **) &p->vals, &p->vals_alloc, p->n_vals + 1,
             sizeof *p->vals);
    }
    p->vals[p->n_vals++] = v;
}

/* Reserves 'n' bytes at the end of the names arena and returns them. */
static inline char *
names_reserve(struct json_parser *p, size_t n)
{
    if (OVSJSON_UNLIKELY(p->names_len + n > p->names_alloc)) {
        grow((void **) &p->names, &p->names_alloc, p->names_len + n, 1);
    }
    return p->names + p->names_len;
}

static inline void
push_key(struct json_parser *p, size_t offset)
{
    if (OVSJSON_UNLIKELY(p->n_keys >= p->keys_alloc)) {
        grow((void **) &p->keys, &p->keys_alloc, p->n_keys + 1,
             sizeof *p->keys);
    }
    p->keys[p->n_keys++] = offset;
}

/* True if every open container is an object. */
static bool
all_open_are_objects(const struct json_parser *p)
{
    for (size_t i = 0; i < p->height; i++) {
        if (!p->frames[i].is_object) {
            return false;
        }
    }
    return true;
}

/* Points 'p->member_path' to the names that lead to the innermost open
 * object's last member, that member's own name last, and returns their
 * number (the height of the stack). */
static size_t
set_member_path(struct json_parser *p)
{
    /* Frame i (i >= 1) is the value of the last name its parent object
     * had when the frame opened. */
    for (size_t i = 1; i < p->height; i++) {
        p->member_path[i - 1] = p->names + p->keys[p->frames[i].kstart - 1];
    }
    p->member_path[p->height - 1] = p->names + p->keys[p->n_keys - 1];
    return p->height;
}

/* Offers 'v', the member value that just completed in the innermost open
 * object, to the member callback.  Returns true if the callback took it;
 * then its name is gone from the names arena too. */
static bool
offer_member(struct json_parser *p, struct json *v)
{
    size_t own = p->keys[p->n_keys - 1];
    size_t depth = set_member_path(p);

    if (!p->member_cb(p->member_aux, p->member_path, depth, v)) {
        return false;
    }
    p->n_keys--;
    p->names_len = own;
    return true;
}

/* True if the members of the innermost open object are on the member
 * callback's path: at most 'member_depth' containers are open, all of them
 * objects.  A repeated member there is reported to the callback. */
static bool
on_member_path(const struct json_parser *p)
{
    return p->height && p->height <= p->member_depth
           && all_open_are_objects(p);
}

/* Called when the value of the innermost open object's last member starts
 * (a container above the callback's depth) or completes (anything else):
 * if an earlier member of that object that is in the tree had the same
 * name, passes the member's path to the member callback with a null
 * value, and returns true.  As in OVS, whose objects index the members
 * they hold, a repeat of a member that the callback took is not reported:
 * 'p' keeps nothing of those, or its memory would grow with their
 * number. */
static bool
report_repeated(struct json_parser *p)
{
    const char *name = p->names + p->keys[p->n_keys - 1];

    if (!shash_find(&p->seen[p->height - 1], name)) {
        return false;
    }
    size_t depth = set_member_path(p);
    p->member_cb(p->member_aux, p->member_path, depth, NULL);
    return true;
}

/* Notes that the innermost open object's last member joins the tree;
 * 'repeated' is report_repeated()'s answer for it: a repeated name is
 * already noted. */
static void
remember_member(struct json_parser *p, bool repeated)
{
    if (!repeated) {
        shash_add(&p->seen[p->height - 1],
                  p->names + p->keys[p->n_keys - 1], NULL);
    }
}

/* Text members. */

/* True if a container that starts now is the value of a member that 'p'
 * keeps as text: a member with that name of an object at depth
 * 'text_depth' - 1 (the outermost object for depth 1). */
static bool
starts_text_member(const struct json_parser *p)
{
    return p->height == p->text_depth && p->frames[p->height - 1].is_object
           && p->state == P_OBJ_VALUE && !p->text_height
           && !strcmp(p->names + p->keys[p->n_keys - 1], p->text_member);
}

/* The byte of this feed at absolute offset 'pos'. */
static const char *
feed_byte(const struct json_parser *p, long long pos)
{
    return p->feed_input + (pos - p->base);
}

/* Forgets a complete value inside a member kept as text: it never joins
 * its container, and its name (in an object) leaves the names arena, so
 * that the memory the parse holds does not grow with the text. */
static void
drop_value(struct json_parser *p)
{
    if (p->state == P_OBJ_VALUE) {
        p->names_len = p->keys[--p->n_keys];
        p->state = P_OBJ_NEXT;
    } else {
        p->state = P_ARR_NEXT;
    }
}

/* The container of frame 'f', which ends at offset 'pos', is in a member
 * kept as text (it has left the stack already).  Returns the member's
 * value if 'f' was that value: a serialized object of its text, in a
 * block of its own size.  Returns NULL for a container inside it. */
static struct json *
end_text_container(struct json_parser *p, const struct frame *f,
                   long long pos)
{
    p->n_vals = f->vstart;
    p->n_keys = f->kstart;
    p->names_len = f->nstart;
    if (p->height + 1 > p->text_height) {
        return NULL;
    }

    const char *end = feed_byte(p, pos) + 1;
    ds_put_buffer(&p->text, p->text_from, end - p->text_from);
    p->text_height = 0;

    size_t len = p->text.length;
    struct json *json = json_alloc__(JSON_SERIALIZED_OBJECT);
    json->str_ptr = ojs_xrealloc(ds_steal_cstr(&p->text), len + 1);
    return json;
}

/* A complete value 'v' arrived where the grammar expects a value. */
static inline void
put_value(struct json_parser *p, struct json *v)
{
    if (OVSJSON_UNLIKELY(p->text_height != 0)
        && p->height >= p->text_height) {
        json_destroy(v);
        drop_value(p);
        return;
    }
    if (OVSJSON_UNLIKELY(p->member_cb != NULL)
        && p->state == P_OBJ_VALUE && on_member_path(p)) {
        if (p->height == p->member_depth) {
            /* A member for the callback. */
            bool repeated = report_repeated(p);
            if (offer_member(p, v)) {
                p->state = P_OBJ_NEXT;
                return;
            }
            remember_member(p, repeated);
        } else if (v->type != JSON_OBJECT && v->type != JSON_ARRAY) {
            /* Containers above the callback's depth: see input_begin(). */
            remember_member(p, report_repeated(p));
        }
    }
    push_val(p, v);
    p->state = p->state == P_OBJ_VALUE ? P_OBJ_NEXT : P_ARR_NEXT;
}

/* A scalar token: 'v' is consumed either way. */
static inline void
input_scalar(struct json_parser *p, struct json *v, long long pos)
{
    if (OVSJSON_LIKELY(expects_value(p))) {
        put_value(p, v);
    } else {
        json_destroy(v);
        unexpected(p, pos);
    }
}

static void
input_begin(struct json_parser *p, bool is_object, long long pos)
{
    struct frame *f;

    if (p->state != P_START && !expects_value(p)) {
        unexpected(p, pos);
        return;
    }
    if (p->height >= JSON_MAX_HEIGHT) {
        parser_error(p, pos, "input exceeds maximum nesting depth %d",
                     JSON_MAX_HEIGHT);
        return;
    }
    if (OVSJSON_UNLIKELY(p->member_cb != NULL)
        && p->state == P_OBJ_VALUE && p->height < p->member_depth
        && on_member_path(p)) {
        /* As in OVS, a container above the callback's depth counts as a
         * member of its object when it starts. */
        remember_member(p, report_repeated(p));
    }
    bool text = OVSJSON_UNLIKELY(p->text_member != NULL)
                && starts_text_member(p);
    if (p->height >= p->frames_alloc) {
        grow((void **) &p->frames, &p->frames_alloc, p->height + 1,
             sizeof *p->frames);
    }
    f = &p->frames[p->height++];
    f->is_object = is_object;
    f->vstart = p->n_vals;
    f->kstart = p->n_keys;
    f->nstart = p->names_len;
    p->state = is_object ? P_OBJ_INIT : P_ARR_INIT;
    if (text) {
        /* The text starts with this byte. */
        ds_clear(&p->text);
        p->text_from = feed_byte(p, pos);
        p->text_height = p->height;
    }
    if (OVSJSON_UNLIKELY(p->member_cb != NULL)
        && p->height <= p->member_depth) {
        shash_clear(&p->seen[p->height - 1]);
    }
}

/* Makes the array of the values that 'f' collected: with OVS's storage,
 * inline for 1 to 3 elements, else one exactly sized vector (none when
 * empty). */
static struct json *
build_array(struct json_parser *p, const struct frame *f)
{
    size_t n = p->n_vals - f->vstart;
    struct json **src = n ? &p->vals[f->vstart] : NULL;
    struct json *json;

    if (n == 0) {
        json = json_array_create_empty();
    } else if (n == 1) {
        json = json_array_create_1(src[0]);
    } else if (n == 2) {
        json = json_array_create_2(src[0], src[1]);
    } else if (n == 3) {
        json = json_array_create_3(src[0], src[1], src[2]);
    } else {
        struct json **v = ojs_xmalloc(n * sizeof *v);
        memcpy(v, src, n * sizeof *v);
        json = json_array_create(v, n);
    }
    p->n_vals = f->vstart;
    return json;
}

static struct json *
build_object(struct json_parser *p, const struct frame *f)
{
    size_t n = p->n_vals - f->vstart;
    size_t names_len = p->names_len - f->nstart;
    char *names = NULL;
    struct json *json = ojs_json_object_create_sized(n, names_len, &names);
    struct shash *sh = json->object;
    struct json **vals = n ? &p->vals[f->vstart] : NULL;
    const size_t *keys = n ? &p->keys[f->kstart] : NULL;
    const char *prev = NULL;
    size_t i;

    if (names_len) {
        memcpy(names, &p->names[f->nstart], names_len);
    }

    /* Fast path: names strictly increasing, hence no duplicates. */
    for (i = 0; i < n; i++) {
        const char *name = names + (keys[i] - f->nstart);
        if (prev && strcmp(prev, name) >= 0) {
            break;
        }
        sh->nodes[i].name = (char *) name;
        sh->nodes[i].data = vals[i];
        prev = name;
    }
    sh->n = i;
    if (i < n) {
        /* Unsorted: a later duplicate replaces the earlier value in place,
         * as OVS does. */
        for (; i < n; i++) {
            char *name = names + (keys[i] - f->nstart);
            size_t k = ojs_shash_find_idx(sh, name, strlen(name));
            if (k == SIZE_MAX) {
                ojs_shash_append(sh, name, vals[i]);
            } else {
                json_destroy(sh->nodes[k].data);
                sh->nodes[k].data = vals[i];
            }
        }
    }

    p->n_vals = f->vstart;
    p->n_keys = f->kstart;
    p->names_len = f->nstart;
    return json;
}

static void
input_end(struct json_parser *p, bool is_object, long long pos)
{
    const struct frame *f;
    struct json *json;

    if (is_object
        ? p->state != P_OBJ_INIT && p->state != P_OBJ_NEXT
        : p->state != P_ARR_INIT && p->state != P_ARR_NEXT) {
        unexpected(p, pos);
        return;
    }
    f = &p->frames[--p->height];
    if (OVSJSON_UNLIKELY(p->text_height != 0)
        && p->height + 1 >= p->text_height) {
        json = end_text_container(p, f, pos);
        if (!json) {
            p->state = p->frames[p->height - 1].is_object ? P_OBJ_VALUE
                                                           : P_ARR_VALUE;
            drop_value(p);
            return;
        }
    } else {
        json = is_object ? build_object(p, f) : build_array(p, f);
    }
    if (!p->height) {
        p->result = json;
        p->state = P_END;
        if (!(p->flags & JSPF_TRAILER)) {
            p->done = true;
        }
    } else if (OVSJSON_LIKELY(!p->member_cb)) {
        push_val(p, json);
        p->state = p->frames[p->height - 1].is_object ? P_OBJ_NEXT
                                                       : P_ARR_NEXT;
    } else {
        p->state = p->frames[p->height - 1].is_object ? P_OBJ_VALUE
                                                       : P_ARR_VALUE;
        put_value(p, json);
    }
}

static void
input_punct(struct json_parser *p, unsigned char c, long long pos)
{
    switch (c) {
    case '[':
        input_begin(p, false, pos);
        break;
    case '{':
        input_begin(p, true, pos);
        break;
    case ']':
        input_end(p, false, pos);
        break;
    case '}':
        input_end(p, true, pos);
        break;
    case ':':
        if (p->state == P_OBJ_COLON) {
            p->state = P_OBJ_VALUE;
        } else {
            unexpected(p, pos);
        }
        break;
    case ',':
        if (p->state == P_OBJ_NEXT) {
            p->state = P_OBJ_NAME;
        } else if (p->state == P_ARR_NEXT) {
            p->state = P_ARR_VALUE;
        } else {
            unexpected(p, pos);
        }
        break;
    }
}

/* Strings. */

static inline int
hexit(unsigned char c)
{
    return (c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
            : -1);
}

/* Reads the 4 hex digits at '*inp' (before 'end') into '*valuep'. */
static const char *
read_4hex(const char **inp, const char *end, int *valuep)
{
    const char *in = *inp;
    int value = 0;
    int i;

    if (end - in < 4) {
        return "quoted string ends within \\u escape";
    }
    for (i = 0; i < 4; i++) {
        int h = hexit(in[i]);
        if (h < 0) {
            return "malformed \\u escape";
        }
        value = (value << 4) | h;
    }
    if (!value) {
        return "null bytes not supported in quoted strings";
    }
    *inp = in + 4;
    *valuep = value;
    return NULL;
}

/* Unescapes the string body [in, end) into 'out', which must have room for
 * end - in bytes (unescaping never lengthens).  Stores the length of the
 * result in '*lenp' and returns NULL, or returns an error message ('errbuf'
 * holds it if it has to be formatted).  A null byte is copied like any
 * other, as json_string_unescape() does in OVS. */
static const char *
unescape(const char *in, const char *end, char *out, size_t *lenp,
         char errbuf[32])
{
    char *start = out;

    while (in < end) {
        const char *bs = memchr(in, '\\', end - in);
        const char *q = memchr(in, '"', (bs ? bs : end) - in);
        size_t n;
        int c0, c1;
        const char *err;

        if (q) {
            return "quoted string may not include unescaped \"";
        }
        n = (bs ? bs : end) - in;
        memcpy(out, in, n);
        out += n;
        in += n;
        if (!bs) {
            break;
        }
        in++;
        if (in >= end) {
            return "quoted string may not end with backslash";
        }
        switch (*in++) {
        case '"':
        case '\\':
        case '/':
            *out++ = in[-1];
            break;
        case 'b':
            *out++ = '\b';
            break;
        case 'f':
            *out++ = '\f';
            break;
        case 'n':
            *out++ = '\n';
            break;
        case 'r':
            *out++ = '\r';
            break;
        case 't':
            *out++ = '\t';
            break;
        case 'u':
            err = read_4hex(&in, end, &c0);
            if (err) {
                return err;
            }
            if (c0 >= 0xd800 && c0 <= 0xdbff) {
                if (end - in < 2 || in[0] != '\\' || in[1] != 'u') {
                    return "malformed escaped surrogate pair";
                }
                in += 2;
                err = read_4hex(&in, end, &c1);
                if (err) {
                    return err;
                }
                if (c1 < 0xdc00 || c1 > 0xdfff) {
                    return "second half of escaped surrogate pair is not "
                           "trailing surrogate";
                }
                c0 = 0x10000 + ((c0 - 0xd800) << 10) + (c1 - 0xdc00);
            }
            out += ojs_utf8_encode(out, c0);
            break;
        default:
            snprintf(errbuf, 32, "bad escape \\%c", in[-1]);
            return errbuf;
        }
    }
    *lenp = out - start;
    return NULL;
}

/* unescape() for a string token of the parser, which (like OVS's lexer)
 * takes the token as a C string: it ends at its first null byte.  (A null
 * byte can get into a token only right after a backslash.) */
static const char *
unescape_token(const char *in, const char *end, char *out, size_t *lenp,
               char errbuf[32])
{
    const char *nul = memchr(in, '\0', end - in);
    return unescape(in, nul ? nul : end, out, lenp, errbuf);
}

bool
json_string_unescape(const char *in, size_t in_len, char **outp)
{
    char *out = ojs_xmalloc(in_len + 1);
    char errbuf[32];
    const char *err;
    size_t len;

    err = unescape(in, in + in_len, out, &len, errbuf);
    if (err) {
        free(out);
        *outp = ojs_xstrdup(err);
        return false;
    }
    out[len] = '\0';
    *outp = out;
    return true;
}

/* A complete string token with body [s, s + len); 'escaped' if it contains
 * a backslash.  'pos' is the offset of the closing quote. */
static void
input_string(struct json_parser *p, const char *s, size_t len, bool escaped,
             long long pos)
{
    char errbuf[32];
    const char *err;

    if (p->state == P_OBJ_INIT || p->state == P_OBJ_NAME) {
        char *dst = names_reserve(p, len + 1);
        size_t n = len;

        if (escaped) {
            err = unescape_token(s, s + len, dst, &n, errbuf);
            if (err) {
                parser_error(p, pos, "%s", err);
                return;
            }
        } else {
            memcpy(dst, s, len);
        }
        dst[n] = '\0';
        push_key(p, p->names_len);
        p->names_len += n + 1;
        p->state = P_OBJ_COLON;
    } else if (expects_value(p)) {
        struct json *json;

        if (!escaped) {
            json = json_string_create_len(s, len);
        } else if (len <= JSON_STRING_INLINE_LEN) {
            size_t n;

            json = json_alloc__(JSON_STRING);
            json->storage_type = JSON_STRING_INLINE;
            err = unescape_token(s, s + len, json->str, &n, errbuf);
            if (err) {
                free(json);
                parser_error(p, pos, "%s", err);
                return;
            }
            json->str[n] = '\0';
        } else {
            /* Unescape straight into the tail of the block, like
             * json_string_create_len__() lays it out. */
            size_t n;

            json = ojs_xmalloc(sizeof *json + len + 1);
            err = unescape_token(s, s + len, (char *) (json + 1), &n, errbuf);
            if (err) {
                free(json);
                parser_error(p, pos, "%s", err);
                return;
            }
            if (n <= JSON_STRING_INLINE_LEN) {
                struct json *block = json;
                json = json_string_create_len__((char *) (block + 1), n);
                free(block);
            } else {
                json->type = JSON_STRING;
                json->storage_type = JSON_STRING_DYNAMIC;
                json->alloc__ = OJS_ALLOC_IN_BLOCK;
                json->count = 1;
                json->str_ptr = (char *) (json + 1);
                json->str_ptr[n] = '\0';
            }
        }
        put_value(p, json);
    } else {
        /* OVS reports escape errors before grammar errors. */
        if (escaped) {
            char *tmp = ojs_xmalloc(len + 1);
            size_t n;

            err = unescape_token(s, s + len, tmp, &n, errbuf);
            free(tmp);
            if (err) {
                parser_error(p, pos, "%s", err);
                return;
            }
        }
        unexpected(p, pos);
    }
}

/* Keywords and numbers. */

static void
input_keyword(struct json_parser *p, const char *s, size_t len, long long pos)
{
    enum json_type type;

    if (len == 4 && !memcmp(s, "true", 4)) {
        type = JSON_TRUE;
    } else if (len == 4 && !memcmp(s, "null", 4)) {
        type = JSON_NULL;
    } else if (len == 5 && !memcmp(s, "false", 5)) {
        type = JSON_FALSE;
    } else {
        parser_error(p, pos, "invalid keyword '%.*s'", (int) len, s);
        return;
    }
    input_scalar(p, json_alloc__(type), pos);
}

/* A number token cut into its parts: [-]INT[.FRAC][(e|E)[+|-]EXP]. */
struct number_parts {
    bool minus;                 /* Leading '-'. */
    const char *int_part;       /* The digits before '.', 'e' or the end. */
    size_t int_len;
    const char *frac_part;      /* The digits after '.', if any. */
    size_t frac_len;
    bool exp_minus;             /* Exponent sign is '-'. */
    const char *exp_part;       /* The exponent digits, if any. */
    size_t exp_len;
    const char *rest;           /* First byte after all that. */
};

/* Returns the first byte in [s, end) that is not an ASCII digit. */
static const char *
skip_digits(const char *s, const char *end)
{
    while (s < end && (unsigned char) (*s - '0') < 10) {
        s++;
    }
    return s;
}

/* Cuts [s, end) into 'np'.  Returns NULL, or the message for the first
 * malformed part, in the order OVS reports them. */
static const char *
number_cut(const char *s, const char *end, struct number_parts *np)
{
    memset(np, 0, sizeof *np);
    np->minus = s < end && *s == '-';
    np->int_part = s + np->minus;
    s = skip_digits(np->int_part, end);
    np->int_len = s - np->int_part;
    if (!np->int_len) {
        return "'-' must be followed by digit";
    } else if (np->int_len > 1 && np->int_part[0] == '0') {
        return "leading zeros not allowed";
    }
    if (s < end && *s == '.') {
        np->frac_part = s + 1;
        s = skip_digits(np->frac_part, end);
        np->frac_len = s - np->frac_part;
        if (!np->frac_len) {
            return "decimal point must be followed by digit";
        }
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < end && (*s == '-' || *s == '+')) {
            np->exp_minus = *s++ == '-';
        }
        np->exp_part = s;
        s = skip_digits(s, end);
        np->exp_len = s - np->exp_part;
        if (!np->exp_len) {
            return "exponent must contain at least one digit";
        }
    }
    np->rest = s;
    return NULL;
}

/* The significand, as OVS computes it: digits are taken while the value
 * is at most ULLONG_MAX / 10, so the 20th digit can wrap it around (that
 * makes 18446744073709551619 read as 3, which lib-json keeps for identical
 * output).  A dropped integer digit scales by 10; any dropped nonzero
 * digit makes the value inexact. */
struct significand {
    unsigned long long int value;
    int scale;                  /* Power of 10 to multiply 'value' by. */
    bool inexact;
};

static void
significand_of(const struct number_parts *np, struct significand *sig)
{
    size_t n = np->int_len + np->frac_len;

    sig->value = 0;
    sig->scale = 0;
    sig->inexact = false;
    for (size_t k = 0; k < n; k++) {
        bool fraction = k >= np->int_len;
        int digit = (fraction ? np->frac_part[k - np->int_len]
                              : np->int_part[k]) - '0';

        if (sig->value > ULLONG_MAX / 10) {
            sig->inexact |= digit != 0;
            sig->scale += !fraction;
        } else {
            sig->value = sig->value * 10 + digit;
            sig->scale -= fraction;
        }
    }
}

/* Adds the exponent of 'np' to '*scale'.  False if OVS would call it out
 * of range: it accepts a digit only while the exponent read so far is
 * below INT_MAX / 10, and the sum must fit an int. */
static bool
apply_exponent(const struct number_parts *np, int *scale)
{
    long long int e = 0;

    for (size_t k = 0; k < np->exp_len; k++) {
        if (k && e >= INT_MAX / 10) {
            return false;
        }
        e = 10 * e + (np->exp_part[k] - '0');
    }
    e = np->exp_minus ? *scale - e : *scale + e;
    if (e < INT_MIN || e > INT_MAX) {
        return false;
    }
    *scale = e;
    return true;
}

/* Stores in '*out' the exact integer value of 'sig' (negated if 'minus')
 * and returns true, if there is one and it fits "long long int". */
static bool
exact_integer(struct significand sig, bool minus, long long int *out)
{
    unsigned long long int limit = LLONG_MAX;

    if (sig.inexact) {
        return false;
    }
    for (; sig.scale > 0; sig.scale--) {
        if (sig.value >= ULLONG_MAX / 10) {
            return false;
        }
        sig.value *= 10;
    }
    for (; sig.scale < 0 && sig.value % 10 == 0; sig.scale++) {
        sig.value /= 10;
    }
    if (sig.scale || sig.value > limit + minus) {
        return false;
    }
    *out = !minus ? (long long int) sig.value
           : sig.value > limit ? LLONG_MIN : -(long long int) sig.value;
    return true;
}

/* The token as a double, via strtod() like OVS.  False if strtod()
 * rejects it or it overflows (an underflow to zero is accepted). */
static bool
real_value(const char *s, size_t len, double *out)
{
    char small[64];
    char *copy = len < sizeof small ? small : ojs_xmalloc(len + 1);
    int saved = errno;
    char *stop;
    bool ok;

    memcpy(copy, s, len);
    copy[len] = '\0';
    errno = 0;
    *out = strtod(copy, &stop);
    ok = *stop == '\0' && stop != copy && errno != EINVAL
         && !(errno == ERANGE && *out != 0.0);
    errno = saved;
    if (copy != small) {
        free(copy);
    }
    return ok;
}

/* A number token that ends at offset 'pos' of this feed, inside a member
 * kept as text, has 'n' bytes from a null byte on, which do not count (see
 * input_number()).  Takes them out of the text too, so that the text, read
 * as a C string, has the value that the parser saw. */
static void
drop_text_tail(struct json_parser *p, long long pos, size_t n)
{
    const char *end = feed_byte(p, pos);

    ds_put_buffer(&p->text, p->text_from, end - p->text_from);
    p->text_from = end;
    p->text.length -= n;
    p->text.string[p->text.length] = '\0';
}

/* The number token [s, s + len): OVS's rules.  An integer that fits "long
 * long int" (exponent included, when exact) is JSON_INTEGER, anything else
 * a JSON_REAL; negative zero becomes zero.  Like OVS, which handles the
 * token as a C string, a NUL byte ends it (see number_char[]). */
static void
input_number(struct json_parser *p, const char *s, size_t len, long long pos)
{
    const char *nul = memchr(s, '\0', len);
    struct number_parts np;
    struct significand sig;
    const char *err;
    long long int integer;
    double real;

    if (OVSJSON_UNLIKELY(nul != NULL)) {
        if (p->text_height != 0) {
            drop_text_tail(p, pos, len - (size_t) (nul - s));
        }
        len = nul - s;
    }
    err = number_cut(s, s + len, &np);
    if (!err) {
        significand_of(&np, &sig);
        if (!apply_exponent(&np, &sig.scale)) {
            err = "exponent outside valid range";
        } else if (np.rest != s + len) {
            err = "syntax error in number";
        }
    }
    if (err) {
        parser_error(p, pos, "%s", err);
    } else if (!sig.value) {
        input_scalar(p, json_integer_create(0), pos);
    } else if (exact_integer(sig, np.minus, &integer)) {
        input_scalar(p, json_integer_create(integer), pos);
    } else if (!real_value(s, len, &real)) {
        parser_error(p, pos, "number outside valid range");
    } else {
        input_scalar(p, json_real_create(real == 0.0 ? 0.0 : real), pos);
    }
}

/* The lexer. */

/* Character classes. */
enum {
    C_OTHER = 0,                /* Invalid outside strings. */
    C_SPACE,                    /* ' ' '\t' '\r' */
    C_NEWLINE,                  /* '\n' */
    C_PUNCT,                    /* [ ] { } : , */
    C_QUOTE,                    /* " */
    C_NUMBER,                   /* - 0-9 */
    C_LOWER,                    /* a-z: starts a keyword */
};

/* The tables are constant data, so any number of threads may parse at
 * once without setting anything up. */
static const unsigned char char_class[256] = {
    [' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE,
    ['\n'] = C_NEWLINE,
    ['['] = C_PUNCT, [']'] = C_PUNCT, ['{'] = C_PUNCT, ['}'] = C_PUNCT,
    [':'] = C_PUNCT, [','] = C_PUNCT,
    ['"'] = C_QUOTE,
    ['-'] = C_NUMBER, ['0' ... '9'] = C_NUMBER,
    ['a' ... 'z'] = C_LOWER,
};

/* Bytes that continue a number token: .0123456789eE-+ and also NUL,
 * because OVS tests number bytes with strchr(".0123456789eE-+", c), which
 * matches the string's own terminator; input_number() then ends the token
 * at the NUL. */
static const unsigned char number_char[256] = {
    ['.'] = 1, ['0' ... '9'] = 1, ['e'] = 1, ['E'] = 1, ['-'] = 1,
    ['+'] = 1, ['\0'] = 1,
};

/* Bytes that continue a keyword: A-Z a-z. */
static const unsigned char alpha_char[256] = {
    ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1,
};

/* Bytes that end a run of plain string bytes: '"', '\\' and controls. */
static const unsigned char string_stop[256] = {
    [0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

/* Returns the first byte in [s, end) that ends a string run: '"', '\\' or a
 * control character; 'end' if none. */
static inline const char *
scan_string_run(const char *s, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t highs = 0x8080808080808080ULL;

    while (end - s >= 8) {
        uint64_t w, q, b, t;

        memcpy(&w, s, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        t = ((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20);
        t &= ~w & highs;
        if (t) {
            return s + (__builtin_ctzll(t) >> 3);
        }
        s += 8;
    }
#endif
    while (s < end && !string_stop[(unsigned char) *s]) {
        s++;
    }
    return s;
}

/* Scans a string body starting at 's' (just after the opening quote, or
 * resuming in state 'p->lex') for its closing quote.  Returns a pointer to
 * the closing quote, or to a control character (an error), or 'end'.  Sets
 * '*escaped' if it passes a backslash.  Counts escaped newlines. */
static const char *
scan_string(struct json_parser *p, const char *input, const char *s,
            const char *end, bool *escaped)
{
    if (p->lex == LEX_ESCAPE) {
        goto escape;
    }
    for (;;) {
        s = scan_string_run(s, end);
        if (s >= end || *s != '\\') {
            return s;
        }
        *escaped = true;
        s++;
    escape:
        if (s >= end) {
            p->lex = LEX_ESCAPE;
            return s;
        }
        if (*s == '\n') {
            p->line++;
            p->line_start = p->base + (s - input) + 1;
        }
        s++;
        p->lex = LEX_STRING;
    }
}

size_t
json_parser_feed(struct json_parser *p, const char *input, size_t n)
{
    const char *s = input, *end = input + n;
    const char *tok;
    bool escaped;

    if (p->done) {
        return 0;
    }
    p->feed_input = input;
    p->text_from = input;

    /* Finish a token carried over from the previous feed. */
    switch (p->lex) {
    case LEX_START:
        break;

    case LEX_STRING:
    case LEX_ESCAPE:
        escaped = p->str_escaped;
        s = scan_string(p, input, s, end, &escaped);
        ds_put_buffer(&p->buf, input, s - input);
        if (s >= end) {
            p->str_escaped = escaped;
            goto out;
        }
        p->lex = LEX_START;
        if (*s == '"') {
            input_string(p, p->buf.string, p->buf.length, escaped,
                         p->base + (s - input));
        } else {
            parser_error(p, p->base + (s - input),
                         "U+%04X must be escaped in quoted string",
                         (unsigned char) *s);
        }
        ds_clear(&p->buf);
        s++;
        break;

    case LEX_NUMBER:
    case LEX_KEYWORD: {
        const unsigned char *tbl = p->lex == LEX_NUMBER ? number_char
                                                        : alpha_char;
        while (s < end && tbl[(unsigned char) *s]) {
            s++;
        }
        ds_put_buffer(&p->buf, input, s - input);
        if (s >= end) {
            goto out;
        }
        if (p->lex == LEX_NUMBER) {
            input_number(p, p->buf.string, p->buf.length,
                         p->base + (s - input));
        } else {
            input_keyword(p, p->buf.string, p->buf.length,
                          p->base + (s - input));
        }
        p->lex = LEX_START;
        ds_clear(&p->buf);
        break;
    }
    }

    while (s < end && !p->done) {
        unsigned char c = *s;

        switch (char_class[c]) {
        case C_SPACE:
            s++;
            break;

        case C_NEWLINE:
            s++;
            p->line++;
            p->line_start = p->base + (s - input);
            break;

        case C_PUNCT:
            input_punct(p, c, p->base + (s - input));
            s++;
            break;

        case C_QUOTE:
            tok = ++s;
            escaped = false;
            p->lex = LEX_STRING;
            s = scan_string(p, input, s, end, &escaped);
            if (s >= end) {
                ds_put_buffer(&p->buf, tok, s - tok);
                p->str_escaped = escaped;
                goto out;
            }
            p->lex = LEX_START;
            if (*s == '"') {
                input_string(p, tok, s - tok, escaped, p->base + (s - input));
            } else {
                parser_error(p, p->base + (s - input),
                             "U+%04X must be escaped in quoted string",
                             (unsigned char) *s);
            }
            s++;
            break;

        case C_NUMBER:
            tok = s++;
            while (s < end && number_char[(unsigned char) *s]) {
                s++;
            }
            if (s >= end) {
                ds_put_buffer(&p->buf, tok, s - tok);
                p->lex = LEX_NUMBER;
                goto out;
            }
            input_number(p, tok, s - tok, p->base + (s - input));
            break;

        case C_LOWER:
            tok = s++;
            while (s < end && alpha_char[(unsigned char) *s]) {
                s++;
            }
            if (s >= end) {
                ds_put_buffer(&p->buf, tok, s - tok);
                p->lex = LEX_KEYWORD;
                goto out;
            }
            input_keyword(p, tok, s - tok, p->base + (s - input));
            break;

        case C_OTHER:
        default:
            if (c >= 0x20 && c < 0x7f) {
                parser_error(p, p->base + (s - input),
                             "invalid character '%c'", c);
            } else {
                parser_error(p, p->base + (s - input),
                             "invalid character U+%04x", c);
            }
            s++;
            break;
        }
    }

out:
    if (OVSJSON_UNLIKELY(p->text_height != 0)) {
        ds_put_buffer(&p->text, p->text_from, s - p->text_from);
    }
    p->base += s - input;
    return s - input;
}

struct json *
json_parser_finish(struct json_parser *p)
{
    struct json *json;

    if (p->lex == LEX_STRING || p->lex == LEX_ESCAPE) {
        parser_error(p, p->base, "unexpected end of input in quoted string");
    } else if (p->lex != LEX_START) {
        /* The input ends a number or keyword as a space would. */
        json_parser_feed(p, " ", 1);
    }

    if (p->state == P_START) {
        parser_error(p, p->base, "empty input stream");
    } else if (p->state != P_END) {
        parser_error(p, p->base, "unexpected end of input");
    }

    /* Hand over either the value or the message (as a string value), so
     * that json_parser_abort() frees neither. */
    char **taken = p->error ? &p->error : NULL;
    json = taken ? json_string_create_nocopy(*taken) : p->result;
    if (taken) {
        *taken = NULL;
    } else {
        p->result = NULL;
    }
    json_parser_abort(p);
    return json;
}

/* Frees what json_parser_set_member_cb() allocated for 'p'. */
static void
free_member_cb(struct json_parser *p)
{
    if (p->seen) {
        for (size_t i = 0; i < p->member_depth; i++) {
            shash_destroy(&p->seen[i]);
        }
        free(p->seen);
        p->seen = NULL;
    }
    free(p->member_path);
    p->member_path = NULL;
}

/* Makes 'p' pass each member of an object that is 'depth' levels deep to
 * 'cb' as soon as the member's value is complete (see json.h).  As in OVS,
 * 'depth' must be at least 1 and no input may have been fed yet.  A null
 * 'cb' turns streaming off. */
void
json_parser_set_member_cb(struct json_parser *p, size_t depth,
                          json_parser_member_cb *cb, void *aux)
{
    ovs_assert(depth > 0 && p->state == P_START && !p->height
               && !p->text_member);
    free_member_cb(p);
    p->member_cb = cb;
    p->member_aux = aux;
    p->member_depth = depth;
    p->member_path = ojs_xzalloc(depth * sizeof *p->member_path);
    p->seen = ojs_xmalloc(depth * sizeof *p->seen);
    for (size_t i = 0; i < depth; i++) {
        shash_init(&p->seen[i]);
    }
}

/* Makes 'p' keep the value of each member named 'name' of the outermost
 * object, if that value is an object or an array, as a serialized object
 * of the input's own bytes for it (see json.h).  As in OVS, no input may
 * have been fed yet, and it does not go with a member callback. */
void
json_parser_set_text_member(struct json_parser *p, const char *name)
{
    json_parser_set_text_member_depth(p, 1, name);
}

/* The same for the members named 'name' at depth 'depth', counted as for
 * json_parser_set_member_cb(): 1 is a member of the outermost object.  As in
 * OVS, 'depth' must be at least 1. */
void
json_parser_set_text_member_depth(struct json_parser *p, size_t depth,
                                  const char *name)
{
    ovs_assert(depth > 0);
    ovs_assert(p->state == P_START && !p->height && !p->member_cb
               && !p->text_member);
    p->text_member = ojs_xstrdup(name);
    p->text_depth = depth;
    ds_init(&p->text);
}

void
json_parser_abort(struct json_parser *p)
{
    size_t i;

    if (!p) {
        return;
    }
    for (i = 0; i < p->n_vals; i++) {
        json_destroy(p->vals[i]);
    }
    json_destroy(p->result);
    free(p->vals);
    free(p->keys);
    free(p->names);
    free(p->frames);
    free_member_cb(p);
    if (p->text_member) {
        free(p->text_member);
        ds_destroy(&p->text);
    }
    ds_destroy(&p->buf);
    free(p->error);
    free(p);
}

struct json *
json_from_buffer(const char *s, size_t n)
{
    struct json_parser *p = json_parser_create(JSPF_TRAILER);
    json_parser_feed(p, s, n);
    return json_parser_finish(p);
}

struct json *
json_from_string(const char *string)
{
    return json_from_buffer(string, strlen(string));
}

struct json *
json_from_serialized_object(const struct json *json)
{
    return json_from_string(json_serialized_object(json));
}

/* The value OVS returns for an I/O error: a JSON_STRING with the message
 * (which no parse error can be confused with: those start with "line"). */
static struct json *
io_error(const char *what, const char *name, int error)
{
    struct ds msg = DS_EMPTY_INITIALIZER;

    ds_put_cstr(&msg, what);
    if (name) {
        ds_put_format(&msg, " \"%s\"", name);
    }
    ds_put_format(&msg, ": %s", strerror(error));
    return json_string_create_nocopy(ds_steal_cstr(&msg));
}

/* Reads 'stream' to its end (or to the end of the JSON text and what may
 * follow it) and parses it with JSPF_TRAILER. */
struct json *
json_from_stream(FILE *stream)
{
    struct json_parser *parser = json_parser_create(JSPF_TRAILER);
    struct json *value;
    char *chunk = ojs_xmalloc(CHUNK_SIZE);
    size_t got;
    int read_error = 0;

    do {
        got = fread(chunk, 1, CHUNK_SIZE, stream);
        read_error = ferror(stream) ? errno : 0;
    } while (got && json_parser_feed(parser, chunk, got) == got
             && !read_error);
    free(chunk);

    value = json_parser_finish(parser);
    if (read_error || ferror(stream)) {
        json_destroy(value);
        value = io_error("error reading JSON stream", NULL,
                         read_error ? read_error : errno);
    }
    return value;
}

struct json *
json_from_file(const char *file_name)
{
    struct json *value;
    FILE *stream;

    stream = fopen(file_name, "r");
    if (stream) {
        value = json_from_stream(stream);
        fclose(stream);
    } else {
        value = io_error("error opening", file_name, errno);
    }
    return value;
}
