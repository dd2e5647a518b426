/* ovsdb-monitor: a standalone model of the json cache of ovsdb-server's
 * monitors (ovsdb/monitor.c), written on top of lib-json.
 *
 * It has four parts:
 *
 *   - A tiny in-memory database ("struct om_db"): tables whose rows hold one
 *     json value per column, changed by transactions ("struct om_txn") that
 *     get a transaction id when they commit.  The last transactions are kept
 *     in a history, for monitor_cond_since reconnects.
 *
 *   - Monitors ("struct om_monitor"), the counterpart of OVS's
 *     "struct ovsdb_monitor": a set of monitored tables and columns, and the
 *     change sets that record, per table, the rows inserted, modified (old and
 *     new values) and deleted since some transaction.
 *
 *   - Clients ("struct om_client"), the counterpart of a jsonrpc monitor: a
 *     protocol version (monitor, monitor_cond, monitor_cond_since), an
 *     optional condition, the change set it still has to receive, and an
 *     output buffer that stands for its socket.
 *
 *   - The json cache of a monitor, keyed by (version, change set), in one of
 *     three modes (see enum om_cache_mode), with counters of the work done.
 *
 * Updates follow RFC 7047 ("update", <row-update> with "old"/"new") and
 * ovsdb-server(7) ("update2"/"update3", <row-update2> with
 * "initial"/"insert"/"modify"/"delete"). */

#ifndef OVSDB_MONITOR_H
#define OVSDB_MONITOR_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json;

/* Length of a UUID in text form, without the null terminator. */
#define OM_UUID_LEN 36

/* ----------------------------------------------------------------------
 * Database.
 * ---------------------------------------------------------------------- */

/* Type of an atom (a scalar, a set element, a map key or a map value). */
enum om_atomic_type {
    OM_INTEGER,                 /* JSON integer. */
    OM_REAL,                    /* JSON number. */
    OM_BOOLEAN,                 /* true or false. */
    OM_STRING,                  /* JSON string. */
    OM_UUID,                    /* ["uuid", "<36 characters>"]. */
};

/* Shape of a column's values. */
enum om_column_kind {
    OM_SCALAR,                  /* Exactly one atom; default 0, "", false. */
    OM_SET,                     /* Set of atoms, "" or ["set", [...]];
                                 * one element is sent as the bare atom. */
    OM_MAP,                     /* ["map", [[key, value], ...]]. */
};

/* Definition of a column, for om_db_add_table(). */
struct om_column_def {
    const char *name;           /* Column name. */
    enum om_column_kind kind;   /* Scalar, set or map. */
    enum om_atomic_type key;    /* Type of the atoms (map keys). */
    enum om_atomic_type value;  /* OM_MAP only: type of the map values. */
};

struct om_db;
struct om_table;
struct om_txn;

struct om_db *om_db_create(uint64_t seed);
void om_db_destroy(struct om_db *);
struct om_table *om_db_add_table(struct om_db *, const char *name,
                                 const struct om_column_def *, size_t n);
struct om_table *om_db_get_table(const struct om_db *, const char *name);
const char *om_db_last_txn_id(const struct om_db *);
size_t om_table_n_rows(const struct om_table *);
const char *om_table_name(const struct om_table *);

/* Copies the uuids of the rows of a table, in insertion order, into a new
 * array of 'OM_UUID_LEN + 1'-byte strings that the caller frees; returns the
 * number of rows. */
size_t om_table_row_uuids(const struct om_table *, char (**uuidsp)[37]);

/* Reads a column of a row; null if there is no such row or column. */
const struct json *om_table_get(const struct om_table *, const char *uuid,
                                const char *column);

/* Transactions.  Changes apply to the database at once; monitors see them
 * when the transaction commits.  Returns false and sets '*errorp' (a string
 * the caller frees, if 'errorp' is nonnull) on bad input, changing
 * nothing. */
struct om_txn *om_txn_begin(struct om_db *);
const char *om_txn_insert(struct om_txn *, struct om_table *);
bool om_txn_set(struct om_txn *, struct om_table *, const char *uuid,
                const char *column, const struct json *value,
                char **errorp);
bool om_txn_delete(struct om_txn *, struct om_table *, const char *uuid);
const char *om_txn_commit(struct om_txn *);

/* Commit observers.  A monitor (or anything else) registers a callback that
 * the database calls on every commit, after the transaction is in the
 * history, with the row changes it made (old and new values of each row;
 * see struct om_change in om-private.h), and once more with OM_DB_DESTROY
 * (no changes) when om_db_destroy() runs, before the database goes away.
 * The callback may unregister its own observer, never another one.  The
 * database knows nothing else about its observers. */
enum om_db_event {
    OM_DB_COMMIT,               /* A transaction committed. */
    OM_DB_DESTROY,              /* The database is being destroyed. */
};

struct om_change;
struct om_db_observer;
typedef void om_db_observer_cb(void *aux, enum om_db_event,
                               struct om_change *const *changes, size_t n);

struct om_db_observer *om_db_observe(struct om_db *, om_db_observer_cb *,
                                     void *aux);
void om_db_unobserve(struct om_db *, struct om_db_observer *);
size_t om_db_n_observers(const struct om_db *);

/* ----------------------------------------------------------------------
 * Monitors and their json cache.
 * ---------------------------------------------------------------------- */

/* How a monitor caches the updates it composes for unconditional
 * clients. */
enum om_cache_mode {
    OM_CACHE_NONE,              /* No cache: compose and serialize the update
                                 * for each client (ovsdb-server before it
                                 * had a json cache). */
    OM_CACHE_JSON,              /* Cache the composed json tree; serialize it
                                 * for each client (OVS before commit
                                 * 43e66fc27, 2021). */
    OM_CACHE_SERIALIZED,        /* Cache the update serialized once; sending
                                 * copies the text (OVS since commit
                                 * 43e66fc27). */
    OM_CACHE_SHARED,            /* OM_CACHE_SERIALIZED, and each whole
                                 * notification is serialized once and
                                 * queued by reference on every client that
                                 * would get the same bytes (OVS 4.0.0 with
                                 * patches/4.0.0/monitor-fanout). */
    OM_CACHE_SHARED_COND,       /* OM_CACHE_SHARED, and conditional clients
                                 * with the same condition share cache
                                 * entries and notifications too
                                 * (monitor-fanout 0002). */
};

const char *om_cache_mode_name(enum om_cache_mode);
bool om_cache_mode_from_string(const char *, enum om_cache_mode *);

/* Kinds of changes a monitored table reports, like OVS's OJMS_*. */
enum om_select {
    OM_SEL_INITIAL = 1 << 0,    /* Rows present when the client joins. */
    OM_SEL_INSERT = 1 << 1,     /* Inserted rows. */
    OM_SEL_DELETE = 1 << 2,     /* Deleted rows. */
    OM_SEL_MODIFY = 1 << 3,     /* Modified rows. */
    OM_SEL_ALL = 0xf,
};

/* Monitor protocol version. */
enum om_version {
    OM_V1,                      /* "monitor": "update" notifications. */
    OM_V2,                      /* "monitor_cond": "update2". */
    OM_V3,                      /* "monitor_cond_since": "update3". */
    OM_N_VERSIONS,
};

const char *om_version_name(enum om_version);

/* Work counters of a monitor.  "Serializations" count update bodies turned
 * from a json tree into text, wherever it happens (when sending, or once
 * when a serialized cache entry is made).  Envelopes ({"id":...,"method":...})
 * are serialized per message in every mode and are not counted there. */
struct om_counters {
    uint64_t compositions;      /* Updates composed from a change set. */
    uint64_t cond_compositions; /* ...of which for conditional clients. */
    uint64_t serializations;    /* Update bodies serialized from trees. */
    uint64_t bytes_serialized;  /* Bytes those serializations produced. */
    uint64_t cache_hits;        /* Lookups that found an entry. */
    uint64_t cache_misses;      /* Lookups that did not. */
    uint64_t cache_inserts;     /* Entries made. */
    uint64_t cache_invalidations;   /* Entries dropped because their change
                                     * set got new changes. */
    uint64_t messages;          /* Messages queued on clients. */
    uint64_t bytes_sent;        /* Bytes of those messages. */
    uint64_t bytes_verbatim;    /* Bytes copied verbatim from pre-serialized
                                 * updates into new message buffers. */
    uint64_t buffers;           /* Message buffers made (each serialized
                                 * message, queued on one client or more). */
    uint64_t bytes_buffered;    /* Bytes in those buffers. */
    uint64_t notifications_serialized;  /* Shared notifications made. */
    uint64_t notifications_shared;  /* Queued by reference to one made
                                     * for another client before. */
};

struct om_monitor;
struct om_client;
struct om_condition;

struct om_monitor *om_monitor_create(struct om_db *, enum om_cache_mode);
void om_monitor_destroy(struct om_monitor *);
bool om_monitor_add_table(struct om_monitor *, struct om_table *,
                          const char *const *columns, size_t n_columns,
                          unsigned int select, char **errorp);
void om_monitor_flush(struct om_monitor *);
const struct om_counters *om_monitor_counters(const struct om_monitor *);
void om_monitor_reset_counters(struct om_monitor *);
size_t om_monitor_n_cache_entries(const struct om_monitor *);
size_t om_monitor_n_change_sets(const struct om_monitor *);
enum om_cache_mode om_monitor_cache_mode(const struct om_monitor *);

/* Test hook: with 'enable' false, new changes no longer invalidate cache
 * entries (a deliberately broken cache, to show the tests catch it). */
void om_monitor_set_invalidation__(struct om_monitor *, bool enable);

/* Test hook: with 'enable' false, the key of shared notifications lacks the
 * last transaction id (a deliberately broken key). */
void om_monitor_set_key_txn_id__(struct om_monitor *, bool enable);

/* Test hook: with 'enable' true, every shared notification and condition
 * group has the same hash, so that lookups rely on the equality checks
 * alone (which the tests can then exercise). */
void om_monitor_set_hash_collisions__(struct om_monitor *, bool enable);

/* Live message buffers (queued on some client or cached) and their bytes,
 * cached shared notifications, and condition groups. */
size_t om_monitor_n_buffers(const struct om_monitor *, size_t *bytesp);
size_t om_monitor_n_notifications(const struct om_monitor *);
size_t om_monitor_n_cond_groups(const struct om_monitor *);

/* Conditions for monitor_cond clients: per table, a list of clauses that a
 * row must match at least one of ("column == value", or a literal
 * true/false).  A table without clauses matches every row.  A condition
 * whose every clause is literally true is unconditional and uses the
 * cache, as in OVS. */
struct om_condition *om_condition_create(void);
void om_condition_destroy(struct om_condition *);
bool om_condition_add_equal(struct om_condition *, const char *table,
                            const char *column, const struct json *value);
void om_condition_add_bool(struct om_condition *, const char *table, bool);

/* Clients.  om_client_create() sends the initial reply at once.  For OM_V3,
 * 'last_txn_id' (nullable) asks for the changes after that transaction, as
 * monitor_cond_since does; the reply says whether it was found.  Conditions
 * are only for OM_V2 and OM_V3.  Returns null, with '*errorp' set, on bad
 * input (unknown table or column in the condition, condition with OM_V1). */
struct om_client *om_client_create(struct om_monitor *, enum om_version,
                                   const char *monitor_id,
                                   const struct om_condition *,
                                   const char *last_txn_id, char **errorp);
void om_client_destroy(struct om_client *);

/* monitor_cond_change: sends 'c' its pending update (under the old
 * condition), then an update that inserts the rows that start matching
 * 'cond' (nullable: everything) and deletes those that stop matching, then
 * the reply to the request.  Not for OM_V1.  Returns false, with '*errorp'
 * set, on bad input, changing nothing. */
bool om_client_cond_change(struct om_client *, const struct om_condition *,
                           char **errorp);
bool om_client_flush(struct om_client *);
bool om_client_needs_flush(const struct om_client *);
bool om_client_is_conditional(const struct om_client *);

/* Condition groups: whether two clients' conditions are the same once
 * canonical (both unconditional counts as the same). */
bool om_client_same_condition(const struct om_client *,
                              const struct om_client *);

/* The client's session, as in lib/jsonrpc.c.  Messages go into an output
 * queue and are written into the client's socket, which holds at most
 * 'window' bytes that the peer has not read (unlimited by default, so
 * everything is written at once).  om_client_receive() is the peer reading
 * everything its socket holds; om_client_run() writes what fits
 * (jsonrpc_run()).  om_monitor_flush() is a pass of the server's main
 * loop: it runs every client's session and sends updates only to those
 * with nothing left to write, as ovsdb-server does.  The backlog is the
 * number of bytes queued and not yet written (jsonrpc_get_backlog()); with
 * a backlog limit, a message that takes the backlog above it disconnects
 * the client.  A disconnected client's queue is dropped, it gets nothing
 * more and its output stays as it was; destroy it. */
void om_client_set_window(struct om_client *, size_t bytes);
void om_client_receive(struct om_client *);
void om_client_run(struct om_client *);
size_t om_client_backlog(const struct om_client *);
size_t om_client_n_queued(const struct om_client *);
void om_client_set_backlog_limit(struct om_client *, size_t bytes);
void om_client_disconnect(struct om_client *);
bool om_client_is_connected(const struct om_client *);

/* What the client received so far (written into its socket, read or not),
 * as the bytes of its messages, each followed by a new-line.  With 'keep' false the client only counts what it
 * receives (for benchmarks). */
const char *om_client_output(const struct om_client *, size_t *lenp);
void om_client_clear_output(struct om_client *);
void om_client_set_keep_output(struct om_client *, bool keep);
uint64_t om_client_bytes(const struct om_client *);
uint64_t om_client_messages(const struct om_client *);

#endif /* ovsdb-monitor.h */
