/* ovsdb-monitor: internal structures shared by om-db.c and om-monitor.c. */

#ifndef OM_PRIVATE_H
#define OM_PRIVATE_H 1

#include "ovsdb-monitor.h"
#include "om-util.h"

#include "openvswitch/dynamic-string.h"

/* A column of a table. */
struct om_column {
    char *name;                 /* Column name. */
    enum om_column_kind kind;   /* Scalar, set or map. */
    enum om_atomic_type key;    /* Type of the atoms or map keys. */
    enum om_atomic_type value;  /* Type of map values. */
    size_t index;               /* Position in the table's columns. */
    struct json *default_value; /* Value of the column in a new row. */
};

/* A row: its uuid and one canonical json value per column. */
struct om_row {
    struct om_hnode hnode;      /* In om_table's 'rows', by uuid. */
    struct om_list node;        /* In om_table's 'row_list'. */
    char uuid[OM_UUID_LEN + 1]; /* Row uuid. */
    struct json **values;       /* 'n_columns' values, references held. */
};

/* A table. */
struct om_table {
    char *name;                 /* Table name. */
    struct om_db *db;           /* Database that holds it. */
    struct om_column *columns;  /* Columns, in definition order. */
    size_t n_columns;           /* Number of columns. */
    struct om_hmap rows;        /* "struct om_row"s by uuid. */
    struct om_list row_list;    /* "struct om_row"s in insertion order. */
};

/* The change of one row by a transaction. */
struct om_change {
    struct om_hnode hnode;      /* In om_txn's 'map' while open. */
    struct om_table *table;     /* Table of the row. */
    char uuid[OM_UUID_LEN + 1]; /* Row uuid. */
    struct json **old;          /* Values before; null if inserted. */
    struct json **new;          /* Values after; null if deleted. */
    bool deleted;               /* Deleted by the (open) transaction. */
};

/* An open transaction. */
struct om_txn {
    struct om_db *db;           /* Database it changes. */
    struct om_hmap map;         /* "struct om_change"s by table and uuid. */
    struct om_change **changes; /* The same, in order of first touch. */
    size_t n;                   /* Number of 'changes'. */
    size_t allocated;           /* Capacity of 'changes'. */
};

/* A committed transaction, kept for monitor_cond_since. */
struct om_history_txn {
    struct om_list node;        /* In om_db's 'history', oldest first. */
    char id[OM_UUID_LEN + 1];   /* Transaction id. */
    struct om_change **changes; /* Row changes. */
    size_t n;                   /* Number of 'changes'. */
};

/* A database. */
struct om_db {
    struct om_table **tables;   /* Tables, in creation order. */
    size_t n_tables;            /* Number of tables. */
    uint64_t rng;               /* State of the uuid generator. */
    char last_txn[OM_UUID_LEN + 1]; /* Id of the last commit, or zeros. */
    struct om_list monitors;    /* "struct om_monitor"s. */
    struct om_list history;     /* "struct om_history_txn"s. */
    size_t n_history;           /* Length of 'history'. */
    struct om_txn *txn;         /* The open transaction, if any. */
};

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
    struct om_list node;        /* In om_db's 'monitors'. */
    struct om_db *db;           /* Database it monitors. */
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

/* om-db.c. */
char *om_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
int om_atom_compare(const struct json *, const struct json *);
size_t om_datum_n(const struct json *, enum om_column_kind);
const struct json *om_datum_at(const struct json *, enum om_column_kind,
                               size_t);
struct json *om_datum_render(enum om_column_kind, struct json **, size_t n);
bool om_value_is_default(const struct om_column *, const struct json *);
struct json **om_values_clone(struct json *const *, size_t n);
void om_values_destroy(struct json **, size_t n);
void om_change_destroy(struct om_change *);
const struct om_column *om_table_find_column(const struct om_table *,
                                             const char *name);
struct om_row *om_table_find_row(const struct om_table *, const char *uuid);
struct json *om_value_canonical__(const struct om_column *,
                                  const struct json *, char **errorp);

/* om-monitor.c. */
void om_monitor_commit__(struct om_monitor *, struct om_change **, size_t n);

#endif /* om-private.h */
