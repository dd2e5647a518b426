/* workload: a northd-like stream of OVN Southbound transactions.
 *
 * Every transaction inserts, updates and deletes logical flows, inserts and
 * updates port bindings and MAC bindings, in batches.  Rows get fixed UUIDs
 * (the "uuid" member of "insert"), so the same run produces the same
 * database, and the same updates, on every ovsdb-server build. */

#ifndef WORKLOAD_H
#define WORKLOAD_H 1

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer. */
struct wbuf {
    char *p;                    /* Bytes, null-terminated. */
    size_t len;                 /* Bytes used, not counting the null. */
    size_t cap;                 /* Bytes allocated. */
};

void wbuf_printf(struct wbuf *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void wbuf_append(struct wbuf *, const void *, size_t);
void wbuf_clear(struct wbuf *);
void wbuf_free(struct wbuf *);

/* Sizes of the workload; see workload_init() for the defaults. */
struct workload {
    const char *db;             /* Database name, "OVN_Southbound". */
    unsigned int n_dps;         /* Datapaths the bench rows live in. */
    unsigned int batch;         /* Logical flows inserted per transaction. */

    /* Progress: next index of each kind of row, and the oldest live flow. */
    uint64_t next_flow;         /* Next logical flow to insert. */
    uint64_t first_flow;        /* Oldest logical flow not yet deleted. */
    uint64_t next_port;         /* Next port binding to insert. */
    uint64_t next_mac;          /* Next MAC binding to insert. */
    unsigned int n_txns;        /* Transactions composed so far. */
};

void workload_init(struct workload *, const char *db, unsigned int n_dps,
                   unsigned int batch);
void workload_setup(struct workload *, struct wbuf *, int id);
void workload_next(struct workload *, struct wbuf *, int id);
void workload_noop(const struct workload *, struct wbuf *, int id);

/* ["uuid","..."] of bench datapath 'dp' and of a chassis 'ch' that does
 * not exist (for the conditions of the conditional workload). */
void workload_put_dp_ref(struct wbuf *, unsigned int dp);
void workload_put_chassis_ref(struct wbuf *, unsigned int ch);

#endif /* workload.h */
