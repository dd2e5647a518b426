/* ovsdb-monitor: the in-memory database, its values and its transactions.
 *
 * Values are json, kept in canonical form (sets and maps sorted, no
 * duplicates, a one-element set as the bare atom) so that equality is
 * json_equal() and sending a value is json_clone(). */

#include "om-db-private.h"

#include <stdarg.h>
#include <stdio.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"

#define OM_HISTORY_MAX 100      /* Transactions kept for reconnects, as
                                 * ovsdb-server keeps 100. */

static const char om_zero_uuid[] = "00000000-0000-0000-0000-000000000000";

char *
om_error(const char *format, ...)
{
    struct ds ds = DS_EMPTY_INITIALIZER;
    va_list args;

    va_start(args, format);
    ds_put_format_valist(&ds, format, args);
    va_end(args);
    return ds_steal_cstr(&ds);
}

/* Hands 'error' to the caller through 'errorp', or frees it if 'errorp' is
 * null. */
void
om_set_error(char **errorp, char *error)
{
    if (errorp) {
        *errorp = error;
    } else {
        free(error);
    }
}

/* Deterministic uuids from the database's seed. */
static void
om_uuid_generate(struct om_db *db, char uuid[OM_UUID_LEN + 1])
{
    uint64_t a = om_splitmix64(&db->rng);
    uint64_t b = om_splitmix64(&db->rng);

    snprintf(uuid, OM_UUID_LEN + 1, "%08x-%04x-%04x-%04x-%04x%08x",
             (unsigned int) (a >> 32), (unsigned int) (a >> 16) & 0xffff,
             (unsigned int) a & 0xffff, (unsigned int) (b >> 48),
             (unsigned int) (b >> 32) & 0xffff, (unsigned int) b);
}

static bool
om_uuid_is_valid(const char *s)
{
    for (size_t i = 0; i < OM_UUID_LEN; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i])
                                 || !s[i]) {
            return false;
        }
    }
    return s[OM_UUID_LEN] == '\0';
}

/* ---------------------------------------------------------------------
 * Values.
 * --------------------------------------------------------------------- */

static const char *
om_atomic_type_name(enum om_atomic_type type)
{
    switch (type) {
    case OM_INTEGER: return "integer";
    case OM_REAL: return "real";
    case OM_BOOLEAN: return "boolean";
    case OM_STRING: return "string";
    case OM_UUID: return "uuid";
    }
    return "?";
}

/* Returns a reference to a canonical atom of 'type' made from 'in', or null
 * if 'in' is not one. */
static struct json *
om_atom_canonical(enum om_atomic_type type, const struct json *in)
{
    switch (type) {
    case OM_INTEGER:
        return in->type == JSON_INTEGER ? json_clone(in) : NULL;
    case OM_REAL:
        return (in->type == JSON_REAL ? json_clone(in)
                : in->type == JSON_INTEGER
                ? json_real_create((double) json_integer(in)) : NULL);
    case OM_BOOLEAN:
        return (in->type == JSON_TRUE || in->type == JSON_FALSE
                ? json_clone(in) : NULL);
    case OM_STRING:
        return in->type == JSON_STRING ? json_clone(in) : NULL;
    case OM_UUID:
        if (in->type == JSON_ARRAY && json_array_size(in) == 2
            && json_array_at(in, 0)->type == JSON_STRING
            && !strcmp(json_string(json_array_at(in, 0)), "uuid")
            && json_array_at(in, 1)->type == JSON_STRING
            && om_uuid_is_valid(json_string(json_array_at(in, 1)))) {
            return json_clone(in);
        }
        return NULL;
    }
    return NULL;
}

/* Compares two canonical atoms of the same type. */
int
om_atom_compare(const struct json *a, const struct json *b)
{
    switch (a->type) {
    case JSON_INTEGER: {
        long long int x = json_integer(a), y = json_integer(b);
        return x < y ? -1 : x > y;
    }
    case JSON_REAL: {
        double x = json_real(a), y = json_real(b);
        return x < y ? -1 : x > y;
    }
    case JSON_FALSE:
    case JSON_TRUE:
        return (int) a->type - (int) b->type;
    case JSON_STRING:
        return strcmp(json_string(a), json_string(b));
    case JSON_ARRAY:
        return strcmp(json_string(json_array_at(a, 1)),
                      json_string(json_array_at(b, 1)));
    case JSON_NULL:
    case JSON_OBJECT:
    case JSON_N_TYPES:
    case JSON_SERIALIZED_OBJECT:
    default:
        om_abort("not an atom");
    }
}

static bool
om_is_tagged(const struct json *json, const char *tag)
{
    return (json->type == JSON_ARRAY && json_array_size(json) == 2
            && json_array_at(json, 0)->type == JSON_STRING
            && !strcmp(json_string(json_array_at(json, 0)), tag)
            && json_array_at(json, 1)->type == JSON_ARRAY);
}

/* Number of elements of a canonical set or map value. */
size_t
om_datum_n(const struct json *value, enum om_column_kind kind)
{
    if (kind == OM_SCALAR) {
        return 1;
    } else if (kind == OM_SET && !om_is_tagged(value, "set")) {
        return 1;
    }
    return json_array_size(json_array_at(value, 1));
}

/* Element 'i' of a canonical set (an atom) or map (a [key, value] pair). */
const struct json *
om_datum_at(const struct json *value, enum om_column_kind kind, size_t i)
{
    if (kind == OM_SCALAR || (kind == OM_SET && !om_is_tagged(value, "set"))) {
        return value;
    }
    return json_array_at(json_array_at(value, 1), i);
}

static const struct json *
om_elem_key(const struct json *elem, enum om_column_kind kind)
{
    return kind == OM_MAP ? json_array_at(elem, 0) : elem;
}

/* Renders 'n' elements as a canonical value.  Takes the references and
 * the heap array 'elems' (as json_array_create() does). */
struct json *
om_datum_render(enum om_column_kind kind, struct json **elems, size_t n)
{
    if (kind == OM_SET && n == 1) {
        struct json *atom = elems[0];
        free(elems);
        return atom;
    }
    return json_array_create_2(json_string_create(kind == OM_MAP
                                                  ? "map" : "set"),
                               json_array_create(elems, n));
}

static int
om_compare_elems(const void *a_, const void *b_, void *kind_)
{
    const struct json *const *a = a_;
    const struct json *const *b = b_;
    enum om_column_kind kind = *(enum om_column_kind *) kind_;

    return om_atom_compare(om_elem_key(*a, kind), om_elem_key(*b, kind));
}

/* Makes the canonical value of column 'col' from 'in'.  On error returns
 * null and sets '*errorp'. */
struct json *
om_value_canonical__(const struct om_column *col, const struct json *in,
                   char **errorp)
{
    if (col->kind == OM_SCALAR) {
        struct json *atom = om_atom_canonical(col->key, in);
        if (!atom) {
            *errorp = om_error("column %s: expected %s", col->name,
                               om_atomic_type_name(col->key));
        }
        return atom;
    }

    const char *tag = col->kind == OM_MAP ? "map" : "set";
    const struct json *list = NULL;
    if (om_is_tagged(in, tag)) {
        list = json_array_at(in, 1);
    } else if (col->kind == OM_MAP) {
        *errorp = om_error("column %s: expected [\"map\", [...]]", col->name);
        return NULL;
    }

    size_t n = list ? json_array_size(list) : 1;
    struct json **elems = om_xmalloc(n * sizeof *elems);
    for (size_t i = 0; i < n; i++) {
        const struct json *e = list ? json_array_at(list, i) : in;
        struct json *elem = NULL;

        if (col->kind == OM_SET) {
            elem = om_atom_canonical(col->key, e);
        } else if (e->type == JSON_ARRAY && json_array_size(e) == 2) {
            struct json *k = om_atom_canonical(col->key,
                                               json_array_at(e, 0));
            struct json *v = om_atom_canonical(col->value,
                                               json_array_at(e, 1));
            if (k && v) {
                elem = json_array_create_2(k, v);
            } else {
                json_destroy(k);
                json_destroy(v);
            }
        }
        if (!elem) {
            *errorp = om_error("column %s: element %zu is not a valid %s",
                               col->name, i,
                               col->kind == OM_MAP ? "map pair"
                               : om_atomic_type_name(col->key));
            for (size_t j = 0; j < i; j++) {
                json_destroy(elems[j]);
            }
            free(elems);
            return NULL;
        }
        elems[i] = elem;
    }

    enum om_column_kind kind = col->kind;
    qsort_r(elems, n, sizeof *elems, om_compare_elems, &kind);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && !om_atom_compare(om_elem_key(elems[m - 1], kind),
                                  om_elem_key(elems[i], kind))) {
            if (kind == OM_MAP) {
                *errorp = om_error("column %s: duplicate map key", col->name);
                for (size_t j = 0; j < n; j++) {
                    json_destroy(elems[j]);
                }
                free(elems);
                return NULL;
            }
            json_destroy(elems[i]);
        } else {
            elems[m++] = elems[i];
        }
    }
    return om_datum_render(kind, elems, m);
}

static struct json *
om_default_value(const struct om_column *col)
{
    if (col->kind != OM_SCALAR) {
        return om_datum_render(col->kind, NULL, 0);
    }
    switch (col->key) {
    case OM_INTEGER: return json_integer_create(0);
    case OM_REAL: return json_real_create(0.0);
    case OM_BOOLEAN: return json_boolean_create(false);
    case OM_STRING: return json_string_create("");
    case OM_UUID:
        return json_array_create_2(json_string_create("uuid"),
                                   json_string_create(om_zero_uuid));
    }
    return NULL;
}

bool
om_value_is_default(const struct om_column *col, const struct json *value)
{
    return (col->kind == OM_SCALAR
            ? json_equal(value, col->default_value)
            : om_datum_n(value, col->kind) == 0);
}

struct json **
om_values_clone(struct json *const *values, size_t n)
{
    struct json **copy = om_xmalloc(n * sizeof *copy);

    for (size_t i = 0; i < n; i++) {
        copy[i] = json_clone(values[i]);
    }
    return copy;
}

void
om_values_destroy(struct json **values, size_t n)
{
    if (values) {
        for (size_t i = 0; i < n; i++) {
            json_destroy(values[i]);
        }
        free(values);
    }
}

/* ---------------------------------------------------------------------
 * Database and tables.
 * --------------------------------------------------------------------- */

struct om_db *
om_db_create(uint64_t seed)
{
    struct om_db *db = om_xzalloc(sizeof *db);

    db->rng = seed;
    memcpy(db->last_txn, om_zero_uuid, sizeof db->last_txn);
    om_list_init(&db->observers);
    om_list_init(&db->history);
    return db;
}

static void
om_row_destroy(struct om_table *table, struct om_row *row)
{
    om_values_destroy(row->values, table->n_columns);
    free(row);
}

static void
om_history_txn_destroy(struct om_history_txn *h)
{
    for (size_t i = 0; i < h->n; i++) {
        om_change_destroy(h->changes[i]);
    }
    free(h->changes);
    free(h);
}

void
om_change_destroy(struct om_change *c)
{
    om_values_destroy(c->old, c->table->n_columns);
    om_values_destroy(c->new, c->table->n_columns);
    free(c);
}

void
om_db_destroy(struct om_db *db)
{
    if (!db) {
        return;
    }
    om_assert(!db->txn);

    /* Observers (monitors) go first: they may still read the tables. */
    struct om_db_observer *o, *next_o;
    OM_LIST_FOR_EACH_SAFE (o, next_o, struct om_db_observer, node,
                           &db->observers) {
        o->cb(o->aux, OM_DB_DESTROY, NULL, 0);
    }
    OM_LIST_FOR_EACH_SAFE (o, next_o, struct om_db_observer, node,
                           &db->observers) {
        om_db_unobserve(db, o);
    }

    struct om_history_txn *h, *next_h;
    OM_LIST_FOR_EACH_SAFE (h, next_h, struct om_history_txn, node,
                           &db->history) {
        om_history_txn_destroy(h);
    }

    for (size_t i = 0; i < db->n_tables; i++) {
        struct om_table *table = db->tables[i];
        struct om_row *row, *next;

        OM_LIST_FOR_EACH_SAFE (row, next, struct om_row, node,
                               &table->row_list) {
            om_row_destroy(table, row);
        }
        om_hmap_destroy(&table->rows);
        for (size_t j = 0; j < table->n_columns; j++) {
            free(table->columns[j].name);
            json_destroy(table->columns[j].default_value);
        }
        free(table->columns);
        free(table->name);
        free(table);
    }
    free(db->tables);
    free(db);
}

struct om_table *
om_db_add_table(struct om_db *db, const char *name,
                const struct om_column_def *defs, size_t n)
{
    if (om_db_get_table(db, name) || !n) {
        return NULL;
    }

    struct om_table *table = om_xzalloc(sizeof *table);
    table->name = om_xstrdup(name);
    table->db = db;
    table->n_columns = n;
    table->columns = om_xzalloc(n * sizeof *table->columns);
    for (size_t i = 0; i < n; i++) {
        struct om_column *col = &table->columns[i];

        for (size_t j = 0; j < i; j++) {
            if (!strcmp(defs[j].name, defs[i].name)) {
                for (size_t k = 0; k < i; k++) {
                    free(table->columns[k].name);
                    json_destroy(table->columns[k].default_value);
                }
                free(table->columns);
                free(table->name);
                free(table);
                return NULL;
            }
        }
        col->name = om_xstrdup(defs[i].name);
        col->kind = defs[i].kind;
        col->key = defs[i].key;
        col->value = defs[i].value;
        col->index = i;
        col->default_value = om_default_value(col);
    }
    om_hmap_init(&table->rows);
    om_list_init(&table->row_list);

    db->tables = om_xrealloc(db->tables,
                             (db->n_tables + 1) * sizeof *db->tables);
    db->tables[db->n_tables++] = table;
    return table;
}

struct om_table *
om_db_get_table(const struct om_db *db, const char *name)
{
    for (size_t i = 0; i < db->n_tables; i++) {
        if (!strcmp(db->tables[i]->name, name)) {
            return db->tables[i];
        }
    }
    return NULL;
}

const char *
om_db_last_txn_id(const struct om_db *db)
{
    return db->last_txn;
}

size_t
om_table_n_rows(const struct om_table *table)
{
    return table->rows.n;
}

const char *
om_table_name(const struct om_table *table)
{
    return table->name;
}

const struct om_column *
om_table_find_column(const struct om_table *table, const char *name)
{
    for (size_t i = 0; i < table->n_columns; i++) {
        if (!strcmp(table->columns[i].name, name)) {
            return &table->columns[i];
        }
    }
    return NULL;
}

struct om_row *
om_table_find_row(const struct om_table *table, const char *uuid)
{
    uint32_t hash = om_hash_string(uuid, 0);

    for (struct om_hnode *node = om_hmap_first_with_hash(&table->rows, hash);
         node; node = node->next) {
        struct om_row *row = OM_CONTAINER_OF(node, struct om_row, hnode);
        if (node->hash == hash && !strcmp(row->uuid, uuid)) {
            return row;
        }
    }
    return NULL;
}

size_t
om_table_row_uuids(const struct om_table *table, char (**uuidsp)[37])
{
    char (*uuids)[37] = om_xmalloc((table->rows.n + 1) * sizeof *uuids);
    struct om_row *row, *next;
    size_t n = 0;

    OM_LIST_FOR_EACH_SAFE (row, next, struct om_row, node,
                           &table->row_list) {
        memcpy(uuids[n++], row->uuid, sizeof row->uuid);
    }
    *uuidsp = uuids;
    return n;
}

const struct json *
om_table_get(const struct om_table *table, const char *uuid,
             const char *column)
{
    const struct om_row *row = om_table_find_row(table, uuid);
    const struct om_column *col = om_table_find_column(table, column);

    return row && col ? row->values[col->index] : NULL;
}

/* ---------------------------------------------------------------------
 * Transactions.
 * --------------------------------------------------------------------- */

struct om_txn *
om_txn_begin(struct om_db *db)
{
    om_assert(!db->txn);

    struct om_txn *txn = om_xzalloc(sizeof *txn);
    txn->db = db;
    om_hmap_init(&txn->map);
    db->txn = txn;
    return txn;
}

static uint32_t
om_change_hash(const struct om_table *table, const char *uuid)
{
    return om_hash_string(uuid, (uint32_t) (uintptr_t) table);
}

static struct om_change *
om_txn_find_change(const struct om_txn *txn, const struct om_table *table,
                   const char *uuid)
{
    uint32_t hash = om_change_hash(table, uuid);

    for (struct om_hnode *node = om_hmap_first_with_hash(&txn->map, hash);
         node; node = node->next) {
        struct om_change *c = OM_CONTAINER_OF(node, struct om_change, hnode);
        if (node->hash == hash && c->table == table
            && !strcmp(c->uuid, uuid)) {
            return c;
        }
    }
    return NULL;
}

/* Returns the change record of 'row', making it (with a snapshot of the
 * row's current values as 'old') on first touch. */
static struct om_change *
om_txn_touch(struct om_txn *txn, struct om_table *table, struct om_row *row)
{
    struct om_change *c = om_txn_find_change(txn, table, row->uuid);

    if (!c) {
        c = om_xzalloc(sizeof *c);
        c->table = table;
        memcpy(c->uuid, row->uuid, sizeof c->uuid);
        c->old = om_values_clone(row->values, table->n_columns);
        om_hmap_insert(&txn->map, &c->hnode, om_change_hash(table, c->uuid));
        if (txn->n >= txn->allocated) {
            txn->allocated = txn->allocated ? 2 * txn->allocated : 16;
            txn->changes = om_xrealloc(txn->changes,
                                       txn->allocated * sizeof *txn->changes);
        }
        txn->changes[txn->n++] = c;
    }
    return c;
}

const char *
om_txn_insert(struct om_txn *txn, struct om_table *table)
{
    struct om_row *row = om_xzalloc(sizeof *row);

    do {
        om_uuid_generate(txn->db, row->uuid);
    } while (om_table_find_row(table, row->uuid));
    row->values = om_xmalloc(table->n_columns * sizeof *row->values);
    for (size_t i = 0; i < table->n_columns; i++) {
        row->values[i] = json_clone(table->columns[i].default_value);
    }
    om_hmap_insert(&table->rows, &row->hnode, om_hash_string(row->uuid, 0));
    om_list_push_back(&table->row_list, &row->node);

    struct om_change *c = om_txn_touch(txn, table, row);
    om_values_destroy(c->old, table->n_columns);
    c->old = NULL;
    return c->uuid;
}

bool
om_txn_set(struct om_txn *txn, struct om_table *table, const char *uuid,
           const char *column, const struct json *value, char **errorp)
{
    struct om_row *row = om_table_find_row(table, uuid);
    if (!row) {
        om_set_error(errorp, om_error("table %s: no row %s",
                                      table->name, uuid));
        return false;
    }
    const struct om_column *col = om_table_find_column(table, column);
    if (!col) {
        om_set_error(errorp, om_error("table %s: no column %s",
                                      table->name, column));
        return false;
    }

    char *error = NULL;
    struct json *canonical = om_value_canonical__(col, value, &error);
    if (!canonical) {
        om_set_error(errorp, error);
        return false;
    }
    om_txn_touch(txn, table, row);
    json_destroy(row->values[col->index]);
    row->values[col->index] = canonical;
    return true;
}

bool
om_txn_delete(struct om_txn *txn, struct om_table *table, const char *uuid)
{
    struct om_row *row = om_table_find_row(table, uuid);
    if (!row) {
        return false;
    }

    struct om_change *c = om_txn_touch(txn, table, row);
    c->deleted = true;
    om_hmap_remove(&table->rows, &row->hnode);
    om_list_remove(&row->node);
    om_row_destroy(table, row);
    return true;
}

const char *
om_txn_commit(struct om_txn *txn)
{
    struct om_db *db = txn->db;
    struct om_history_txn *h = om_xzalloc(sizeof *h);

    h->changes = om_xmalloc((txn->n + 1) * sizeof *h->changes);
    for (size_t i = 0; i < txn->n; i++) {
        struct om_change *c = txn->changes[i];

        if (c->deleted) {
            if (!c->old) {
                /* Inserted, then deleted: nothing happened. */
                om_change_destroy(c);
                continue;
            }
        } else {
            struct om_row *row = om_table_find_row(c->table, c->uuid);
            om_assert(row);
            c->new = om_values_clone(row->values, c->table->n_columns);
        }
        h->changes[h->n++] = c;
    }
    om_hmap_destroy(&txn->map);
    free(txn->changes);
    free(txn);
    db->txn = NULL;

    om_uuid_generate(db, h->id);
    memcpy(db->last_txn, h->id, sizeof db->last_txn);
    om_list_push_back(&db->history, &h->node);
    if (++db->n_history > OM_HISTORY_MAX) {
        struct om_history_txn *oldest
            = OM_CONTAINER_OF(db->history.next, struct om_history_txn, node);
        om_list_remove(&oldest->node);
        om_history_txn_destroy(oldest);
        db->n_history--;
    }

    struct om_db_observer *o, *next;
    OM_LIST_FOR_EACH_SAFE (o, next, struct om_db_observer, node,
                           &db->observers) {
        o->cb(o->aux, OM_DB_COMMIT, h->changes, h->n);
    }
    return db->last_txn;
}

/* ---------------------------------------------------------------------
 * Commit observers.
 * --------------------------------------------------------------------- */

/* Registers 'cb' to be called with 'aux' on every commit of 'db' and when
 * 'db' is destroyed.  Observers are called in the order they registered. */
struct om_db_observer *
om_db_observe(struct om_db *db, om_db_observer_cb *cb, void *aux)
{
    struct om_db_observer *o = om_xmalloc(sizeof *o);

    o->cb = cb;
    o->aux = aux;
    om_list_push_back(&db->observers, &o->node);
    return o;
}

/* Unregisters 'o' (nullable) and frees it. */
void
om_db_unobserve(struct om_db *db, struct om_db_observer *o)
{
    (void) db;
    if (o) {
        om_list_remove(&o->node);
        free(o);
    }
}

size_t
om_db_n_observers(const struct om_db *db)
{
    size_t n = 0;
    struct om_db_observer *o, *next;

    OM_LIST_FOR_EACH_SAFE (o, next, struct om_db_observer, node,
                           &db->observers) {
        n++;
    }
    return n;
}
