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

/* An entry of the json cache. */
struct om_cache_entry {
    struct om_list node;        /* In om_monitor's 'cache'. */
    enum om_version version;    /* Key: protocol version... */
    const struct om_cs *cs;     /* ...and change set. */
    struct json *json;          /* The update (null if empty): a json tree
                                 * or a serialized object. */
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
    bool invalidation;          /* False only in a deliberately broken
                                 * test mode. */
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
    struct om_table_cond *conds;    /* Per om_mtable, or null if none. */
    bool conditional;           /* Some clause is not literally true. */
    struct om_cs *cs;           /* Changes it has yet to receive. */
    struct ds out;              /* What it received ("the socket"). */
    bool keep;                  /* Keep 'out', or count only. */
    uint64_t bytes;             /* Bytes received. */
    uint64_t messages;          /* Messages received. */
};

#endif /* om-private.h */
