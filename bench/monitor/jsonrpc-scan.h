/* jsonrpc-scan: splits a JSON-RPC byte stream into messages without
 * parsing them.
 *
 * OVSDB's JSON-RPC sends JSON objects back to back on the stream.  The
 * scanner counts nesting outside of strings to find where each object ends,
 * and remembers just enough of the top level of each message (its keys, the
 * first byte of each value, short string values and the first bytes of the
 * message) to tell a reply from a notification and to answer an echo. */

#ifndef JSONRPC_SCAN_H
#define JSONRPC_SCAN_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JR_SHORT 32             /* Longest key or string value kept + 1. */
#define JR_MAX_KEYS 8           /* Top-level keys kept per message. */
#define JR_HEAD 256             /* Leading bytes of a message kept. */

/* A top-level member of the current message. */
struct jr_member {
    char key[JR_SHORT];         /* Member name, truncated. */
    char first;                 /* First byte of the value: 'n', '"', ... */
    char str[JR_SHORT];         /* The value if it is a short string. */
};

/* Scanner state, carried over from one read to the next. */
struct jr_scan {
    int depth;                  /* Nesting of {} and [] in the message. */
    bool in_string;             /* Inside a string literal. */
    bool escape;                /* Last byte was a backslash in a string. */
    bool capture;               /* The current string is at depth 1. */
    bool capture_value;         /* ...and is the value of the last key. */
    bool after_string;          /* A depth-1 string just ended. */
    bool want_value;            /* A key and ':' seen, value not yet. */
    char tok[JR_SHORT];         /* The depth-1 string being read. */
    size_t tok_len;             /* Bytes in 'tok' (may exceed its size). */

    uint64_t len;               /* Bytes of the current message so far. */
    uint64_t hash;              /* FNV-1a of the current message so far. */
    uint32_t hist[256];         /* Count of each byte value in it. */
    struct jr_member members[JR_MAX_KEYS];  /* Top-level members. */
    int n_members;              /* Members in 'members'. */
    char head[JR_HEAD];         /* First bytes of the current message. */
};

/* A complete message, as reported to the callback. */
struct jr_msg {
    uint64_t len;               /* Bytes, from '{' to '}'. */
    uint64_t hash;              /* FNV-1a over those bytes. */
    uint64_t hist_hash;         /* Hash of the byte counts: the same for
                                 * any order of the same bytes, e.g. of
                                 * object members. */
    const struct jr_member *members;    /* Top-level members. */
    int n_members;              /* Number of 'members'. */
    const char *head;           /* First min(len, JR_HEAD) bytes. */
    const char *end;            /* Just past its last byte, in the data
                                 * passed to jr_scan_feed(). */
};

/* Called for each complete message; a non-zero return stops the scan and
 * is returned by jr_scan_feed(). */
typedef int jr_msg_cb(const struct jr_msg *, void *aux);

void jr_scan_init(struct jr_scan *);
int jr_scan_feed(struct jr_scan *, const char *data, size_t n,
                 jr_msg_cb *cb, void *aux);

/* Helpers for the callback. */
const struct jr_member *jr_msg_find(const struct jr_msg *, const char *key);
const char *jr_msg_method(const struct jr_msg *);
bool jr_msg_is_reply(const struct jr_msg *);
bool jr_msg_has_error(const struct jr_msg *);
int jr_msg_id_text(const struct jr_msg *, char *buf, size_t size);

#endif /* jsonrpc-scan.h */
