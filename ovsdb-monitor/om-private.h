/* ovsdb-monitor: internal structures of monitors, change sets, the cache
 * and clients (om-monitor.c), on top of the database's (om-db-private.h). */

#ifndef OM_PRIVATE_H
#define OM_PRIVATE_H 1

#include "om-db-private.h"

/* A monitored table of a monitor. */
struct om_mtable {
    struct om_table *table;     /* The table. */
    size_t index;               /* Position in om_monitor's 'tables'. */
    const struct om_column **columns;   /* Monitored columns, by name. */
    size_t n_columns;           /* Number of 'columns'. */
    unsigned int select;        /* OM_SEL_* bits. */
};

/* A changed row in a change set: values at the start of the change set
 * ('old', null if the row is new since) and now ('new', null if deleted
 * since).  Both are full rows. */
struct om_cs_row {
    struct om_hnode hnode;      /* In om_cs_table's 'rows'. */
    struct om_list node;        /* In om_cs_table's 'row_list'. */
    char uuid[OM_UUID_LEN + 1]; /* Row uuid. */
    struct json **old;          /* Old values, or null. */
    struct json **new;          /* New values, or null. */
};

/* The changed rows of one table in a change set. */
struct om_cs_table {
    struct om_hmap rows;        /* "struct om_cs_row"s by uuid. */
    struct om_list row_list;    /* The same, in order of first change. */
};

/* A change set: every change to the monitored tables since transaction
 * 'prev_txn', shared by the clients that are up to date until then. */
struct om_cs {
    struct om_list node;        /* In om_monitor's 'change_sets'. */
    uint64_t id;                /* Unique id within the monitor. */
    int n_refs;                 /* Clients (and the monitor) using it. */
    char prev_txn[OM_UUID_LEN + 1]; /* Transaction it starts after. */
    struct om_cs_table **tables;    /* Per om_mtable; null if the table is
                                     * not part of this change set. */
    bool dirty;                 /* Got changes in the current commit. */
};

/* A group of conditional clients of a monitor whose conditions are the
 * same once canonical (clauses sorted, duplicates dropped): they get the
 * same updates, so in OM_CACHE_SHARED_COND they share cache entries. */
struct om_cond_group {
    struct om_hnode hnode;      /* In om_monitor's 'cond_groups'. */
    int n_refs;                 /* Clients and cache entries using it. */
    struct om_table_cond *conds;    /* Per om_mtable, canonical. */
};

/* An entry of the json cache. */
struct om_cache_entry {
    struct om_list node;        /* In om_monitor's 'cache'. */
    enum om_version version;    /* Key: protocol version... */
    const struct om_cs *cs;     /* ...change set... */
    struct om_cond_group *group;    /* ...and condition group (null for
                                     * unconditional clients), a reference
                                     * so that its address is not reused. */
    struct json *json;          /* The update (null if empty): a json tree
                                 * or a serialized object. */
    struct om_list notifications;   /* "struct om_notification"s made from
                                     * this update (shared modes). */
};

/* A serialized message queued on one or more clients' output, reference
 * counted (OVS, with the fan-out patch: struct jsonrpc_shared_msg). */
struct om_msg {
    int n_refs;                 /* Queues and caches holding it. */
    size_t size;                /* Bytes in 'data'. */
    char *data;                 /* The message and its new-line. */
    struct om_monitor *mon;     /* For the count of live buffers. */
};

/* A message in a client's output queue. */
struct om_output {
    struct om_list node;        /* In om_client's 'output'. */
    struct om_msg *msg;         /* A reference. */
    size_t ofs;                 /* Bytes of 'msg' already written. */
};

/* A notification of a cached serialized update, serialized whole once and
 * queued by reference on every client whose bytes would be the same.  The
 * key is everything that makes the bytes: the update (cache entry, whose
 * key has the version, change set and condition group), the version, the
 * monitor id and, for update3, the last transaction id, which moves even
 * on commits that leave the cache alone. */
struct om_notification {
    struct om_hnode hnode;      /* In om_monitor's 'notifications'. */
    struct om_list node;        /* In om_cache_entry's 'notifications'. */
    const struct om_cache_entry *entry; /* The update. */
    enum om_version version;    /* Protocol version. */
    char *monitor_id;           /* Monitor id, serialized. */
    char last_txn[OM_UUID_LEN + 1]; /* OM_V3: last transaction id; else "". */
    struct om_msg *msg;         /* The bytes (a reference). */
};

/* A monitor. */
struct om_monitor {
    struct om_db *db;           /* Database it monitors. */
    struct om_db_observer *observer;    /* Its registration with 'db'. */
    enum om_cache_mode mode;    /* How updates are cached. */
    struct om_mtable **tables;  /* Monitored tables, sorted by name. */
    size_t n_tables;            /* Number of 'tables'. */
    struct om_list change_sets; /* "struct om_cs"s. */
    struct om_cs *new_cs;       /* Change set for the next changes. */
    struct om_cs *init_cs;      /* All rows, for initial contents. */
    uint64_t next_cs_id;        /* Id for the next change set. */
    struct om_list cache;       /* "struct om_cache_entry"s. */
    size_t n_cache;             /* Length of 'cache'. */
    struct om_list clients;     /* "struct om_client"s. */
    uint64_t next_request_id;   /* Id of the next initial request. */
    struct om_counters counters;    /* Work done. */
    struct om_hmap notifications;   /* "struct om_notification"s. */
    struct om_hmap cond_groups; /* "struct om_cond_group"s. */
    size_t n_msgs;              /* Live "struct om_msg"s. */
    size_t msg_bytes;           /* Bytes in them. */
    bool invalidation;          /* False only in a deliberately broken
                                 * test mode. */
    bool key_txn_id;            /* False only in a deliberately broken test
                                 * mode: the notification key lacks the
                                 * last transaction id. */
    bool collide;               /* Test mode: notification and condition
                                 * group hashes are all 0. */
};

/* One clause of a condition. */
struct om_clause {
    char *table;                /* Table name. */
    char *column;               /* Column name; null for a literal. */
    struct json *value;         /* Value compared to, or null. */
    bool literal;               /* Value of a literal clause. */
};

/* A condition: clauses ORed per table. */
struct om_condition {
    struct om_clause *clauses;  /* Clauses. */
    size_t n;                   /* Number of 'clauses'. */
};

/* A condition bound to the columns of a monitor's table. */
struct om_table_cond {
    const struct om_mtable *mt; /* Table it applies to. */
    size_t n;                   /* Number of clauses. */
    const struct om_column **columns;   /* Column, or null for literal. */
    struct json **values;       /* Canonical values compared to. */
    bool *literals;             /* Literal values. */
};

/* A client: one jsonrpc monitor of a session. */
struct om_client {
    struct om_list node;        /* In om_monitor's 'clients'. */
    struct om_monitor *mon;     /* Monitor it uses. */
    enum om_version version;    /* Protocol version. */
    struct json *monitor_id;    /* Id the client gave the monitor. */
    char *monitor_id_text;      /* The same, serialized. */
    struct om_cond_group *group;    /* Its condition, if 'conditional'. */
    bool conditional;           /* Some clause is not literally true. */
    struct om_cs *cs;           /* Changes it has yet to receive. */

    /* The session ("struct jsonrpc"): an output queue drained into a
     * socket that holds at most 'window' bytes the peer has not read. */
    struct om_list output;      /* "struct om_output"s. */
    size_t n_output;            /* Length of 'output'. */
    size_t backlog;             /* Bytes queued, not yet written. */
    size_t backlog_limit;       /* Disconnect above this backlog; 0: none. */
    size_t window;              /* Socket capacity; SIZE_MAX: unlimited. */
    size_t unread;              /* Bytes in the socket, not yet read. */
    bool connected;             /* False once the connection broke. */

    struct ds out;              /* What it received (read or not). */
    bool keep;                  /* Keep 'out', or count only. */
    uint64_t bytes;             /* Bytes written to its socket. */
    uint64_t messages;          /* Messages queued for it. */
};

#endif /* om-private.h */
