/* jsonrpc-scan: message framing for a JSON-RPC byte stream.  See the
 * header for what it does and does not look at. */

#include "jsonrpc-scan.h"

#include <string.h>

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

static void
jr_scan_reset_msg(struct jr_scan *s)
{
    memset(s->hist, 0, sizeof s->hist);
    s->len = 0;
    s->hash = FNV_OFFSET;
    s->n_members = 0;
    s->after_string = false;
    s->want_value = false;
}

void
jr_scan_init(struct jr_scan *s)
{
    memset(s, 0, sizeof *s);
    jr_scan_reset_msg(s);
}

static bool
is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Copies the captured depth-1 string into 'dst' (truncated). */
static void
jr_tok_copy(const struct jr_scan *s, char dst[JR_SHORT])
{
    size_t n = s->tok_len < JR_SHORT - 1 ? s->tok_len : JR_SHORT - 1;

    memcpy(dst, s->tok, n);
    dst[n] = '\0';
}

/* Bookkeeping of the top level for a byte outside strings at depth 1,
 * before the byte changes the depth. */
static void
jr_top_byte(struct jr_scan *s, unsigned char c)
{
    if (s->after_string) {
        s->after_string = false;
        if (c == ':' && s->n_members < JR_MAX_KEYS) {
            struct jr_member *m = &s->members[s->n_members++];

            jr_tok_copy(s, m->key);
            m->first = '\0';
            m->str[0] = '\0';
            s->want_value = true;
            return;
        }
    }
    if (s->want_value && c != ':') {
        s->want_value = false;
        s->members[s->n_members - 1].first = c;
        if (c == '"') {
            s->capture_value = true;
        }
    }
}

/* Handles the end of a string that started at depth 1. */
static void
jr_string_end(struct jr_scan *s)
{
    s->capture = false;
    if (s->capture_value) {
        s->capture_value = false;
        jr_tok_copy(s, s->members[s->n_members - 1].str);
    } else {
        s->after_string = true;
    }
}

int
jr_scan_feed(struct jr_scan *s, const char *data, size_t n,
             jr_msg_cb *cb, void *aux)
{
    const unsigned char *p = (const unsigned char *) data;
    const unsigned char *end = p + n;

    while (p < end) {
        unsigned char c = *p++;

        if (!s->depth && is_space(c)) {
            continue;           /* Between messages. */
        }
        if (s->len < JR_HEAD) {
            s->head[s->len] = c;
        }
        s->len++;
        s->hash = (s->hash ^ c) * FNV_PRIME;
        s->hist[c]++;

        if (s->in_string) {
            if (s->escape) {
                s->escape = false;
            } else if (c == '\\') {
                s->escape = true;
                continue;
            } else if (c == '"') {
                s->in_string = false;
                if (s->capture) {
                    jr_string_end(s);
                }
                continue;
            }
            if (s->capture) {
                if (s->tok_len < JR_SHORT - 1) {
                    s->tok[s->tok_len] = c;
                }
                s->tok_len++;
            }
            continue;
        }

        if (s->depth == 1 && !is_space(c)) {
            jr_top_byte(s, c);
        }
        switch (c) {
        case '"':
            s->in_string = true;
            s->capture = s->depth == 1;
            s->tok_len = 0;
            break;
        case '{':
        case '[':
            s->depth++;
            break;
        case '}':
        case ']':
            if (--s->depth == 0) {
                uint64_t hist_hash = FNV_OFFSET;

                for (int i = 0; i < 256; i++) {
                    hist_hash = (hist_hash ^ s->hist[i]) * FNV_PRIME;
                }

                struct jr_msg msg = {
                    .len = s->len,
                    .hash = s->hash,
                    .hist_hash = hist_hash,
                    .members = s->members,
                    .n_members = s->n_members,
                    .head = s->head,
                    .end = (const char *) p,
                };
                int error = cb(&msg, aux);

                jr_scan_reset_msg(s);
                if (error) {
                    return error;
                }
            } else if (s->depth < 0) {
                return -1;
            }
            break;
        default:
            if (!s->depth) {
                return -1;      /* Garbage between messages. */
            }
            break;
        }
    }
    return 0;
}

const struct jr_member *
jr_msg_find(const struct jr_msg *msg, const char *key)
{
    for (int i = 0; i < msg->n_members; i++) {
        if (!strcmp(msg->members[i].key, key)) {
            return &msg->members[i];
        }
    }
    return NULL;
}

/* Returns the method of a request or notification, or NULL. */
const char *
jr_msg_method(const struct jr_msg *msg)
{
    const struct jr_member *m = jr_msg_find(msg, "method");

    return m && m->first == '"' ? m->str : NULL;
}

bool
jr_msg_is_reply(const struct jr_msg *msg)
{
    return !jr_msg_method(msg) && jr_msg_find(msg, "result");
}

/* True if the message has a non-null top-level "error". */
bool
jr_msg_has_error(const struct jr_msg *msg)
{
    const struct jr_member *m = jr_msg_find(msg, "error");

    return m && m->first != 'n';
}

/* Copies the text of the message's "id" value into 'buf', from the kept
 * head of the message.  Returns 0, or -1 if it is not there. */
int
jr_msg_id_text(const struct jr_msg *msg, char *buf, size_t size)
{
    size_t n = msg->len < JR_HEAD ? msg->len : JR_HEAD;
    const char *h = msg->head;

    for (size_t i = 0; i + 5 <= n; i++) {
        if (!memcmp(h + i, "\"id\":", 5)) {
            size_t j = i + 5, k = 0;
            bool in_str = false;

            while (j < n && k + 1 < size) {
                char c = h[j];

                if (!in_str && (c == ',' || c == '}')) {
                    break;
                }
                if (c == '"') {
                    in_str = !in_str;
                }
                buf[k++] = c;
                j++;
            }
            buf[k] = '\0';
            return j < n && k ? 0 : -1;
        }
    }
    return -1;
}
