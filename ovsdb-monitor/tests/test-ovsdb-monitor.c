/* Tests of the ovsdb-monitor model.
 *
 * Prints "ok NAME" or "FAIL NAME: why" per case and ends with
 * "N passed, N failed"; exits 1 if any case failed.
 *
 * Besides comparing the three cache modes with each other, every client's
 * output is replayed by an independent replica (an IDL in miniature, below)
 * and compared with the database: that checks the composed updates
 * themselves, not only that the modes agree. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovsdb-monitor.h"
#include "om-sb-columns.h"
#include "om-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"

/* Evaluates X, which must be true. */
#define MUST(X)                                                     \
    do {                                                            \
        if (!(X)) {                                                 \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #X); \
            abort();                                                \
        }                                                           \
    } while (0)

static int n_passed, n_failed;
static char why[1024];          /* First failure of the current case. */

static void
failf(const char *format, ...)
{
    if (!why[0]) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, sizeof why, format, args);
        va_end(args);
    }
}

#define EXPECT(COND, ...)                       \
    do {                                        \
        if (!(COND)) {                          \
            failf(__VA_ARGS__);                 \
        }                                       \
    } while (0)

static void
report(const char *name)
{
    if (why[0]) {
        printf("FAIL %s: %s\n", name, why);
        n_failed++;
    } else {
        printf("ok %s\n", name);
        n_passed++;
    }
    fflush(stdout);
    why[0] = '\0';
}

/* ---------------------------------------------------------------------
 * Schema and random content.
 * --------------------------------------------------------------------- */

#define N_TABLES 4
static const struct om_column_def pb_cols[] = {
    OM_SB_PORT_BINDING_COLUMNS,
    { "external_ids", OM_MAP, OM_STRING, OM_STRING },
    { "mac", OM_SET, OM_STRING, 0 },
};
static const struct om_column_def lf_cols[] = {
    OM_SB_LOGICAL_FLOW_COLUMNS,
    { "tags", OM_SET, OM_INTEGER, 0 },
    { "options", OM_MAP, OM_STRING, OM_INTEGER },
};
static const struct om_column_def mb_cols[] = {
    { "ip", OM_SCALAR, OM_STRING, 0 },
    { "mac", OM_SCALAR, OM_STRING, 0 },
    { "datapath", OM_SCALAR, OM_UUID, 0 },
    { "timestamp", OM_SCALAR, OM_REAL, 0 },
};
static const struct om_column_def ch_cols[] = {
    { "name", OM_SCALAR, OM_STRING, 0 },
    { "hostname", OM_SCALAR, OM_STRING, 0 },
    { "encaps", OM_SET, OM_UUID, 0 },
};

/* A table of the test schema and how the monitor watches it. */
struct table_spec {
    const char *name;                   /* Table name. */
    const struct om_column_def *cols;   /* Its columns. */
    size_t n_cols;                      /* Number of 'cols'. */
    const char *const *monitored;       /* Monitored columns; null: all. */
    size_t n_monitored;                 /* Number of 'monitored'. */
    unsigned int select;                /* OM_SEL_* bits. */
};

static const char *const mb_monitored[] = { "ip", "mac", "datapath" };
static const struct table_spec specs[N_TABLES] = {
    { "Port_Binding", pb_cols, OM_ARRAY_SIZE(pb_cols), NULL, 0, OM_SEL_ALL },
    { "Logical_Flow", lf_cols, OM_ARRAY_SIZE(lf_cols), NULL, 0, OM_SEL_ALL },
    { "MAC_Binding", mb_cols, 4, mb_monitored, 3, OM_SEL_ALL },
    { "Chassis", ch_cols, 3, NULL, 0,
      OM_SEL_INITIAL | OM_SEL_INSERT | OM_SEL_DELETE },
};

static unsigned int
rnd_n(uint64_t *s, unsigned int n)
{
    return (unsigned int) (om_splitmix64(s) % n);
}

static struct json *
rnd_atom(uint64_t *s, enum om_atomic_type type)
{
    static const char *const words[] = {
        "lr0", "ls1", "sw2", "vif3", "br-int", "ip4.dst == 10.0.0.1",
        "next;", "", "outport = \"p\\\"q\"; output;", "\xc3\xa9t\xc3\xa9",
    };
    char buf[64];

    switch (type) {
    case OM_INTEGER:
        return json_integer_create(rnd_n(s, 5) ? rnd_n(s, 8)
                                                : rnd_n(s, 70000));
    case OM_REAL:
        return json_real_create(rnd_n(s, 100000) / 8.0);
    case OM_BOOLEAN:
        return json_boolean_create(rnd_n(s, 2));
    case OM_STRING:
        return json_string_create(words[rnd_n(s, 10)]);
    case OM_UUID:
        snprintf(buf, sizeof buf, "%08x-0000-4000-8000-%012x",
                 rnd_n(s, 4), rnd_n(s, 3));
        return json_array_create_2(json_string_create("uuid"),
                                   json_string_create(buf));
    }
    return json_null_create();
}

static struct json *
rnd_value(uint64_t *s, const struct om_column_def *col)
{
    if (col->kind == OM_SCALAR) {
        return rnd_atom(s, col->key);
    }

    size_t n = rnd_n(s, 4);
    struct json *list = json_array_create_empty();
    for (size_t i = 0; i < n; i++) {
        if (col->kind == OM_SET) {
            json_array_add(list, rnd_atom(s, col->key));
        } else {
            struct json *key = rnd_atom(s, col->key);
            bool dup = false;
            for (size_t j = 0; j < json_array_size(list); j++) {
                dup |= json_equal(json_array_at(json_array_at(list, j), 0),
                                  key);
            }
            if (dup) {
                json_destroy(key);
                continue;
            }
            json_array_add(list, json_array_create_2(key,
                                                     rnd_atom(s, col->value)));
        }
    }
    if (col->kind == OM_SET && n == 1 && rnd_n(s, 2)) {
        struct json *atom = json_clone(json_array_at(list, 0));
        json_destroy(list);
        return atom;
    }
    return json_array_create_2(json_string_create(col->kind == OM_SET
                                                  ? "set" : "map"), list);
}

/* ---------------------------------------------------------------------
 * A world: database, monitor, clients.
 * --------------------------------------------------------------------- */

#define MAX_CLIENTS 3100

struct client_info {
    enum om_version version;    /* Protocol version. */
    int cond;                   /* Condition number, 0 for none. */
    int pred;                   /* Client it reconnects for, or -1. */
    char *final_output;         /* Output, kept when it left. */
};

/* A database, its monitor, and the clients of a test. */
struct world {
    struct om_db *db;                       /* The database. */
    struct om_monitor *mon;                 /* Its one monitor. */
    struct om_table *tables[N_TABLES];      /* Tables, as in 'specs'. */
    struct om_table *unmonitored;           /* A table nobody monitors. */
    struct om_client *clients[MAX_CLIENTS]; /* Clients; null once gone. */
    struct client_info info[MAX_CLIENTS];   /* What the test knows. */
    size_t n_clients;                       /* Clients created so far. */
    size_t n_stalled;                       /* Times a flush found a client
                                             * with a backlog. */
};

static void
world_init(struct world *w, enum om_cache_mode mode, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->db = om_db_create(seed);
    w->mon = om_monitor_create(w->db, mode);
    for (size_t i = 0; i < N_TABLES; i++) {
        char *error = NULL;
        w->tables[i] = om_db_add_table(w->db, specs[i].name, specs[i].cols,
                                       specs[i].n_cols);
        if (!om_monitor_add_table(w->mon, w->tables[i], specs[i].monitored,
                                  specs[i].n_monitored, specs[i].select,
                                  &error)) {
            fprintf(stderr, "add table: %s\n", error);
            abort();
        }
    }
    static const struct om_column_def sb_global_cols[] = {
        { "nb_cfg", OM_SCALAR, OM_INTEGER, 0 },
    };
    w->unmonitored = om_db_add_table(w->db, "SB_Global", sb_global_cols, 1);
}

/* A commit that changes only the unmonitored table: the last transaction
 * id moves, the monitor's change sets and cache stay as they are. */
static void
world_unmonitored_txn(struct world *w)
{
    struct om_txn *txn = om_txn_begin(w->db);
    om_txn_insert(txn, w->unmonitored);
    om_txn_commit(txn);
}

/* Sets 'column' of row 'uuid' of 'table' in 'txn' to 'value', which must
 * be valid, and frees 'value'. */
static void
txn_set(struct om_txn *txn, struct om_table *table, const char *uuid,
        const char *column, struct json *value)
{
    MUST(om_txn_set(txn, table, uuid, column, value, NULL));
    json_destroy(value);
}

/* Commits a transaction that inserts a row in 'table' with 'column' set to
 * 'value' (which it frees).  Copies the row's uuid to 'uuid' if nonnull. */
static void
commit_insert(struct world *w, struct om_table *table, const char *column,
              struct json *value, char uuid[37])
{
    struct om_txn *txn = om_txn_begin(w->db);
    const char *row = om_txn_insert(txn, table);

    if (uuid) {
        snprintf(uuid, 37, "%s", row);
    }
    txn_set(txn, table, row, column, value);
    om_txn_commit(txn);
}

/* Commits a transaction that sets 'column' of row 'uuid' of 'table' to
 * 'value' (which it frees). */
static void
commit_set(struct world *w, struct om_table *table, const char *uuid,
           const char *column, struct json *value)
{
    struct om_txn *txn = om_txn_begin(w->db);

    txn_set(txn, table, uuid, column, value);
    om_txn_commit(txn);
}

static void
world_destroy(struct world *w)
{
    for (size_t i = 0; i < w->n_clients; i++) {
        free(w->info[i].final_output);
    }
    om_db_destroy(w->db);       /* Destroys the monitor and its clients. */
}

/* Adds the clause COLUMN == VALUE on TABLE to 'c', and frees 'value'. */
static void
cond_add_equal(struct om_condition *c, const char *table, const char *column,
               struct json *value)
{
    om_condition_add_equal(c, table, column, value);
    json_destroy(value);
}

/* Condition number 'n' (1..3; 5 and 6 are 1 and 2 with their clauses in
 * another order and repeated, the same once canonical; 7 is 1 with other
 * values; others: literally true). */
static struct om_condition *
make_condition(int n)
{
    struct om_condition *c = om_condition_create();

    switch (n) {
    case 1:
        cond_add_equal(c, "Port_Binding", "up", json_boolean_create(true));
        cond_add_equal(c, "Logical_Flow", "pipeline",
                       json_string_create("ingress"));
        break;
    case 2:
        for (int k = 0; k < 3; k++) {
            cond_add_equal(c, "Logical_Flow", "table_id",
                           json_integer_create(k));
        }
        om_condition_add_bool(c, "MAC_Binding", false);
        break;
    case 3:
        cond_add_equal(c, "Port_Binding", "chassis",
                       json_string_create("lr0"));
        cond_add_equal(c, "MAC_Binding", "ip", json_string_create("ls1"));
        break;
    case 5:
        cond_add_equal(c, "Logical_Flow", "pipeline",
                       json_string_create("ingress"));
        cond_add_equal(c, "Port_Binding", "up", json_boolean_create(true));
        cond_add_equal(c, "Logical_Flow", "pipeline",
                       json_string_create("ingress"));
        break;
    case 6:
        om_condition_add_bool(c, "MAC_Binding", false);
        for (int k = 3; k >= 0; k--) {
            cond_add_equal(c, "Logical_Flow", "table_id",
                           json_integer_create(k % 3));
        }
        break;
    case 7:
        cond_add_equal(c, "Port_Binding", "up", json_boolean_create(false));
        cond_add_equal(c, "Logical_Flow", "pipeline",
                       json_string_create("egress"));
        break;
    default:
        /* Literally true everywhere: unconditional. */
        om_condition_add_bool(c, "Port_Binding", true);
        break;
    }
    return c;
}

/* A client with monitor id 'id' (null: "mon-N" where N is the client's
 * number modulo 3, so that some clients get the same bytes and others of
 * the same version do not). */
static int
world_join_id(struct world *w, enum om_version v, int cond, int pred,
              const char *last_txn_id, const char *id_)
{
    size_t i = w->n_clients++;
    char id[32], *error = NULL;
    struct om_condition *c = cond ? make_condition(cond) : NULL;

    if (i >= MAX_CLIENTS) {
        abort();
    }
    if (id_) {
        snprintf(id, sizeof id, "%s", id_);
    } else {
        snprintf(id, sizeof id, "mon-%zu", i % 3);
    }
    w->info[i].version = v;
    w->info[i].cond = cond;
    w->info[i].pred = pred;
    w->clients[i] = om_client_create(w->mon, v, id, c, last_txn_id, &error);
    if (!w->clients[i]) {
        fprintf(stderr, "client: %s\n", error);
        abort();
    }
    om_condition_destroy(c);
    return (int) i;
}

static int
world_join(struct world *w, enum om_version v, int cond, int pred,
           const char *last_txn_id)
{
    return world_join_id(w, v, cond, pred, last_txn_id, NULL);
}

/* Connects 'n' clients of version 'v' with monitor id 'id' to 'w', without
 * conditions. */
static void
world_join_n(struct world *w, enum om_version v, const char *id, int n)
{
    for (int i = 0; i < n; i++) {
        world_join_id(w, v, 0, -1, NULL, id);
    }
}

static void
world_cond_change(struct world *w, size_t i, int cond)
{
    struct om_condition *c = cond ? make_condition(cond) : NULL;
    char *error = NULL;

    if (!om_client_cond_change(w->clients[i], c, &error)) {
        fprintf(stderr, "cond change: %s\n", error);
        abort();
    }
    w->info[i].cond = cond;
    om_condition_destroy(c);
}

/* Client 'i' closes its connection, maybe in the middle of a message: it
 * keeps what it received up to its last complete message. */
static void
world_leave(struct world *w, size_t i)
{
    size_t len;
    const char *out = om_client_output(w->clients[i], &len);

    while (len && out[len - 1] != '\n') {
        len--;
    }
    w->info[i].final_output = strndup(out, len);
    om_client_destroy(w->clients[i]);
    w->clients[i] = NULL;
}

static const char *
world_output(const struct world *w, size_t i)
{
    return (w->clients[i] ? om_client_output(w->clients[i], NULL)
            : w->info[i].final_output);
}

/* A random transaction of 1 to 6 operations. */
static void
world_random_txn(struct world *w, uint64_t *s)
{
    struct om_txn *txn = om_txn_begin(w->db);
    size_t n_ops = 1 + rnd_n(s, 6);

    for (size_t op = 0; op < n_ops; op++) {
        size_t t = rnd_n(s, N_TABLES);
        struct om_table *table = w->tables[t];
        const struct table_spec *spec = &specs[t];
        char (*uuids)[37];
        size_t n_rows = om_table_row_uuids(table, &uuids);
        unsigned int kind = rnd_n(s, 10);

        if (kind < 4 || n_rows < 3) {
            char uuid[37];
            snprintf(uuid, sizeof uuid, "%s", om_txn_insert(txn, table));
            for (size_t c = 0; c < spec->n_cols; c++) {
                if (rnd_n(s, 4)) {
                    txn_set(txn, table, uuid, spec->cols[c].name,
                            rnd_value(s, &spec->cols[c]));
                }
            }
            if (!rnd_n(s, 12)) {
                om_txn_delete(txn, table, uuid);    /* Within the txn. */
            }
        } else if (kind < 8) {
            const char *uuid = uuids[rnd_n(s, n_rows)];
            size_t n_changes = 1 + rnd_n(s, 3);
            for (size_t k = 0; k < n_changes; k++) {
                const struct om_column_def *col
                    = &spec->cols[rnd_n(s, spec->n_cols)];
                txn_set(txn, table, uuid, col->name, rnd_value(s, col));
            }
        } else {
            om_txn_delete(txn, table, uuids[rnd_n(s, n_rows)]);
        }
        free(uuids);
    }
    om_txn_commit(txn);
}

/* 'n' random transactions. */
static void
world_random_txns(struct world *w, uint64_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        world_random_txn(w, s);
    }
}

/* A client that a test connects at its start. */
struct client_spec {
    enum om_version version;    /* Protocol version. */
    int cond;                   /* Condition number, 0 for none. */
};

/* Initializes 'w' with cache 'mode' and database seed 'seed', commits
 * 'n_txns' random transactions from '*s', then connects the 'n' clients of
 * 'specs', in order, with the monitor ids of world_join(). */
static void
world_start(struct world *w, enum om_cache_mode mode, uint64_t seed,
            uint64_t *s, int n_txns, const struct client_spec *specs,
            size_t n)
{
    world_init(w, mode, seed);
    world_random_txns(w, s, n_txns);
    for (size_t i = 0; i < n; i++) {
        world_join(w, specs[i].version, specs[i].cond, -1, NULL);
    }
}

/* ---------------------------------------------------------------------
 * The replica: applies what a client received, as an IDL would.
 *
 * It keeps, per table and row, each received column as a list of
 * elements (a scalar as a one-element list), so that set and map diffs can
 * be applied and values compared regardless of element order.
 * --------------------------------------------------------------------- */

static const struct table_spec *
find_spec(const char *table)
{
    for (size_t i = 0; i < N_TABLES; i++) {
        if (!strcmp(specs[i].name, table)) {
            return &specs[i];
        }
    }
    return NULL;
}

static const struct om_column_def *
find_col(const struct table_spec *spec, const char *name)
{
    for (size_t i = 0; i < spec->n_cols; i++) {
        if (!strcmp(spec->cols[i].name, name)) {
            return &spec->cols[i];
        }
    }
    return NULL;
}

static bool
is_tagged(const struct json *v, const char *tag)
{
    return (v->type == JSON_ARRAY && json_array_size(v) == 2
            && json_array_at(v, 0)->type == JSON_STRING
            && !strcmp(json_string(json_array_at(v, 0)), tag));
}

/* Elements of a value as it is on the wire. */
static struct json *
elems_of(const struct om_column_def *col, const struct json *v)
{
    if (col->kind == OM_SCALAR || (col->kind == OM_SET
                                   && !is_tagged(v, "set"))) {
        return json_array_create_1(json_clone(v));
    }
    if (!is_tagged(v, col->kind == OM_SET ? "set" : "map")) {
        failf("column %s: bad value on the wire", col->name);
        return json_array_create_empty();
    }
    return json_deep_clone(json_array_at(v, 1));
}

static bool
elems_equal(const struct json *a, const struct json *b)
{
    size_t n = json_array_size(a);

    if (n != json_array_size(b)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (size_t j = 0; j < n && !found; j++) {
            found = json_equal(json_array_at(a, i), json_array_at(b, j));
        }
        if (!found) {
            return false;
        }
    }
    return true;
}

static bool
is_default_elems(const struct om_column_def *col, const struct json *elems)
{
    if (col->kind != OM_SCALAR) {
        return json_array_size(elems) == 0;
    }
    const struct json *a = json_array_at(elems, 0);
    switch (col->key) {
    case OM_INTEGER: return a->type == JSON_INTEGER && !json_integer(a);
    case OM_REAL: return a->type == JSON_REAL && json_real(a) == 0.0;
    case OM_BOOLEAN: return a->type == JSON_FALSE;
    case OM_STRING: return a->type == JSON_STRING && !*json_string(a);
    case OM_UUID:
        return !strcmp(json_string(json_array_at(a, 1)),
                       "00000000-0000-0000-0000-000000000000");
    }
    return false;
}

/* Applies a set or map diff to a list of elements. */
static void
apply_diff(const struct om_column_def *col, struct json *elems,
           const struct json *diff)
{
    for (size_t i = 0; i < json_array_size(diff); i++) {
        const struct json *d = json_array_at(diff, i);
        size_t n = json_array_size(elems), j;

        for (j = 0; j < n; j++) {
            const struct json *e = json_array_at(elems, j);
            if (col->kind == OM_SET
                ? json_equal(e, d)
                : json_equal(json_array_at(e, 0), json_array_at(d, 0))) {
                break;
            }
        }
        if (j == n) {
            json_array_add(elems, json_clone(d));
        } else if (col->kind == OM_MAP
                   && !json_equal(json_array_at(json_array_at(elems, j), 1),
                                  json_array_at(d, 1))) {
            /* json_array_set() leaves the replaced element to us. */
            json_destroy((struct json *) json_array_at(elems, j));
            json_array_set(elems, j, json_clone(d));
        } else {
            /* Remove element j: move the last one there. */
            struct json *last = json_array_pop(elems);
            if (j < n - 1) {
                json_destroy((struct json *) json_array_at(elems, j));
                json_array_set(elems, j, last);
            } else {
                json_destroy(last);
            }
        }
    }
}

static struct json *
get_or_create(struct json *obj, const char *name)
{
    struct json *v = json_object_get(obj, name);
    if (!v) {
        v = json_object_create();
        json_object_put(obj, name, v);
    }
    return v;
}

/* A replica's row from the <row> 'columns' of an update of 'spec'. */
static struct json *
replica_row(const struct table_spec *spec, const struct json *columns)
{
    struct json *r = json_object_create();
    struct shash_node *cn;

    SHASH_FOR_EACH (cn, json_object(columns)) {
        const struct om_column_def *col = find_col(spec, cn->name);
        if (!col) {
            failf("unknown column %s", cn->name);
            continue;
        }
        json_object_put(r, cn->name, elems_of(col, cn->data));
    }
    return r;
}

static void
apply_update(struct json *rep, enum om_version version,
             const struct json *update)
{
    struct shash_node *tn;

    if (update->type != JSON_OBJECT) {
        failf("update is not an object");
        return;
    }
    SHASH_FOR_EACH (tn, json_object(update)) {
        const struct table_spec *spec = find_spec(tn->name);
        const struct json *rows = tn->data;
        struct shash_node *rn;

        if (!spec || rows->type != JSON_OBJECT) {
            failf("update for unknown table %s", tn->name);
            continue;
        }
        struct json *trows = get_or_create(rep, tn->name);
        SHASH_FOR_EACH (rn, json_object(rows)) {
            const struct json *ru = rn->data;
            struct json *row = json_object_get(trows, rn->name);

            if (ru->type != JSON_OBJECT || !shash_count(json_object(ru))) {
                failf("%s: empty row update", rn->name);
                continue;
            }
            if (version == OM_V1) {
                const struct json *new = json_object_get(ru, "new");
                const struct json *old = json_object_get(ru, "old");
                if (new && !old && row) {
                    failf("%s: v1 insert of a row the client has", rn->name);
                } else if ((old || !new) && !row) {
                    failf("%s: v1 change of a row the client lacks",
                          rn->name);
                }
                if (new) {
                    json_object_put(trows, rn->name, replica_row(spec, new));
                } else {
                    json_object_delete(trows, rn->name);
                }
                continue;
            }

            const struct shash_node *op = json_object(ru)->nodes;
            if (shash_count(json_object(ru)) != 1) {
                failf("%s: row-update2 with %zu members", rn->name,
                      shash_count(json_object(ru)));
            } else if (!strcmp(op->name, "delete")) {
                if (!row) {
                    failf("%s: delete of a row the client lacks", rn->name);
                }
                json_object_delete(trows, rn->name);
            } else if (!strcmp(op->name, "initial")
                       || !strcmp(op->name, "insert")) {
                if (row) {
                    failf("%s: insert of a row the client has", rn->name);
                }
                json_object_put(trows, rn->name,
                                replica_row(spec, op->data));
            } else if (!strcmp(op->name, "modify")) {
                if (!row) {
                    failf("%s: modify of a row the client lacks", rn->name);
                    continue;
                }
                struct shash_node *cn;
                SHASH_FOR_EACH (cn, json_object((const struct json *)
                                                op->data)) {
                    const struct om_column_def *col = find_col(spec,
                                                               cn->name);
                    if (!col) {
                        failf("unknown column %s", cn->name);
                        continue;
                    }
                    if (col->kind == OM_SCALAR) {
                        json_object_put(row, cn->name,
                                        elems_of(col, cn->data));
                        continue;
                    }
                    struct json *elems = json_object_get(row, cn->name);
                    if (!elems) {
                        elems = json_array_create_empty();
                        json_object_put(row, cn->name, elems);
                    }
                    struct json *diff = elems_of(col, cn->data);
                    apply_diff(col, elems, diff);
                    json_destroy(diff);
                }
            } else {
                failf("%s: unknown row-update2 op %s", rn->name, op->name);
            }
        }
    }
}

/* Applies every message of 'output' to '*repp' (if '*repp' is nonnull).
 * Stores the last transaction id seen (update3) in 'last_txn' if
 * nonnull. */
static void
apply_output(struct json **repp, enum om_version version, const char *output,
             char last_txn[37])
{
    const char *p = output;
    bool first = true;

    while (*p) {
        const char *nl = strchr(p, '\n');
        if (!nl) {
            failf("message without a new-line");
            return;
        }
        struct json *msg = json_from_buffer(p, nl - p);
        p = nl + 1;
        if (msg->type != JSON_OBJECT) {
            failf("message does not parse: %s",
                  msg->type == JSON_STRING ? json_string(msg) : "?");
            json_destroy(msg);
            return;
        }

        const struct json *result = json_object_get(msg, "result");
        const struct json *params = json_object_get(msg, "params");
        const struct json *method = json_object_get(msg, "method");
        const struct json *update = NULL, *txn = NULL;
        static const char *const methods[] = { "update", "update2",
                                               "update3" };
        if (result && !first) {
            /* The reply to a monitor_cond_change. */
            if (result->type != JSON_OBJECT
                || shash_count(json_object(result))) {
                failf("monitor_cond_change reply is not {}");
            }
        } else if (result) {
            if (version == OM_V3) {
                if (result->type != JSON_ARRAY || json_array_size(result) != 3
                    || json_array_at(result, 1)->type != JSON_STRING) {
                    failf("bad monitor_cond_since reply");
                } else {
                    if (json_array_at(result, 0)->type == JSON_FALSE
                        && *repp) {
                        /* Not found: the reply has everything. */
                        json_destroy(*repp);
                        *repp = json_object_create();
                    }
                    txn = json_array_at(result, 1);
                    update = json_array_at(result, 2);
                }
            } else {
                update = result;
            }
        } else if (method && method->type == JSON_STRING
                   && !strcmp(json_string(method), methods[version])
                   && params && params->type == JSON_ARRAY
                   && json_array_size(params) == (version == OM_V3 ? 3 : 2)) {
            update = json_array_at(params, version == OM_V3 ? 2 : 1);
            txn = version == OM_V3 ? json_array_at(params, 1) : NULL;
        } else {
            failf("unexpected message for %s", methods[version]);
        }
        if (update && *repp) {
            apply_update(*repp, version, update);
        }
        if (txn && last_txn && txn->type == JSON_STRING) {
            snprintf(last_txn, 37, "%s", json_string(txn));
        }
        first = false;
        json_destroy(msg);
    }
}

/* Whether row 'uuid' of 'table' matches condition number 'cond', decided
 * here independently of the module. */
static bool
row_matches(int cond, const struct om_table *table, const char *uuid)
{
    const char *name = om_table_name(table);
    const struct json *v;

    switch (cond == 5 ? 1 : cond == 6 ? 2 : cond) {
    case 1:
        if (!strcmp(name, "Port_Binding")) {
            return om_table_get(table, uuid, "up")->type == JSON_TRUE;
        } else if (!strcmp(name, "Logical_Flow")) {
            return !strcmp(json_string(om_table_get(table, uuid,
                                                    "pipeline")),
                           "ingress");
        }
        return true;
    case 7:
        if (!strcmp(name, "Port_Binding")) {
            return om_table_get(table, uuid, "up")->type == JSON_FALSE;
        } else if (!strcmp(name, "Logical_Flow")) {
            return !strcmp(json_string(om_table_get(table, uuid,
                                                    "pipeline")),
                           "egress");
        }
        return true;
    case 2:
        if (!strcmp(name, "Logical_Flow")) {
            v = om_table_get(table, uuid, "table_id");
            return json_integer(v) >= 0 && json_integer(v) < 3;
        }
        return strcmp(name, "MAC_Binding") != 0;
    case 3:
        if (!strcmp(name, "Port_Binding")) {
            /* "chassis" == "lr0": the set is exactly {"lr0"}. */
            v = om_table_get(table, uuid, "chassis");
            return v->type == JSON_STRING && !strcmp(json_string(v), "lr0");
        } else if (!strcmp(name, "MAC_Binding")) {
            return !strcmp(json_string(om_table_get(table, uuid, "ip")),
                           "ls1");
        }
        return true;
    default:
        return true;
    }
}

/* Compares replica 'rep' of a client with condition 'cond' with the
 * database.  Returns the number of rows checked. */
static size_t
compare_replica(const struct world *w, const struct json *rep, int cond,
                const char *who)
{
    size_t n_checked = 0;

    for (size_t t = 0; t < N_TABLES; t++) {
        const struct table_spec *spec = &specs[t];
        const struct om_table *table = w->tables[t];
        const struct json *trows = json_object_get(rep, spec->name);
        size_t n_expected = 0;
        char (*uuids)[37];
        size_t n = om_table_row_uuids(table, &uuids);

        for (size_t r = 0; r < n; r++) {
            const struct json *row = trows ? json_object_get(trows, uuids[r])
                                           : NULL;
            if (!row_matches(cond, table, uuids[r])) {
                EXPECT(!row, "%s: %s %s should not be there", who,
                       spec->name, uuids[r]);
                continue;
            }
            n_expected++;
            if (!row) {
                failf("%s: missing %s row %s", who, spec->name, uuids[r]);
                continue;
            }
            if (!(spec->select & OM_SEL_MODIFY)) {
                continue;       /* Modifications are not sent. */
            }
            size_t n_mon = spec->monitored ? spec->n_monitored : spec->n_cols;
            for (size_t c = 0; c < n_mon; c++) {
                const struct om_column_def *col
                    = (spec->monitored ? find_col(spec, spec->monitored[c])
                       : &spec->cols[c]);
                struct json *dbv = elems_of(col, om_table_get(table, uuids[r],
                                                              col->name));
                const struct json *rv = json_object_get(row, col->name);
                if (rv ? !elems_equal(rv, dbv) : !is_default_elems(col, dbv)) {
                    char *a = rv ? json_to_string(rv, 0) : strdup("(absent)");
                    char *b = json_to_string(dbv, 0);
                    failf("%s: %s %s column %s: client has %s, db has %s",
                          who, spec->name, uuids[r], col->name, a, b);
                    free(a);
                    free(b);
                }
                json_destroy(dbv);
            }
            n_checked++;
        }
        size_t n_rep = trows ? shash_count(json_object(trows)) : 0;
        EXPECT(n_rep == n_expected, "%s: %s: client has %zu rows, expected "
               "%zu", who, spec->name, n_rep, n_expected);
        if (!spec->monitored) {
            /* Unmonitored columns must never be sent. */
        } else if (trows) {
            struct shash_node *rn;
            SHASH_FOR_EACH (rn, json_object(trows)) {
                EXPECT(!json_object_get(rn->data, "timestamp"),
                       "%s: unmonitored column sent", who);
            }
        }
        free(uuids);
    }
    return n_checked;
}

/* Replays everything client 'i' (and the clients it reconnects for)
 * received. */
static struct json *
replay_client(const struct world *w, size_t i)
{
    struct json *rep;

    if (w->info[i].pred >= 0) {
        rep = replay_client(w, w->info[i].pred);
    } else {
        rep = json_object_create();
    }
    apply_output(&rep, w->info[i].version, world_output(w, i), NULL);
    return rep;
}

/* Replays every live client of 'w' and compares it with the database;
 * failures name 'what' (if nonnull) and the client.  Returns the number of
 * rows checked, and the number of clients in '*n_live' if nonnull. */
static size_t
check_replicas(const struct world *w, const char *what, size_t *n_live)
{
    size_t n_rows = 0, n = 0;

    for (size_t i = 0; i < w->n_clients; i++) {
        if (w->clients[i]) {
            char who[128];
            snprintf(who, sizeof who, "%s%sclient %zu", what ? what : "",
                     what ? ", " : "", i);
            struct json *rep = replay_client(w, i);
            n_rows += compare_replica(w, rep, w->info[i].cond, who);
            json_destroy(rep);
            n++;
        }
    }
    if (n_live) {
        *n_live = n;
    }
    return n_rows;
}

/* ---------------------------------------------------------------------
 * Scenarios.
 * --------------------------------------------------------------------- */

static void
flush_all(struct world *w)
{
    om_monitor_flush(w->mon);
    for (size_t i = 0; i < w->n_clients; i++) {
        w->n_stalled += w->clients[i] && om_client_backlog(w->clients[i]);
    }
}

/* Clears the output of every client, then flushes them all. */
static void
clear_and_flush_all(struct world *w)
{
    for (size_t i = 0; i < w->n_clients; i++) {
        om_client_clear_output(w->clients[i]);
    }
    flush_all(w);
}

/* Client 'i' of 'w' has received exactly what 'format' makes; 'what'
 * names it in the failure. */
static void __attribute__((format(printf, 4, 5)))
expect_output(const struct world *w, size_t i, const char *what,
              const char *format, ...)
{
    struct ds want = DS_EMPTY_INITIALIZER;
    const char *got = om_client_output(w->clients[i], NULL);
    va_list args;

    va_start(args, format);
    ds_put_format_valist(&want, format, args);
    va_end(args);
    EXPECT(!strcmp(got, ds_cstr(&want)), "%s: got %s, want %s", what, got,
           ds_cstr(&want));
    ds_destroy(&want);
}

/* A random scenario: clients of every version join (some with conditions
 * if 'conditions'), leave, reconnect with monitor_cond_since, and lag
 * behind, between random transactions.  Everything it decides comes from
 * 'seed' and the database, never from the cache mode. */
static void
run_scenario(struct world *w, enum om_cache_mode mode, uint64_t seed,
             int n_steps, int max_clients, bool conditions)
{
    uint64_t s = seed * 7919 + 17;

    world_init(w, mode, seed);
    /* In the last mode, lookups of notifications and condition groups go
     * by their equality checks alone. */
    om_monitor_set_hash_collisions__(w->mon, mode == OM_CACHE_SHARED_COND);
    world_random_txns(w, &s, 3);
    for (int step = 0; step < n_steps; step++) {
        unsigned int k = rnd_n(&s, 100);
        size_t n = w->n_clients;

        if (k < 15 && (int) n < max_clients) {
            enum om_version v = rnd_n(&s, OM_N_VERSIONS);
            int cond = (conditions && v != OM_V1 && !rnd_n(&s, 3)
                        ? 1 + (int) rnd_n(&s, 7) : 0);
            int c = world_join(w, v, cond, -1, NULL);
            if (!rnd_n(&s, 4)) {
                /* A slow client: its socket holds few unread bytes. */
                om_client_set_window(w->clients[c], 200 + rnd_n(&s, 4000));
            }
        } else if (k < 20 && n && (int) n < max_clients) {
            size_t i = rnd_n(&s, n);
            if (w->clients[i] && w->info[i].version == OM_V3) {
                char last[37] = "";
                struct json *none = NULL;
                world_leave(w, i);
                apply_output(&none, OM_V3, w->info[i].final_output, last);
                if (!rnd_n(&s, 8)) {
                    /* A transaction id the server never made. */
                    snprintf(last, sizeof last, "%s",
                             "12345678-1234-1234-1234-123456789abc");
                }
                world_join(w, OM_V3, w->info[i].cond, (int) i, last);
            }
        } else if (k < 23 && n) {
            size_t i = rnd_n(&s, n);
            if (w->clients[i]) {
                world_leave(w, i);
            }
        } else if (k < 28 && n && conditions) {
            size_t i = rnd_n(&s, n);
            if (w->clients[i] && w->info[i].version != OM_V1) {
                world_cond_change(w, i, (int) rnd_n(&s, 8));
            }
        } else if (k < 55) {
            if (rnd_n(&s, 5)) {
                world_random_txn(w, &s);
            } else {
                world_unmonitored_txn(w);
            }
        } else if (k < 75) {
            flush_all(w);
        } else if (k < 85) {
            /* Slow clients read what their socket holds. */
            for (size_t i = 0; i < n; i++) {
                if (rnd_n(&s, 2) && w->clients[i]) {
                    om_client_receive(w->clients[i]);
                }
            }
        } else {
            for (size_t i = 0; i < n; i++) {
                if (rnd_n(&s, 2) && w->clients[i]) {
                    om_client_flush(w->clients[i]);
                }
            }
        }
    }
    /* Everyone reads everything. */
    for (size_t i = 0; i < w->n_clients; i++) {
        if (w->clients[i]) {
            om_client_set_window(w->clients[i], SIZE_MAX);
        }
    }
    flush_all(w);
    flush_all(w);
}

#define N_MODES 5
static const enum om_cache_mode modes[N_MODES] = {
    OM_CACHE_NONE, OM_CACHE_JSON, OM_CACHE_SERIALIZED, OM_CACHE_SHARED,
    OM_CACHE_SHARED_COND,
};

/* Every client gets byte-identical output in every mode, and what each got
 * brings its replica exactly to the database's state. */
static void
test_modes_agree(uint64_t seed, int n_steps, int max_clients,
                 bool conditions)
{
    static struct world w[N_MODES];
    char name[200];

    for (int m = 0; m < N_MODES; m++) {
        run_scenario(&w[m], modes[m], seed, n_steps, max_clients,
                     conditions);
    }

    size_t n = w[0].n_clients, n_bytes = 0, versions[OM_N_VERSIONS] = {0};
    size_t n_cond = 0, n_reconnect = 0;
    for (int m = 1; m < N_MODES; m++) {
        EXPECT(w[m].n_clients == n, "modes ran different scenarios");
        if (w[m].n_clients < n) {
            n = w[m].n_clients;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const char *ref = world_output(&w[0], i);
        n_bytes += strlen(ref);
        versions[w[0].info[i].version]++;
        n_cond += w[0].info[i].cond != 0;
        n_reconnect += w[0].info[i].pred >= 0;
        for (int m = 1; m < N_MODES; m++) {
            const char *out = world_output(&w[m], i);
            if (strcmp(ref, out)) {
                size_t d = 0;
                while (ref[d] == out[d]) {
                    d++;
                }
                failf("client %zu (%s%s): %s differs from %s at byte %zu",
                      i, om_version_name(w[0].info[i].version),
                      w[0].info[i].cond ? ", conditional" : "",
                      om_cache_mode_name(modes[m]),
                      om_cache_mode_name(modes[0]), d);
            }
        }
    }
    for (int m = 1; m < N_MODES; m++) {
        EXPECT(om_monitor_counters(w[0].mon)->bytes_sent
               == om_monitor_counters(w[m].mon)->bytes_sent,
               "bytes_sent differ between no-cache and %s",
               om_cache_mode_name(modes[m]));
    }
    /* The shared modes did share notifications, and made fewer buffers. */
    const struct om_counters *k0 = om_monitor_counters(w[0].mon);
    const struct om_counters *k3 = om_monitor_counters(w[3].mon);
    const struct om_counters *k4 = om_monitor_counters(w[4].mon);
    EXPECT(k3->notifications_shared > 0 && k3->buffers < k0->buffers
           && k4->buffers <= k3->buffers && k0->notifications_serialized == 0,
           "sharing: %" PRIu64 " shared, buffers %" PRIu64 "/%" PRIu64 "/%"
           PRIu64, k3->notifications_shared, k0->buffers, k3->buffers,
           k4->buffers);
    snprintf(name, sizeof name, "seed %" PRIu64 ": %zu clients (v1 %zu, v2 "
             "%zu, v3 %zu; %zu conditional, %zu reconnects, %zu stalls), %zu "
             "bytes: byte-identical in the %d modes; buffers %" PRIu64
             ", shared %" PRIu64 ", shared-cond %" PRIu64, seed, n,
             versions[OM_V1], versions[OM_V2], versions[OM_V3], n_cond,
             n_reconnect, w[0].n_stalled, n_bytes, N_MODES, k0->buffers,
             k3->buffers, k4->buffers);
    EXPECT(n_bytes > 0 && versions[OM_V1] && versions[OM_V2]
           && versions[OM_V3] && w[0].n_stalled, "scenario too small");
    report(name);

    for (int m = 0; m < N_MODES; m++) {
        size_t n_live;
        size_t n_rows = check_replicas(&w[m], NULL, &n_live);
        EXPECT(n_live > 0, "no client left");
        snprintf(name, sizeof name, "seed %" PRIu64 ", %s: replicas of %zu "
                 "clients match the database (%zu rows checked)", seed,
                 om_cache_mode_name(modes[m]), n_live, n_rows);
        report(name);
    }
    for (int m = 0; m < N_MODES; m++) {
        world_destroy(&w[m]);
    }
}

/* The cache must be able to fail: with invalidation disabled, a stale
 * entry is served and the comparison with the no-cache mode catches it. */
static void
test_broken_cache_is_caught(void)
{
    struct world ref, bad;
    uint64_t s = 99;

    for (int pass = 0; pass < 2; pass++) {
        struct world *w = pass ? &bad : &ref;
        world_init(w, pass ? OM_CACHE_SERIALIZED : OM_CACHE_NONE, 5);
        if (pass) {
            om_monitor_set_invalidation__(w->mon, false);
        }
        s = 99;
        world_random_txn(w, &s);
        world_join(w, OM_V2, 0, -1, NULL);
        world_join(w, OM_V2, 0, -1, NULL);
        world_random_txn(w, &s);
        om_client_flush(w->clients[0]);     /* Caches txn 2's update. */
        world_random_txn(w, &s);
        flush_all(w);                       /* Client 1: txn 2 and 3. */
    }
    EXPECT(strcmp(world_output(&ref, 1), world_output(&bad, 1)),
           "a cache without invalidation went unnoticed");
    world_destroy(&ref);
    world_destroy(&bad);
    report("a cache without invalidation serves a stale update, and the "
           "comparison catches it");
}

/* Serializations per (version, change set), for 'n' clients of each
 * version that join together and follow 'n_txns' transactions. */
static void
test_counters(size_t n)
{
    const size_t n_txns = 4;
    struct om_counters c[N_MODES];
    uint64_t bytes[N_MODES] = {0};

    for (int m = 0; m < N_MODES; m++) {
        struct world *w = malloc(sizeof *w);
        uint64_t s = 1234;

        world_init(w, modes[m], 77);
        world_random_txns(w, &s, 3);
        for (size_t i = 0; i < n; i++) {
            for (int v = 0; v < OM_N_VERSIONS; v++) {
                world_join(w, v, 0, -1, NULL);
                om_client_set_keep_output(w->clients[w->n_clients - 1],
                                          false);
            }
        }
        for (size_t t = 0; t < n_txns; t++) {
            /* An insertion, so that every update has content. */
            commit_insert(w, w->tables[1], "priority",
                          json_integer_create((long long) t), NULL);
            flush_all(w);
        }
        c[m] = *om_monitor_counters(w->mon);
        for (size_t i = 0; i < w->n_clients; i++) {
            bytes[m] += om_client_bytes(w->clients[i]);
        }
        world_destroy(w);
        free(w);
    }

    /* Per version: the initial contents and one update per txn. */
    uint64_t per_client = n_txns + 1;
    uint64_t updates = OM_N_VERSIONS * per_client;
    uint64_t clients = OM_N_VERSIONS * n;
    char name[200];

    EXPECT(c[0].serializations == updates * n
           && c[0].compositions == updates * n
           && c[0].cache_hits + c[0].cache_misses == 0,
           "no-cache: %" PRIu64 " serializations, %" PRIu64 " compositions",
           c[0].serializations, c[0].compositions);
    EXPECT(c[1].serializations == updates * n
           && c[1].compositions == updates
           && c[1].cache_hits == updates * (n - 1),
           "json-cache: %" PRIu64 " serializations, %" PRIu64
           " compositions, %" PRIu64 " hits", c[1].serializations,
           c[1].compositions, c[1].cache_hits);
    EXPECT(c[2].serializations == updates && c[2].compositions == updates
           && c[2].cache_hits == updates * (n - 1)
           && c[2].cache_misses == updates,
           "serialized-cache: %" PRIu64 " serializations, %" PRIu64
           " compositions, %" PRIu64 " hits, %" PRIu64 " misses",
           c[2].serializations, c[2].compositions, c[2].cache_hits,
           c[2].cache_misses);
    EXPECT(c[2].bytes_verbatim * 1 == c[2].bytes_serialized * n,
           "serialized-cache: %" PRIu64 " bytes copied verbatim, %" PRIu64
           " serialized once, %zu clients per version", c[2].bytes_verbatim,
           c[2].bytes_serialized, n);
    EXPECT(c[0].bytes_verbatim == 0 && c[1].bytes_verbatim == 0,
           "tree modes copied verbatim bytes");
    for (int m = 0; m < N_MODES; m++) {
        EXPECT(c[m].messages == clients * per_client,
               "%s: %" PRIu64 " messages", om_cache_mode_name(modes[m]),
               c[m].messages);
        EXPECT(c[m].bytes_sent == bytes[m] && bytes[m] == bytes[0],
               "%s: bytes differ", om_cache_mode_name(modes[m]));
        if (m < 3) {
            /* A buffer per message. */
            EXPECT(c[m].buffers == c[m].messages
                   && c[m].bytes_buffered == c[m].bytes_sent
                   && !c[m].notifications_serialized
                   && !c[m].notifications_shared,
                   "%s: %" PRIu64 " buffers for %" PRIu64 " messages",
                   om_cache_mode_name(modes[m]), c[m].buffers,
                   c[m].messages);
        } else {
            /* The clients of a version have the same monitor id: one
             * notification per version and transaction, and a buffer of
             * its own for each initial reply (its request id is its own). */
            uint64_t notes = OM_N_VERSIONS * n_txns;
            EXPECT(c[m].notifications_serialized == notes
                   && c[m].notifications_shared == notes * (n - 1)
                   && c[m].buffers == clients + notes
                   && c[m].serializations == updates
                   && (n > 1 ? c[m].bytes_buffered < c[m].bytes_sent
                       : c[m].bytes_buffered == c[m].bytes_sent),
                   "%s: %" PRIu64 " notifications serialized, %" PRIu64
                   " shared, %" PRIu64 " buffers (%" PRIu64 " bytes of %"
                   PRIu64 ")", om_cache_mode_name(modes[m]),
                   c[m].notifications_serialized, c[m].notifications_shared,
                   c[m].buffers, c[m].bytes_buffered, c[m].bytes_sent);
        }
    }
    snprintf(name, sizeof name, "%zu client(s) per version, %zu txns: "
             "serialized cache makes %" PRIu64 " serializations (one per "
             "version and change set), no cache %" PRIu64 ", json cache %"
             PRIu64 "; buffers: %" PRIu64 " unshared, %" PRIu64 " shared",
             n, n_txns, c[2].serializations, c[0].serializations,
             c[1].serializations, c[2].buffers, c[3].buffers);
    report(name);
}

/* What a monitor's cache has done, to check that something leaves it
 * alone. */
struct cache_state {
    uint64_t hits, misses, inserts;     /* Its counters. */
    size_t entries;                     /* Its entries. */
};

static struct cache_state
cache_state(const struct world *w)
{
    const struct om_counters *k = om_monitor_counters(w->mon);

    return (struct cache_state) {
        .hits = k->cache_hits, .misses = k->cache_misses,
        .inserts = k->cache_inserts,
        .entries = om_monitor_n_cache_entries(w->mon),
    };
}

/* Whether the cache of 'w' is as it was in 'before'. */
static bool
cache_untouched(const struct world *w, const struct cache_state *before)
{
    struct cache_state now = cache_state(w);

    return (now.hits == before->hits && now.misses == before->misses
            && now.inserts == before->inserts
            && now.entries == before->entries);
}

/* Conditional clients get filtered updates and do not touch the cache. */
static void
test_conditional(void)
{
    static const struct client_spec clients[] = {
        { OM_V2, 0 }, { OM_V3, 0 }, { OM_V2, 1 }, { OM_V3, 2 }, { OM_V2, 3 },
        { OM_V3, 4 },           /* All true: unconditional. */
    };
    struct world w;
    uint64_t s = 4242;

    world_start(&w, OM_CACHE_SERIALIZED, 31, &s, 6, clients,
                OM_ARRAY_SIZE(clients));
    EXPECT(om_client_is_conditional(w.clients[2])
           && om_client_is_conditional(w.clients[3])
           && om_client_is_conditional(w.clients[4])
           && !om_client_is_conditional(w.clients[5]),
           "conditional flags");

    size_t n_sent_cond = 0, n_rounds = 0;
    for (int round = 0; round < 20; round++) {
        world_random_txn(&w, &s);
        if (!om_client_needs_flush(w.clients[0])) {
            continue;           /* The transaction changed nothing. */
        }
        n_rounds++;
        /* Conditional clients first: the cache must not change. */
        struct om_counters before = *om_monitor_counters(w.mon);
        struct cache_state cache = cache_state(&w);
        for (size_t i = 2; i <= 4; i++) {
            n_sent_cond += om_client_flush(w.clients[i]);
        }
        const struct om_counters *after = om_monitor_counters(w.mon);
        EXPECT(cache_untouched(&w, &cache),
               "round %d: conditional clients touched the cache", round);
        EXPECT(after->cond_compositions == before.cond_compositions + 3,
               "round %d: %" PRIu64 " conditional compositions, expected %"
               PRIu64, round, after->cond_compositions,
               before.cond_compositions + 3);
        /* Then the unconditional ones share the cache: v2 miss, v3 miss,
         * v3 (all-true condition) hit. */
        before = *om_monitor_counters(w.mon);
        om_client_flush(w.clients[0]);
        om_client_flush(w.clients[1]);
        om_client_flush(w.clients[5]);
        EXPECT(after->cache_hits == before.cache_hits + 1
               && after->cache_misses == before.cache_misses + 2,
               "round %d: unconditional clients: %" PRIu64 " hits, %"
               PRIu64 " misses", round, after->cache_hits - before.cache_hits,
               after->cache_misses - before.cache_misses);
    }
    check_replicas(&w, NULL, NULL);
    EXPECT(strcmp(world_output(&w, 2), world_output(&w, 0)),
           "filtered output equals unfiltered output");
    EXPECT(n_sent_cond > 0 && n_rounds > 10,
           "conditional clients got nothing");
    world_destroy(&w);
    report("conditional clients get filtered updates (checked by replica) "
           "and never touch the cache");
}

/* monitor_cond_change while unconditional clients share cache entries:
 * the change neither reads nor writes the cache, the client gets exactly
 * the rows that start or stop matching, and it then follows the new
 * condition (or the cache, once unconditional). */
static void
test_cond_change(void)
{
    static const struct client_spec clients[] = {
        { OM_V3, 0 }, { OM_V3, 0 }, { OM_V2, 1 }, { OM_V3, 2 },
    };
    struct world w;
    uint64_t s = 777;

    world_start(&w, OM_CACHE_SERIALIZED, 12, &s, 8, clients,
                OM_ARRAY_SIZE(clients));

    static const int next_cond[] = { 3, 0, 2, 1, 4, 0, 1 };
    for (size_t r = 0; r < sizeof next_cond / sizeof *next_cond; r++) {
        world_random_txn(&w, &s);
        om_client_flush(w.clients[0]);      /* Populates the cache. */
        om_client_flush(w.clients[2]);      /* Pending, old condition. */
        om_client_flush(w.clients[3]);
        struct cache_state cache = cache_state(&w);
        world_cond_change(&w, 2, next_cond[r]);
        world_cond_change(&w, 3, next_cond[(r + 3) % 7]);
        EXPECT(cache_untouched(&w, &cache),
               "round %zu: monitor_cond_change touched the cache", r);
        EXPECT(om_client_is_conditional(w.clients[2])
               == (next_cond[r] != 0 && next_cond[r] != 4),
               "round %zu: conditional flag", r);
        flush_all(&w);
        char what[32];
        snprintf(what, sizeof what, "round %zu", r);
        check_replicas(&w, what, NULL);
    }
    char *error = NULL;
    world_join(&w, OM_V1, 0, -1, NULL);
    struct om_condition *c = make_condition(1);
    EXPECT(!om_client_cond_change(w.clients[4], c, &error) && error,
           "monitor_cond_change accepted for a v1 monitor");
    free(error);
    om_condition_destroy(c);
    world_destroy(&w);
    report("monitor_cond_change while the cache is populated: cache "
           "untouched, replicas match after each change");
}

/* A condition turns a modification into a deletion or an insertion. */
static void
test_condition_transitions(void)
{
    struct world w;

    world_init(&w, OM_CACHE_SERIALIZED, 8);
    char uuid[37];
    commit_insert(&w, w.tables[0], "up", json_boolean_create(true), uuid);

    world_join(&w, OM_V2, 1, -1, NULL);     /* up == true */
    om_client_clear_output(w.clients[0]);

    const char *expected[] = { "{\"delete\":null}",
                               "{\"insert\":{\"up\":true}}" };
    for (int i = 0; i < 2; i++) {
        /* "up" becomes false, then true again. */
        commit_set(&w, w.tables[0], uuid, "up", json_boolean_create(i));
        flush_all(&w);
        expect_output(&w, 0, "update2", "{\"id\":null,\"method\":"
                      "\"update2\",\"params\":[\"mon-0\",{\"Port_Binding\":"
                      "{\"%s\":%s}}]}\n", uuid, expected[i]);
        om_client_clear_output(w.clients[0]);
    }
    world_destroy(&w);
    report("a condition turns a modify into delete, then insert");
}

/* After a new transaction, a cache entry made before it is not served. */
static void
test_invalidation(void)
{
    static const struct client_spec clients[] = {
        { OM_V3, 0 }, { OM_V3, 0 }, { OM_V1, 0 }, { OM_V1, 0 },
    };
    struct world w, ref;
    uint64_t s = 1;

    for (int pass = 0; pass < 2; pass++) {
        struct world *x = pass ? &ref : &w;
        s = 1;
        world_start(x, pass ? OM_CACHE_NONE : OM_CACHE_SERIALIZED, 3, &s, 1,
                    clients, OM_ARRAY_SIZE(clients));

        char uuid[37];
        commit_insert(x, x->tables[1], "match", json_string_create("first"),
                      uuid);

        /* Clients 0 and 2 take the update; 1 and 3 lag. */
        om_client_flush(x->clients[0]);
        om_client_flush(x->clients[2]);
        if (!pass) {
            EXPECT(om_monitor_n_cache_entries(x->mon) >= 2,
                   "no cache entries after the first flush");
        }

        uint64_t inval = om_monitor_counters(x->mon)->cache_invalidations;
        commit_set(x, x->tables[1], uuid, "match",
                   json_string_create("second"));
        if (!pass) {
            EXPECT(om_monitor_counters(x->mon)->cache_invalidations
                   >= inval + 2, "the commit invalidated no entry");
            EXPECT(om_monitor_n_cache_entries(x->mon) == 0,
                   "%zu entries survived the commit",
                   om_monitor_n_cache_entries(x->mon));
        }
        flush_all(x);

        /* The laggards got one update with the row as inserted, with the
         * second value: both transactions merged. */
        const char *out = om_client_output(x->clients[1], NULL);
        EXPECT(strstr(out, "\"insert\":{\"match\":\"second\"")
               && !strstr(out, "\"first\""),
               "lagging v3 client got %s", out);
        out = om_client_output(x->clients[3], NULL);
        EXPECT(strstr(out, "{\"new\":{\"actions\":\"\",\"match\":\"second\"")
               && !strstr(out, "\"old\"") && !strstr(out, "\"first\""),
               "lagging v1 client got %s", out);
    }
    for (size_t i = 0; i < w.n_clients; i++) {
        EXPECT(!strcmp(world_output(&w, i), world_output(&ref, i)),
               "client %zu differs from the no-cache run", i);
    }
    world_destroy(&w);
    world_destroy(&ref);
    report("a new transaction drops the cache entries it makes stale; "
           "laggards get the merged update");
}

/* The exact text of updates of each version (RFC 7047, ovsdb-server(7)). */
static void
test_formats(void)
{
    struct world w;
    static const struct om_column_def cols[] = {
        { "name", OM_SCALAR, OM_STRING, 0 },
        { "n", OM_SCALAR, OM_INTEGER, 0 },
        { "s", OM_SET, OM_INTEGER, 0 },
        { "m", OM_MAP, OM_STRING, OM_STRING },
    };

    memset(&w, 0, sizeof w);
    w.db = om_db_create(11);
    w.mon = om_monitor_create(w.db, OM_CACHE_SERIALIZED);
    struct om_table *t = om_db_add_table(w.db, "T", cols, 4);
    MUST(om_monitor_add_table(w.mon, t, NULL, 0, OM_SEL_ALL, NULL));
    world_join(&w, OM_V1, 0, -1, NULL);
    world_join(&w, OM_V2, 0, -1, NULL);
    world_join(&w, OM_V3, 0, -1, NULL);
    expect_output(&w, 0, "empty v1 reply", "%s",
                  "{\"id\":1,\"result\":{},\"error\":null}\n");
    expect_output(&w, 2, "empty v3 reply", "%s",
                  "{\"id\":3,\"result\":[false,\"00000000-0000-0000-0000-"
                  "000000000000\",{}],\"error\":null}\n");

    struct om_txn *txn = om_txn_begin(w.db);
    char uuid[37];
    snprintf(uuid, sizeof uuid, "%s", om_txn_insert(txn, t));
    struct json *set = json_from_string("[\"set\",[3,1,2]]");
    struct json *map = json_from_string("[\"map\",[[\"b\",\"x\"],"
                                        "[\"a\",\"y\"]]]");
    struct json *name = json_string_create("r1");
    MUST(om_txn_set(txn, t, uuid, "name", name, NULL));
    MUST(om_txn_set(txn, t, uuid, "s", set, NULL));
    MUST(om_txn_set(txn, t, uuid, "m", map, NULL));
    const char *txn1 = om_txn_commit(txn);
    char txn1_id[37];
    snprintf(txn1_id, sizeof txn1_id, "%s", txn1);
    clear_and_flush_all(&w);

    expect_output(&w, 0, "v1 insert",
                  "{\"id\":null,\"method\":\"update\",\"params\":"
                  "[\"mon-0\",{\"T\":{\"%s\":{\"new\":{\"m\":[\"map\",[["
                  "\"a\",\"y\"],[\"b\",\"x\"]]],\"n\":0,\"name\":\"r1\","
                  "\"s\":[\"set\",[1,2,3]]}}}}]}\n", uuid);
    expect_output(&w, 1, "v2 insert",
                  "{\"id\":null,\"method\":\"update2\",\"params\":"
                  "[\"mon-1\",{\"T\":{\"%s\":{\"insert\":{\"m\":[\"map\",[["
                  "\"a\",\"y\"],[\"b\",\"x\"]]],\"name\":\"r1\","
                  "\"s\":[\"set\",[1,2,3]]}}}}]}\n", uuid);
    expect_output(&w, 2, "v3 insert",
                  "{\"id\":null,\"method\":\"update3\",\"params\":"
                  "[\"mon-2\",\"%s\",{\"T\":{\"%s\":{\"insert\":{\"m\":["
                  "\"map\",[[\"a\",\"y\"],[\"b\",\"x\"]]],\"name\":\"r1\","
                  "\"s\":[\"set\",[1,2,3]]}}}}]}\n", txn1_id, uuid);

    /* Modify: s {1,2,3} -> {2,4}: diff {1,3,4}; m: a changes, b goes,
     * c comes: diff [a,z],[b,x],[c,w]; n unchanged. */
    json_destroy(set);
    json_destroy(map);
    set = json_from_string("[\"set\",[4,2]]");
    map = json_from_string("[\"map\",[[\"a\",\"z\"],[\"c\",\"w\"]]]");
    txn = om_txn_begin(w.db);
    MUST(om_txn_set(txn, t, uuid, "s", set, NULL));
    MUST(om_txn_set(txn, t, uuid, "m", map, NULL));
    MUST(om_txn_set(txn, t, uuid, "name", name, NULL));    /* Same. */
    om_txn_commit(txn);
    clear_and_flush_all(&w);
    expect_output(&w, 0, "v1 modify",
                  "{\"id\":null,\"method\":\"update\",\"params\":"
                  "[\"mon-0\",{\"T\":{\"%s\":{\"new\":{\"m\":[\"map\",[["
                  "\"a\",\"z\"],[\"c\",\"w\"]]],\"n\":0,\"name\":\"r1\","
                  "\"s\":[\"set\",[2,4]]},\"old\":{\"m\":[\"map\",[[\"a\","
                  "\"y\"],[\"b\",\"x\"]]],\"s\":[\"set\",[1,2,3]]}}}}]}\n",
                  uuid);
    expect_output(&w, 1, "v2 modify",
                  "{\"id\":null,\"method\":\"update2\",\"params\":"
                  "[\"mon-1\",{\"T\":{\"%s\":{\"modify\":{\"m\":[\"map\",[["
                  "\"a\",\"z\"],[\"b\",\"x\"],[\"c\",\"w\"]]],"
                  "\"s\":[\"set\",[1,3,4]]}}}}]}\n", uuid);

    /* A one-element set diff is the bare atom. */
    json_destroy(set);
    set = json_from_string("[\"set\",[2]]");
    txn = om_txn_begin(w.db);
    MUST(om_txn_set(txn, t, uuid, "s", set, NULL));
    om_txn_commit(txn);
    om_client_clear_output(w.clients[1]);
    flush_all(&w);
    expect_output(&w, 1, "v2 one-element diff",
                  "{\"id\":null,\"method\":\"update2\",\"params\":"
                  "[\"mon-1\",{\"T\":{\"%s\":{\"modify\":{\"s\":4}}}}]}\n",
                  uuid);

    /* Delete. */
    txn = om_txn_begin(w.db);
    MUST(om_txn_delete(txn, t, uuid));
    om_txn_commit(txn);
    clear_and_flush_all(&w);
    expect_output(&w, 0, "v1 delete",
                  "{\"id\":null,\"method\":\"update\",\"params\":"
                  "[\"mon-0\",{\"T\":{\"%s\":{\"old\":{\"m\":[\"map\",[["
                  "\"a\",\"z\"],[\"c\",\"w\"]]],\"n\":0,\"name\":\"r1\","
                  "\"s\":2}}}}]}\n", uuid);
    expect_output(&w, 1, "v2 delete",
                  "{\"id\":null,\"method\":\"update2\",\"params\":"
                  "[\"mon-1\",{\"T\":{\"%s\":{\"delete\":null}}}]}\n", uuid);

    /* Initial contents for a client joining now: one row. */
    txn = om_txn_begin(w.db);
    snprintf(uuid, sizeof uuid, "%s", om_txn_insert(txn, t));
    om_txn_commit(txn);
    flush_all(&w);
    world_join(&w, OM_V2, 0, -1, NULL);
    expect_output(&w, 3, "v2 initial",
                  "{\"id\":4,\"result\":{\"T\":{\"%s\":{\"initial\":"
                  "{}}}},\"error\":null}\n", uuid);

    json_destroy(set);
    json_destroy(map);
    json_destroy(name);
    world_destroy(&w);
    report("exact text of update/update2/update3 for insert, modify, delete "
           "and initial contents");
}

/* monitor_cond_since: a client that reconnects with the last transaction
 * id it saw gets only what it missed. */
static void
test_reconnect(void)
{
    static const struct client_spec clients[] = {
        { OM_V3, 0 }, { OM_V3, 1 },
    };
    struct world w;
    uint64_t s = 606;

    world_start(&w, OM_CACHE_SERIALIZED, 66, &s, 5, clients,
                OM_ARRAY_SIZE(clients));
    for (int i = 0; i < 5; i++) {
        world_random_txn(&w, &s);
        flush_all(&w);
    }
    for (size_t c = 0; c < 2; c++) {
        char last[37] = "";
        struct json *none = NULL;
        apply_output(&none, OM_V3, world_output(&w, c), last);
        world_leave(&w, c);
        world_random_txns(&w, &s, 3);
        int n = world_join(&w, OM_V3, w.info[c].cond, (int) c, last);
        const char *out = om_client_output(w.clients[n], NULL);
        EXPECT(!strncmp(out, "{\"id\":", 6) && strstr(out, "\"result\":[true,")
               && !strstr(out, "\"initial\""),
               "reconnect reply is not 'found' changes: %.200s", out);
    }
    flush_all(&w);
    check_replicas(&w, "reconnected", NULL);    /* Clients 2 and 3. */
    world_destroy(&w);
    report("monitor_cond_since reconnect gets only the missed changes "
           "(found=true), replica matches");
}

/* ---------------------------------------------------------------------
 * Shared notifications and sessions.
 * --------------------------------------------------------------------- */

/* A transaction that inserts 'n' logical flows with long matches, so that
 * its update is much larger than the small socket windows below. */
static void
big_txn(struct world *w, int n, const char *tag)
{
    struct om_txn *txn = om_txn_begin(w->db);

    for (int i = 0; i < n; i++) {
        char match[128];
        snprintf(match, sizeof match, "%s: inport == \"lsp-%d\" && "
                 "eth.src == 00:00:00:00:00:%02x", tag, i, i & 0xff);
        txn_set(txn, w->tables[1], om_txn_insert(txn, w->tables[1]), "match",
                json_string_create(match));
    }
    om_txn_commit(txn);
}

/* Compares the output of every client of 'a' and 'b' (same scenario in two
 * modes); 'what' names the test. */
static void
compare_worlds(const struct world *a, const struct world *b,
               const char *what)
{
    EXPECT(a->n_clients == b->n_clients, "%s: %zu and %zu clients", what,
           a->n_clients, b->n_clients);
    for (size_t i = 0; i < a->n_clients && i < b->n_clients; i++) {
        const char *x = world_output(a, i), *y = world_output(b, i);
        EXPECT(!strcmp(x, y), "%s: client %zu: %s and %s differ "
               "(%zu and %zu bytes)", what, i,
               om_cache_mode_name(om_monitor_cache_mode(a->mon)),
               om_cache_mode_name(om_monitor_cache_mode(b->mon)),
               strlen(x), strlen(y));
    }
}

/* Runs 'scenario' without a cache into 'ref' and with shared
 * notifications into 'sh', and checks that every client got the same
 * bytes and that the live ones are up to date. */
typedef void scenario_func(struct world *, enum om_cache_mode, bool check);

static void
run_unshared_and_shared(scenario_func *scenario, struct world *ref,
                        struct world *sh, const char *what)
{
    scenario(ref, OM_CACHE_NONE, true);
    scenario(sh, OM_CACHE_SHARED, true);
    compare_worlds(ref, sh, what);
    check_replicas(sh, what, NULL);
}

/* Whether message 'k' (from 0) of output 'b' is message 'k' of 'a'. */
static bool
same_message(const char *a, const char *b, int k)
{
    for (int i = 0; i < k; i++) {
        a = strchr(a, '\n') + 1;
        b = strchr(b, '\n') + 1;
    }
    return !strncmp(a, b, strchr(a, '\n') - a + 1);
}

/* The case 'name': runs 'scenario' with run_unshared_and_shared() ('what'
 * names it in failures).  If 'differs' is nonnull, client 2's message 1
 * must be byte for byte client 0's, with shared notifications ('differs'
 * is the failure otherwise). */
static void
test_scenario(scenario_func *scenario, const char *what, const char *differs,
              const char *name)
{
    struct world ref, sh;

    run_unshared_and_shared(scenario, &ref, &sh, what);
    if (differs) {
        EXPECT(same_message(world_output(&sh, 0), world_output(&sh, 2), 1),
               "%s", differs);
    }
    world_destroy(&ref);
    world_destroy(&sh);
    report(name);
}

/* Starts a scenario of shared notifications in 'w': cache 'mode', database
 * seed 'seed', a first transaction of 'n_flows' big logical flows, then
 * 'n' clients of version 'v' with monitor id 'id', numbered 0 to n - 1. */
static void
scenario_start(struct world *w, enum om_cache_mode mode, uint64_t seed,
               int n_flows, enum om_version v, const char *id, int n)
{
    world_init(w, mode, seed);
    big_txn(w, n_flows, "initial");
    world_join_n(w, v, id, n);
}

/* Number of messages (lines) in 's'. */
static size_t
n_lines(const char *s)
{
    size_t n = 0;

    for (; *s; s++) {
        n += *s == '\n';
    }
    return n;
}

/* Clients of every version, with monitor ids that are the same for some of
 * them and differ for others, get the same bytes whether notifications are
 * shared or not, and each notification is serialized once per (version,
 * monitor id) and transaction. */
static void
test_shared_bytes(void)
{
    static const char *const ids[] = { "a", "a", "b", "", "a" };
    enum { N_IDS = 5, N_DISTINCT = 3, N_TXNS = 4 };
    static const enum om_cache_mode ms[] = {
        OM_CACHE_NONE, OM_CACHE_SERIALIZED, OM_CACHE_SHARED,
        OM_CACHE_SHARED_COND,
    };
    struct world *w = malloc(4 * sizeof *w);
    uint64_t s;

    for (int m = 0; m < 4; m++) {
        world_init(&w[m], ms[m], 19);
        om_monitor_set_hash_collisions__(w[m].mon,
                                         ms[m] == OM_CACHE_SHARED_COND);
        s = 5;
        world_random_txns(&w[m], &s, 4);
        for (int v = 0; v < OM_N_VERSIONS; v++) {
            for (int i = 0; i < N_IDS; i++) {
                world_join_id(&w[m], v, 0, -1, NULL, ids[i]);
            }
        }
        struct om_counters before = *om_monitor_counters(w[m].mon);
        for (int t = 0; t < N_TXNS; t++) {
            big_txn(&w[m], 2, "shared");
            flush_all(&w[m]);
        }
        const struct om_counters *k = om_monitor_counters(w[m].mon);
        uint64_t made = k->notifications_serialized
                        - before.notifications_serialized;
        uint64_t shared = k->notifications_shared
                          - before.notifications_shared;
        uint64_t buffers = k->buffers - before.buffers;
        if (ms[m] >= OM_CACHE_SHARED) {
            EXPECT(made == OM_N_VERSIONS * N_DISTINCT * N_TXNS
                   && shared == OM_N_VERSIONS * (N_IDS - N_DISTINCT) * N_TXNS
                   && buffers == made,
                   "%s: %" PRIu64 " notifications serialized, %" PRIu64
                   " shared, %" PRIu64 " buffers", om_cache_mode_name(ms[m]),
                   made, shared, buffers);
        } else {
            EXPECT(made == 0 && shared == 0
                   && buffers == OM_N_VERSIONS * N_IDS * N_TXNS,
                   "%s: %" PRIu64 " buffers", om_cache_mode_name(ms[m]),
                   buffers);
        }
        size_t bytes;
        EXPECT(om_monitor_n_buffers(w[m].mon, &bytes) == 0 && bytes == 0,
               "%s: buffers left once everything is sent",
               om_cache_mode_name(ms[m]));
    }
    for (int m = 1; m < 4; m++) {
        compare_worlds(&w[0], &w[m], "mixed ids");
    }
    for (int m = 0; m < 4; m++) {
        world_destroy(&w[m]);
    }
    free(w);
    report("shared notifications: v1/v2/v3 clients with mixed monitor ids "
           "get the bytes of unshared sending; one serialization per "
           "(version, monitor id) and transaction");
}

/* The last transaction id of update3 moves on a commit that leaves the
 * cache alone (it changes no monitored table).  A client flushed after it
 * must get the new id, not the bytes made for another client before. */
static void
txn_id_scenario(struct world *w, enum om_cache_mode mode, bool key_txn_id)
{
    world_init(w, mode, 23);
    om_monitor_set_key_txn_id__(w->mon, key_txn_id);
    big_txn(w, 1, "before");
    world_join_n(w, OM_V3, "x", 2);
    big_txn(w, 2, "monitored");
    om_client_flush(w->clients[0]);

    world_unmonitored_txn(w);
    om_client_flush(w->clients[1]);
}

static void
test_txn_id_in_key(void)
{
    struct world ref, good, bad;

    txn_id_scenario(&ref, OM_CACHE_NONE, true);
    txn_id_scenario(&good, OM_CACHE_SHARED, true);
    txn_id_scenario(&bad, OM_CACHE_SHARED, false);

    compare_worlds(&ref, &good, "last txn id");
    const struct om_counters *k = om_monitor_counters(good.mon);
    /* (One hit is the second client's initial reply.) */
    EXPECT(k->notifications_serialized == 2 && k->notifications_shared == 0
           && k->cache_hits == 2,
           "%" PRIu64 " notifications serialized, %" PRIu64 " shared, %"
           PRIu64 " cache hits", k->notifications_serialized,
           k->notifications_shared, k->cache_hits);
    EXPECT(strstr(world_output(&good, 1), om_db_last_txn_id(good.db))
           && !strstr(world_output(&good, 0), om_db_last_txn_id(good.db)),
           "the clients do not have the ids they should");
    /* The test can fail: without the txn id in the key, client 1 gets
     * client 0's bytes. */
    EXPECT(strcmp(world_output(&ref, 1), world_output(&bad, 1))
           && om_monitor_counters(bad.mon)->notifications_shared == 1,
           "a key without the last txn id went unnoticed");
    world_destroy(&ref);
    world_destroy(&good);
    world_destroy(&bad);
    report("the last txn id is part of the notification key: a commit "
           "that leaves the cache alone still makes a new notification "
           "(and a key without it is caught)");
}

/* A slow client: F1 and F2 read everything, S's socket takes 100 bytes
 * until S reads.  'check' checks the session state as it goes. */
enum { SLOW_WINDOW = 100 };

static void
slow_scenario(struct world *w, enum om_cache_mode mode, bool check)
{
    int f1 = 0, f2 = 1, sl = 2;

    scenario_start(w, mode, 21, 5, OM_V2, "s", 3);
    struct om_client *S = w->clients[sl];
    om_client_set_window(S, SLOW_WINDOW);
    (void) f2;

    /* Update 1: the fast clients get it whole, S 100 bytes of it. */
    size_t f1_before = strlen(world_output(w, f1));
    uint64_t s_before = om_client_bytes(S);
    big_txn(w, 20, "one");
    flush_all(w);
    size_t msg1 = strlen(world_output(w, f1)) - f1_before;
    size_t bytes;
    if (check) {
        EXPECT(msg1 > 10 * SLOW_WINDOW, "update 1 is only %zu bytes", msg1);
        EXPECT(om_client_backlog(S) == msg1 - SLOW_WINDOW
               && om_client_bytes(S) == s_before + SLOW_WINDOW
               && om_client_n_queued(S) == 1,
               "slow client: backlog %zu, expected %zu",
               om_client_backlog(S), msg1 - SLOW_WINDOW);
        EXPECT(!om_client_backlog(w->clients[f1])
               && !om_client_backlog(w->clients[f2]),
               "fast clients have a backlog");
        EXPECT(om_monitor_n_buffers(w->mon, &bytes) == 1 && bytes == msg1,
               "%zu buffers (%zu bytes) after update 1",
               om_monitor_n_buffers(w->mon, NULL), bytes);
    }

    /* Update 2 drops the cache entry (and notification) of update 1: S's
     * queue keeps its bytes.  S is not flushed while it has a backlog;
     * the fast clients are not held up. */
    uint64_t s_msgs = om_client_messages(S);
    big_txn(w, 20, "two");
    if (check && mode >= OM_CACHE_SHARED) {
        EXPECT(om_monitor_n_notifications(w->mon) == 0
               && om_monitor_n_buffers(w->mon, &bytes) == 1
               && bytes == msg1,
               "after the commit: %zu notifications, %zu buffers",
               om_monitor_n_notifications(w->mon),
               om_monitor_n_buffers(w->mon, NULL));
    }
    flush_all(w);
    big_txn(w, 20, "three");
    flush_all(w);
    if (check) {
        EXPECT(om_client_messages(S) == s_msgs && om_client_needs_flush(S)
               && om_client_backlog(S) == msg1 - SLOW_WINDOW,
               "the slow client was sent more while it had a backlog");
        EXPECT(n_lines(world_output(w, f1)) == 4
               && n_lines(world_output(w, f2)) == 4,
               "the fast clients were held up");
    }

    /* S reads, 100 bytes at a time: the rest of update 1, then one update
     * with 2 and 3 merged. */
    int passes = 0;
    while ((om_client_backlog(S) || om_client_needs_flush(S))
           && passes < 100000) {
        om_client_receive(S);
        flush_all(w);
        passes++;
    }
    om_client_set_window(S, SIZE_MAX);
    flush_all(w);
    if (check) {
        EXPECT(n_lines(world_output(w, sl)) == 3,
               "the slow client got %zu messages, expected 3",
               n_lines(world_output(w, sl)));
        EXPECT(om_monitor_n_buffers(w->mon, &bytes) == 0 && bytes == 0,
               "%zu buffers left", om_monitor_n_buffers(w->mon, NULL));
    }
}

static void
test_slow_client(void)
{
    /* The slow client's update 1 is byte for byte the fast ones'. */
    test_scenario(slow_scenario, "slow client",
                  "update 1 differs for the slow client",
                  "a slow client: its backlog counts what it is owed, it "
                  "keeps alone the bytes of a dropped notification, it does "
                  "not hold up the others, and it ends with the same bytes");
}

/* A backlog limit: a client whose backlog would exceed it is disconnected
 * when the message is queued; one under its limit keeps its backlog. */
static void
limit_scenario(struct world *w, enum om_cache_mode mode, bool check)
{
    int f = 0, lo = 1, hi = 2;

    scenario_start(w, mode, 22, 3, OM_V3, "l", 3);
    om_client_set_window(w->clients[lo], SLOW_WINDOW);
    om_client_set_backlog_limit(w->clients[lo], 1000);
    om_client_set_window(w->clients[hi], SLOW_WINDOW);
    om_client_set_backlog_limit(w->clients[hi], 1000000);
    size_t lo_out = strlen(world_output(w, lo));

    big_txn(w, 20, "over the limit");
    flush_all(w);
    if (check) {
        EXPECT(!om_client_is_connected(w->clients[lo])
               && !om_client_backlog(w->clients[lo])
               && !om_client_n_queued(w->clients[lo])
               && strlen(world_output(w, lo)) == lo_out,
               "the client over its backlog limit is still connected");
        EXPECT(om_client_is_connected(w->clients[hi])
               && om_client_backlog(w->clients[hi]) > 1000,
               "the client under its limit: backlog %zu",
               om_client_backlog(w->clients[hi]));
        EXPECT(!om_client_backlog(w->clients[f]),
               "the fast client has a backlog");
    }
    big_txn(w, 2, "after");
    flush_all(w);
    EXPECT(!om_client_flush(w->clients[lo]),
           "a disconnected client was sent an update");
    world_leave(w, lo);
    om_client_set_window(w->clients[hi], SIZE_MAX);
    flush_all(w);
    if (check) {
        size_t bytes;
        EXPECT(om_monitor_n_buffers(w->mon, &bytes) == 0,
               "%zu buffers left", om_monitor_n_buffers(w->mon, NULL));
    }
}

static void
test_backlog_limit(void)
{
    test_scenario(limit_scenario, "backlog limit", NULL,
                  "backlog limit: the client over it is disconnected alone, "
                  "the others get every byte");
}

/* Clients that go away in the middle of a shared message: S1's connection
 * breaks, S3 is destroyed (its session closed); S2 and F go on. */
static void
disconnect_scenario(struct world *w, enum om_cache_mode mode, bool check)
{
    int f = 0, s1 = 1, s2 = 2, s3 = 3;

    scenario_start(w, mode, 24, 3, OM_V2, "d", 4);
    om_client_set_window(w->clients[s1], 150);
    om_client_set_window(w->clients[s2], 300);
    om_client_set_window(w->clients[s3], 450);

    big_txn(w, 20, "one");
    flush_all(w);
    big_txn(w, 20, "two");      /* Drops the notification of "one". */
    om_client_disconnect(w->clients[s1]);
    world_leave(w, s3);
    size_t bytes;
    if (check && mode >= OM_CACHE_SHARED) {
        EXPECT(om_monitor_n_buffers(w->mon, &bytes) == 1,
               "%zu buffers while S2 is in the middle of update 1",
               om_monitor_n_buffers(w->mon, NULL));
    }
    if (check) {
        size_t len;
        const char *out = om_client_output(w->clients[s1], &len);
        EXPECT(!om_client_backlog(w->clients[s1])
               && om_client_backlog(w->clients[s2]) > 0,
               "backlogs after the disconnection");
        EXPECT(len && out[len - 1] != '\n',
               "S1 was not in the middle of a message");
    }
    for (int i = 0; i < 1000 && om_client_backlog(w->clients[s2]); i++) {
        om_client_receive(w->clients[s2]);
        flush_all(w);
    }
    om_client_set_window(w->clients[s2], SIZE_MAX);
    flush_all(w);
    /* The disconnected S1 still holds its change set, whose cache entry
     * (and notification) stays while it does: it goes too. */
    world_leave(w, s1);
    flush_all(w);
    if (check) {
        EXPECT(om_monitor_n_buffers(w->mon, &bytes) == 0,
               "%zu buffers left", om_monitor_n_buffers(w->mon, NULL));
        EXPECT(n_lines(world_output(w, f)) == 3
               && n_lines(world_output(w, s2)) == 3,
               "F and S2 did not get all 3 messages");
    }
}

static void
test_disconnect_mid_write(void)
{
    /* S2 got update 1 as F did, though S1 and S3 let go of it. */
    test_scenario(disconnect_scenario, "disconnect",
                  "S2's update 1 differs from F's",
                  "disconnection in the middle of a shared message: the "
                  "other clients keep and finish it");
}

/* A random transaction from '*s', flushed to every client.  Returns the
 * number of conditional compositions it made; sets '*changed' to whether it
 * changed anything for client 'u', and adds the notifications it shared to
 * '*shared' if nonnull. */
static uint64_t
groups_round(struct world *w, uint64_t *s, const struct om_client *u,
             bool *changed, uint64_t *shared)
{
    struct om_counters before = *om_monitor_counters(w->mon);

    world_random_txn(w, s);
    *changed = om_client_needs_flush(u);
    flush_all(w);

    const struct om_counters *k = om_monitor_counters(w->mon);
    if (shared) {
        *shared += k->notifications_shared - before.notifications_shared;
    }
    return k->cond_compositions - before.cond_compositions;
}

/* Condition groups: clients with the same condition (up to the order and
 * repetition of clauses) share updates; a condition change moves a client
 * to another group. */
static void
groups_scenario(struct world *w, enum om_cache_mode mode, bool check,
                bool collide)
{
    uint64_t s = 31337;

    world_init(w, mode, 25);
    om_monitor_set_hash_collisions__(w->mon, collide);
    world_random_txns(w, &s, 10);
    int a = world_join_id(w, OM_V2, 1, -1, NULL, "x");
    int b = world_join_id(w, OM_V2, 5, -1, NULL, "x");     /* = 1 */
    int c = world_join_id(w, OM_V2, 2, -1, NULL, "x");
    int d = world_join_id(w, OM_V2, 6, -1, NULL, "y");     /* = 2 */
    int e = world_join_id(w, OM_V3, 1, -1, NULL, "x");
    int u = world_join_id(w, OM_V2, 0, -1, NULL, "x");
    int g = world_join_id(w, OM_V2, 7, -1, NULL, "x");     /* 1's shape */
    struct om_client **cl = w->clients;

    if (check) {
        EXPECT(om_client_same_condition(cl[a], cl[b])
               && om_client_same_condition(cl[c], cl[d])
               && om_client_same_condition(cl[a], cl[e])
               && !om_client_same_condition(cl[a], cl[c])
               && !om_client_same_condition(cl[a], cl[u])
               && !om_client_same_condition(cl[a], cl[g])
               && om_monitor_n_cond_groups(w->mon) == 3,
               "groups: %zu", om_monitor_n_cond_groups(w->mon));
    }

    uint64_t shared = 0;
    int rounds = 0;
    for (int r = 0; r < 12; r++) {
        bool changed;
        uint64_t n = groups_round(w, &s, cl[u], &changed, &shared);
        if (check && changed) {
            /* (v2, group 1), (v2, group 2), (v3, group 1), (v2, 7). */
            EXPECT(n == 4, "round %d: %" PRIu64 " conditional compositions",
                   r, n);
            rounds++;
        }
    }
    if (check) {
        EXPECT(rounds > 5 && shared > 0,
               "%d rounds with changes, %" PRIu64 " shared notifications",
               rounds, shared);
    }

    /* C moves to group 1 (D keeps group 2 alive), then D as well: group 2
     * goes. */
    world_cond_change(w, c, 1);
    if (check) {
        EXPECT(om_client_same_condition(cl[a], cl[c])
               && !om_client_same_condition(cl[c], cl[d])
               && om_monitor_n_cond_groups(w->mon) == 3,
               "after C's change: %zu groups",
               om_monitor_n_cond_groups(w->mon));
    }
    world_cond_change(w, d, 5);
    if (check) {
        EXPECT(om_client_same_condition(cl[c], cl[d])
               && om_monitor_n_cond_groups(w->mon) == 2,
               "after D's change: %zu groups",
               om_monitor_n_cond_groups(w->mon));
    }
    rounds = 0;
    for (int r = 0; r < 8; r++) {
        bool changed;
        uint64_t n = groups_round(w, &s, cl[u], &changed, NULL);
        if (check && changed) {
            /* (v2, group 1), (v3, group 1), (v2, 7). */
            EXPECT(n == 3, "after the changes, round %d: %" PRIu64
                   " conditional compositions", r, n);
            rounds++;
        }
    }
    if (check) {
        EXPECT(rounds > 3, "only %d rounds with changes", rounds);
    }
    /* A to no condition, E to condition 2: a new group. */
    world_cond_change(w, a, 0);
    world_cond_change(w, e, 2);
    if (check) {
        EXPECT(!om_client_is_conditional(cl[a])
               && om_client_same_condition(cl[a], cl[u])
               && om_monitor_n_cond_groups(w->mon) == 3,
               "after A's and E's changes: %zu groups",
               om_monitor_n_cond_groups(w->mon));
    }
    for (int r = 0; r < 4; r++) {
        world_random_txn(w, &s);
        flush_all(w);
    }
}

static void
test_cond_groups(void)
{
    struct world *w = malloc(4 * sizeof *w);

    groups_scenario(&w[0], OM_CACHE_NONE, false, false);
    groups_scenario(&w[1], OM_CACHE_SHARED, false, false);
    groups_scenario(&w[2], OM_CACHE_SHARED_COND, true, false);
    /* Again with all hashes equal: only the equality checks tell groups
     * apart. */
    groups_scenario(&w[3], OM_CACHE_SHARED_COND, true, true);
    compare_worlds(&w[0], &w[1], "condition groups");
    compare_worlds(&w[0], &w[2], "condition groups");
    compare_worlds(&w[0], &w[3], "condition groups, colliding hashes");
    /* Without groups, every conditional client composes its own. */
    EXPECT(om_monitor_counters(w[1].mon)->cond_compositions
           > om_monitor_counters(w[2].mon)->cond_compositions,
           "shared-cond composed as much as shared");
    check_replicas(&w[2], "condition groups", NULL);
    for (int m = 0; m < 4; m++) {
        world_destroy(&w[m]);
    }
    free(w);
    report("condition groups: equal conditions (clauses reordered and "
           "repeated) share one composition per version, different ones "
           "do not, a condition change moves a client between groups; "
           "bytes as without sharing");
}

/* Commit observers: the database's only link to its monitors. */
struct observed {
    int commits;                /* OM_DB_COMMIT calls. */
    int destroys;               /* OM_DB_DESTROY calls. */
    size_t changes;             /* Row changes seen. */
    struct om_db *db;           /* To unregister on OM_DB_DESTROY. */
    struct om_db_observer *self;
};

static void
observe_cb(void *aux, enum om_db_event event,
           struct om_change *const *changes, size_t n)
{
    struct observed *o = aux;

    if (event == OM_DB_COMMIT) {
        o->commits++;
        o->changes += n;
        MUST(n == 0 || changes);
    } else {
        o->destroys++;
        MUST(!changes && !n);
        om_db_unobserve(o->db, o->self);
        o->self = NULL;
    }
}

static void
test_observers(void)
{
    struct world w;
    struct observed a = {0}, b = {0};
    uint64_t s = 5;

    world_init(&w, OM_CACHE_SERIALIZED, 4);
    EXPECT(om_db_n_observers(w.db) == 1, "the monitor is not an observer");
    a.db = b.db = w.db;
    a.self = om_db_observe(w.db, observe_cb, &a);
    b.self = om_db_observe(w.db, observe_cb, &b);
    world_join(&w, OM_V2, 0, -1, NULL);
    world_random_txn(&w, &s);
    world_random_txn(&w, &s);
    EXPECT(a.commits == 2 && b.commits == 2 && a.changes == b.changes
           && a.changes > 0, "observers saw %d and %d commits",
           a.commits, b.commits);
    EXPECT(om_client_needs_flush(w.clients[0]),
           "the monitor saw no commit");
    om_db_unobserve(w.db, b.self);
    b.self = NULL;
    world_random_txn(&w, &s);
    EXPECT(a.commits == 3 && b.commits == 2,
           "after unobserve: %d and %d commits", a.commits, b.commits);
    EXPECT(om_db_n_observers(w.db) == 2, "%zu observers",
           om_db_n_observers(w.db));
    world_destroy(&w);
    EXPECT(a.destroys == 1 && b.destroys == 0 && !a.self,
           "destroy notified %d and %d", a.destroys, b.destroys);
    report("commit observers: the monitor and others see every commit, "
           "unobserve stops it, om_db_destroy notifies once");
}

/* Bad input gets clear errors and changes nothing. */
static void
test_bad_input(void)
{
    struct world w;
    char *error = NULL;

    world_init(&w, OM_CACHE_SERIALIZED, 1);
    struct om_txn *txn = om_txn_begin(w.db);
    char uuid[37];
    snprintf(uuid, sizeof uuid, "%s", om_txn_insert(txn, w.tables[0]));
    struct json *v = json_string_create("x");
    EXPECT(!om_txn_set(txn, w.tables[0], uuid, "tunnel_key", v, &error)
           && error && strstr(error, "tunnel_key"),
           "string into an integer column: %s", error ? error : "accepted");
    free(error);
    error = NULL;
    EXPECT(!om_txn_set(txn, w.tables[0], uuid, "nope", v, &error) && error,
           "unknown column accepted");
    free(error);
    error = NULL;
    struct json *dup = json_from_string("[\"map\",[[\"a\",\"b\"],"
                                        "[\"a\",\"c\"]]]");
    EXPECT(!om_txn_set(txn, w.tables[0], uuid, "external_ids", dup, &error)
           && error && strstr(error, "duplicate"),
           "duplicate map key accepted");
    free(error);
    error = NULL;
    json_destroy(dup);
    om_txn_commit(txn);
    EXPECT(om_table_get(w.tables[0], uuid, "tunnel_key")->type
           == JSON_INTEGER, "failed set changed the row");

    struct om_condition *c = om_condition_create();
    om_condition_add_equal(c, "Port_Binding", "nope", v);
    EXPECT(!om_client_create(w.mon, OM_V2, "x", c, NULL, &error) && error
           && strstr(error, "nope"), "condition on unknown column accepted");
    free(error);
    error = NULL;
    om_condition_destroy(c);
    c = om_condition_create();
    om_condition_add_equal(c, "Port_Binding", "tunnel_key", v);
    EXPECT(!om_client_create(w.mon, OM_V2, "x", c, NULL, &error) && error,
           "condition with a value of the wrong type accepted");
    free(error);
    error = NULL;
    EXPECT(!om_client_create(w.mon, OM_V1, "x", c, NULL, &error) && error,
           "condition with monitor v1 accepted");
    free(error);
    error = NULL;
    om_condition_destroy(c);
    EXPECT(!om_client_create(w.mon, OM_V3, "x", NULL, "short", &error)
           && error, "bad last-txn-id accepted");
    free(error);
    error = NULL;
    EXPECT(!om_monitor_add_table(w.mon, w.tables[0], NULL, 0, OM_SEL_ALL,
                                 &error) && error,
           "table monitored twice");
    free(error);
    json_destroy(v);
    EXPECT(om_monitor_n_change_sets(w.mon) == 0,
           "rejected clients left change sets behind");
    world_destroy(&w);
    report("bad input: clear errors, nothing changed");
}

int
main(int argc, char *argv[])
{
    /* "quick" runs fewer and smaller scenarios (the sanitizer pass). */
    bool quick = argc > 1 && !strcmp(argv[1], "quick");
    int n_seeds = quick ? 3 : 8;

    test_formats();
    test_observers();
    test_bad_input();
    for (int seed = 1; seed <= n_seeds; seed++) {
        test_modes_agree(seed, quick ? 150 : 300, 40, seed % 2 == 0);
    }
    test_modes_agree(1000, quick ? 200 : 400, 200, true);
    test_broken_cache_is_caught();
    test_counters(1);
    test_counters(10);
    test_counters(quick ? 100 : 1000);
    test_conditional();
    test_condition_transitions();
    test_cond_change();
    test_invalidation();
    test_reconnect();
    test_shared_bytes();
    test_txn_id_in_key();
    test_slow_client();
    test_backlog_limit();
    test_disconnect_mid_write();
    test_cond_groups();

    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
