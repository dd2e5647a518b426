/* ovsdb-monitor: internal structures of the database (om-db.c), which
 * its observers (om-monitor.c) may read.  Nothing here knows about
 * monitors: the database reports commits through om_db_observe(). */

#ifndef OM_DB_PRIVATE_H
#define OM_DB_PRIVATE_H 1

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
    struct om_list observers;   /* "struct om_db_observer"s. */
    struct om_list history;     /* "struct om_history_txn"s. */
    size_t n_history;           /* Length of 'history'. */
    struct om_txn *txn;         /* The open transaction, if any. */
};

/* A commit observer of a database (see om_db_observe()). */
struct om_db_observer {
    struct om_list node;        /* In om_db's 'observers'. */
    om_db_observer_cb *cb;      /* Called on commit and on destruction. */
    void *aux;                  /* Passed to 'cb'. */
};

/* om-db.c. */
char *om_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
void om_set_error(char **errorp, char *error);
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

#endif /* om-db-private.h */
