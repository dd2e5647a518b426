/* ovsdb-monitor: monitors, change sets, update composition, the json cache
 * and clients.
 *
 * The life of change sets follows ovsdb-server: every client holds the
 * change set it has yet to receive; clients that are up to date share the
 * monitor's "new" change set, and a commit that changes a monitored table
 * adds its rows to every change set and starts a new one.  Composed updates
 * are cached per (version, change set) for the clients without a
 * condition; a commit drops the entries of the change sets it changed. */

#include "om-private.h"

#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"

const char *
om_cache_mode_name(enum om_cache_mode mode)
{
    switch (mode) {
    case OM_CACHE_NONE: return "no-cache";
    case OM_CACHE_JSON: return "json-cache";
    case OM_CACHE_SERIALIZED: return "serialized-cache";
    case OM_CACHE_SHARED: return "shared";
    case OM_CACHE_SHARED_COND: return "shared-cond";
    }
    return "?";
}

bool
om_cache_mode_from_string(const char *s, enum om_cache_mode *mode)
{
    for (int m = OM_CACHE_NONE; m <= OM_CACHE_SHARED_COND; m++) {
        if (!strcmp(s, om_cache_mode_name(m))) {
            *mode = m;
            return true;
        }
    }
    return false;
}

const char *
om_version_name(enum om_version version)
{
    switch (version) {
    case OM_V1: return "monitor";
    case OM_V2: return "monitor_cond";
    case OM_V3: return "monitor_cond_since";
    case OM_N_VERSIONS: break;
    }
    return "?";
}

static const char *
om_update_method(enum om_version version)
{
    return (version == OM_V1 ? "update"
            : version == OM_V2 ? "update2" : "update3");
}

/* ---------------------------------------------------------------------
 * Monitors.
 * --------------------------------------------------------------------- */

static void om_monitor_commit(struct om_monitor *,
                              struct om_change *const *, size_t n);

/* The monitor's commit observer (om_db_observe()). */
static void
om_monitor_observe_db(void *mon_, enum om_db_event event,
                      struct om_change *const *changes, size_t n)
{
    struct om_monitor *mon = mon_;

    if (event == OM_DB_COMMIT) {
        om_monitor_commit(mon, changes, n);
    } else {
        om_monitor_destroy(mon);
    }
}

struct om_monitor *
om_monitor_create(struct om_db *db, enum om_cache_mode mode)
{
    struct om_monitor *mon = om_xzalloc(sizeof *mon);

    mon->db = db;
    mon->mode = mode;
    om_list_init(&mon->change_sets);
    om_list_init(&mon->cache);
    om_list_init(&mon->clients);
    om_hmap_init(&mon->notifications);
    om_hmap_init(&mon->cond_groups);
    mon->invalidation = true;
    mon->key_txn_id = true;
    mon->next_request_id = 1;
    mon->observer = om_db_observe(db, om_monitor_observe_db, mon);
    return mon;
}

static int
om_compare_columns_by_name(const void *a_, const void *b_)
{
    const struct om_column *const *a = a_;
    const struct om_column *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

bool
om_monitor_add_table(struct om_monitor *mon, struct om_table *table,
                     const char *const *columns, size_t n_columns,
                     unsigned int select, char **errorp)
{
    char *error = NULL;

    if (table->db != mon->db) {
        error = om_error("table %s: not in the monitored database",
                         table->name);
    } else if (!om_list_is_empty(&mon->clients)
               || !om_list_is_empty(&mon->change_sets)) {
        error = om_error("table %s: monitor already has clients",
                         table->name);
    } else {
        for (size_t i = 0; i < mon->n_tables; i++) {
            if (mon->tables[i]->table == table) {
                error = om_error("table %s: already monitored", table->name);
            }
        }
    }

    struct om_mtable *mt = NULL;
    if (!error) {
        size_t n = n_columns ? n_columns : table->n_columns;

        mt = om_xzalloc(sizeof *mt);
        mt->table = table;
        mt->select = select & OM_SEL_ALL;
        mt->columns = om_xmalloc(n * sizeof *mt->columns);
        for (size_t i = 0; i < n && !error; i++) {
            const struct om_column *col
                = (n_columns ? om_table_find_column(table, columns[i])
                   : &table->columns[i]);
            if (!col) {
                error = om_error("table %s: no column %s",
                                 table->name, columns[i]);
                break;
            }
            for (size_t j = 0; j < mt->n_columns; j++) {
                if (mt->columns[j] == col) {
                    error = om_error("table %s: column %s listed twice",
                                     table->name, col->name);
                }
            }
            mt->columns[mt->n_columns++] = col;
        }
    }
    if (error) {
        if (mt) {
            free(mt->columns);
            free(mt);
        }
        om_set_error(errorp, error);
        return false;
    }

    /* Members of composed objects are put in name order, so that the
     * serializer's output is the same with and without JSSF_SORT (OVS's
     * json_serialized_object_create() sorts, jsonrpc_send() does not). */
    qsort(mt->columns, mt->n_columns, sizeof *mt->columns,
          om_compare_columns_by_name);

    size_t pos = 0;
    while (pos < mon->n_tables
           && strcmp(mon->tables[pos]->table->name, table->name) < 0) {
        pos++;
    }
    mon->tables = om_xrealloc(mon->tables,
                              (mon->n_tables + 1) * sizeof *mon->tables);
    memmove(&mon->tables[pos + 1], &mon->tables[pos],
            (mon->n_tables - pos) * sizeof *mon->tables);
    mon->tables[pos] = mt;
    mon->n_tables++;
    for (size_t i = 0; i < mon->n_tables; i++) {
        mon->tables[i]->index = i;
    }
    return true;
}

static const struct om_mtable *
om_monitor_find_mtable(const struct om_monitor *mon,
                       const struct om_table *table)
{
    for (size_t i = 0; i < mon->n_tables; i++) {
        if (mon->tables[i]->table == table) {
            return mon->tables[i];
        }
    }
    return NULL;
}

const struct om_counters *
om_monitor_counters(const struct om_monitor *mon)
{
    return &mon->counters;
}

void
om_monitor_reset_counters(struct om_monitor *mon)
{
    memset(&mon->counters, 0, sizeof mon->counters);
}

size_t
om_monitor_n_cache_entries(const struct om_monitor *mon)
{
    return mon->n_cache;
}

size_t
om_monitor_n_change_sets(const struct om_monitor *mon)
{
    size_t n = 0;
    struct om_cs *cs, *next;

    OM_LIST_FOR_EACH_SAFE (cs, next, struct om_cs, node, &mon->change_sets) {
        n++;
    }
    return n;
}

enum om_cache_mode
om_monitor_cache_mode(const struct om_monitor *mon)
{
    return mon->mode;
}

void
om_monitor_set_invalidation__(struct om_monitor *mon, bool enable)
{
    mon->invalidation = enable;
}

void
om_monitor_set_key_txn_id__(struct om_monitor *mon, bool enable)
{
    mon->key_txn_id = enable;
}

void
om_monitor_set_hash_collisions__(struct om_monitor *mon, bool enable)
{
    mon->collide = enable;
}

size_t
om_monitor_n_buffers(const struct om_monitor *mon, size_t *bytesp)
{
    if (bytesp) {
        *bytesp = mon->msg_bytes;
    }
    return mon->n_msgs;
}

size_t
om_monitor_n_notifications(const struct om_monitor *mon)
{
    return mon->notifications.n;
}

size_t
om_monitor_n_cond_groups(const struct om_monitor *mon)
{
    return mon->cond_groups.n;
}

/* ---------------------------------------------------------------------
 * Message buffers.
 * --------------------------------------------------------------------- */

/* Serializes 'msg' (which it destroys) into a new buffer with one
 * reference, for the caller, as jsonrpc_send() serializes (flags 0),
 * followed by a new-line.  'body', if nonnull, is the update inside
 * 'msg', for the counters. */
static struct om_msg *
om_msg_create(struct om_monitor *mon, struct json *msg,
              const struct json *body)
{
    struct om_counters *k = &mon->counters;
    struct om_msg *m = om_xmalloc(sizeof *m);
    struct ds ds = DS_EMPTY_INITIALIZER;

    json_to_ds(msg, 0, &ds);
    ds_put_char(&ds, '\n');
    if (body && body->type == JSON_SERIALIZED_OBJECT) {
        k->bytes_verbatim += strlen(json_serialized_object(body));
    } else if (body) {
        k->serializations++;
    }
    json_destroy(msg);         /* And 'body' with it. */

    m->n_refs = 1;
    m->size = ds.length;
    m->data = ds_steal_cstr(&ds);
    m->mon = mon;
    mon->n_msgs++;
    mon->msg_bytes += m->size;

    k->buffers++;
    k->bytes_buffered += m->size;
    return m;
}

static struct om_msg *
om_msg_ref(struct om_msg *m)
{
    om_assert(m->n_refs > 0);
    m->n_refs++;
    return m;
}

static void
om_msg_unref(struct om_msg *m)
{
    if (m) {
        om_assert(m->n_refs > 0);
        if (!--m->n_refs) {
            m->mon->n_msgs--;
            m->mon->msg_bytes -= m->size;
            free(m->data);
            free(m);
        }
    }
}

/* ---------------------------------------------------------------------
 * Condition groups.
 * --------------------------------------------------------------------- */

static void om_table_conds_destroy(struct om_table_cond *, size_t n);

static uint32_t
om_hash_bytes(const void *p_, size_t n, uint32_t basis)
{
    const unsigned char *p = p_;
    uint32_t h = 2166136261u ^ basis;

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* Orders clauses by column (literals first), then literal value, then
 * value: the canonical order of a table's clauses. */
static int
om_clause_compare(const struct om_column *ca, bool la, const char *ta,
                  const struct om_column *cb, bool lb, const char *tb)
{
    size_t ia = ca ? ca->index + 1 : 0, ib = cb ? cb->index + 1 : 0;

    if (ia != ib) {
        return ia < ib ? -1 : 1;
    } else if (!ca) {
        return (int) la - (int) lb;
    }
    return strcmp(ta, tb);
}

/* Puts the clauses of 'tc' in canonical order without duplicates, so that
 * conditions that differ only in the order or repetition of clauses become
 * equal, and returns the hash of the result (OVS compares conditions with
 * ovsdb_condition_cmp_3way() on sorted clauses). */
static uint32_t
om_table_cond_canonicalize(struct om_table_cond *tc, uint32_t hash)
{
    size_t n = tc->n;
    char **texts = om_xmalloc((n + 1) * sizeof *texts);

    for (size_t i = 0; i < n; i++) {
        texts[i] = tc->values[i] ? json_to_string(tc->values[i], 0) : NULL;
    }
    /* Insertion sort: conditions have few clauses. */
    for (size_t i = 1; i < n; i++) {
        for (size_t j = i; j > 0
             && om_clause_compare(tc->columns[j], tc->literals[j], texts[j],
                                  tc->columns[j - 1], tc->literals[j - 1],
                                  texts[j - 1]) < 0; j--) {
#define OM_SWAP(A, B, T) do { T t_ = (A); (A) = (B); (B) = t_; } while (0)
            OM_SWAP(tc->columns[j], tc->columns[j - 1],
                    const struct om_column *);
            OM_SWAP(tc->values[j], tc->values[j - 1], struct json *);
            OM_SWAP(tc->literals[j], tc->literals[j - 1], bool);
            OM_SWAP(texts[j], texts[j - 1], char *);
#undef OM_SWAP
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && !om_clause_compare(tc->columns[m - 1], tc->literals[m - 1],
                                    texts[m - 1], tc->columns[i],
                                    tc->literals[i], texts[i])) {
            json_destroy(tc->values[i]);
            free(texts[i]);
            continue;
        }
        tc->columns[m] = tc->columns[i];
        tc->values[m] = tc->values[i];
        tc->literals[m] = tc->literals[i];
        texts[m++] = texts[i];
    }
    tc->n = m;

    hash = om_hash_bytes(&tc->mt->index, sizeof tc->mt->index, hash);
    for (size_t i = 0; i < m; i++) {
        size_t col = tc->columns[i] ? tc->columns[i]->index + 1 : 0;
        hash = om_hash_bytes(&col, sizeof col, hash);
        hash = (texts[i] ? om_hash_string(texts[i], hash)
                : om_hash_bytes(&tc->literals[i], 1, hash));
        free(texts[i]);
    }
    free(texts);
    return hash;
}

static bool
om_table_cond_equal(const struct om_table_cond *a,
                    const struct om_table_cond *b)
{
    if (a->mt != b->mt || a->n != b->n) {
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->columns[i] != b->columns[i]
            || (a->columns[i]
                ? !json_equal(a->values[i], b->values[i])
                : a->literals[i] != b->literals[i])) {
            return false;
        }
    }
    return true;
}

/* Returns the group of condition 'conds' (bound to 'mon', which it takes),
 * with a new reference: an existing group with an equal condition, or a
 * new one. */
static struct om_cond_group *
om_cond_group_get(struct om_monitor *mon, struct om_table_cond *conds)
{
    uint32_t hash = 0;

    for (size_t t = 0; t < mon->n_tables; t++) {
        if (conds[t].mt) {
            hash = om_table_cond_canonicalize(&conds[t], hash);
        }
    }
    if (mon->collide) {
        hash = 0;
    }
    for (struct om_hnode *node = om_hmap_first_with_hash(&mon->cond_groups,
                                                         hash);
         node; node = node->next) {
        struct om_cond_group *g = OM_CONTAINER_OF(node, struct om_cond_group,
                                                  hnode);
        bool equal = node->hash == hash;
        for (size_t t = 0; equal && t < mon->n_tables; t++) {
            equal = (!g->conds[t].mt == !conds[t].mt
                     && (!conds[t].mt
                         || om_table_cond_equal(&g->conds[t], &conds[t])));
        }
        if (equal) {
            om_table_conds_destroy(conds, mon->n_tables);
            g->n_refs++;
            return g;
        }
    }

    struct om_cond_group *g = om_xmalloc(sizeof *g);
    g->n_refs = 1;
    g->conds = conds;
    om_hmap_insert(&mon->cond_groups, &g->hnode, hash);
    return g;
}

static struct om_cond_group *
om_cond_group_ref(struct om_cond_group *g)
{
    if (g) {
        g->n_refs++;
    }
    return g;
}

static void
om_cond_group_unref(struct om_monitor *mon, struct om_cond_group *g)
{
    if (g) {
        om_assert(g->n_refs > 0);
        if (!--g->n_refs) {
            om_hmap_remove(&mon->cond_groups, &g->hnode);
            om_table_conds_destroy(g->conds, mon->n_tables);
            free(g);
        }
    }
}

/* ---------------------------------------------------------------------
 * The json cache.
 * --------------------------------------------------------------------- */

static struct om_cache_entry *
om_cache_find(const struct om_monitor *mon, enum om_version version,
              const struct om_cs *cs, const struct om_cond_group *group)
{
    struct om_cache_entry *e, *next;

    OM_LIST_FOR_EACH_SAFE (e, next, struct om_cache_entry, node,
                           &mon->cache) {
        if (e->cs == cs && e->version == version && e->group == group) {
            return e;
        }
    }
    return NULL;
}

static struct om_cache_entry *
om_cache_insert(struct om_monitor *mon, enum om_version version,
                const struct om_cs *cs, struct om_cond_group *group,
                struct json *json)
{
    struct om_cache_entry *e = om_xmalloc(sizeof *e);

    e->version = version;
    e->cs = cs;
    e->group = om_cond_group_ref(group);
    e->json = json ? json_clone(json) : NULL;
    om_list_init(&e->notifications);
    om_list_push_back(&mon->cache, &e->node);
    mon->n_cache++;
    mon->counters.cache_inserts++;
    return e;
}

static void
om_notification_destroy(struct om_monitor *mon, struct om_notification *n)
{
    om_hmap_remove(&mon->notifications, &n->hnode);
    om_list_remove(&n->node);
    om_msg_unref(n->msg);
    free(n->monitor_id);
    free(n);
}

/* Removes 'e' and the notifications made from it.  Clients that still have
 * one of them queued keep their own reference to its bytes. */
static void
om_cache_remove(struct om_monitor *mon, struct om_cache_entry *e)
{
    struct om_notification *n, *next;

    OM_LIST_FOR_EACH_SAFE (n, next, struct om_notification, node,
                           &e->notifications) {
        om_notification_destroy(mon, n);
    }
    om_list_remove(&e->node);
    json_destroy(e->json);
    om_cond_group_unref(mon, e->group);
    free(e);
    mon->n_cache--;
}

/* Drops the entries of change set 'cs' (all of them if 'cs' is null). */
static size_t
om_cache_drop(struct om_monitor *mon, const struct om_cs *cs)
{
    struct om_cache_entry *e, *next;
    size_t n = 0;

    OM_LIST_FOR_EACH_SAFE (e, next, struct om_cache_entry, node,
                           &mon->cache) {
        if (!cs || e->cs == cs) {
            om_cache_remove(mon, e);
            n++;
        }
    }
    return n;
}

/* ---------------------------------------------------------------------
 * Change sets.
 * --------------------------------------------------------------------- */

static struct om_cs *
om_cs_create(struct om_monitor *mon, bool init_only, const char *prev_txn)
{
    struct om_cs *cs = om_xzalloc(sizeof *cs);

    cs->id = mon->next_cs_id++;
    cs->n_refs = 1;
    snprintf(cs->prev_txn, sizeof cs->prev_txn, "%s", prev_txn);
    cs->tables = om_xzalloc((mon->n_tables + 1) * sizeof *cs->tables);
    for (size_t i = 0; i < mon->n_tables; i++) {
        if (!init_only || mon->tables[i]->select & OM_SEL_INITIAL) {
            struct om_cs_table *cst = om_xmalloc(sizeof *cst);
            om_hmap_init(&cst->rows);
            om_list_init(&cst->row_list);
            cs->tables[i] = cst;
        }
    }
    om_list_push_back(&mon->change_sets, &cs->node);
    return cs;
}

static void
om_cs_row_destroy(const struct om_mtable *mt, struct om_cs_row *row)
{
    om_values_destroy(row->old, mt->table->n_columns);
    om_values_destroy(row->new, mt->table->n_columns);
    free(row);
}

static void
om_cs_destroy(struct om_monitor *mon, struct om_cs *cs)
{
    om_list_remove(&cs->node);
    for (size_t i = 0; i < mon->n_tables; i++) {
        struct om_cs_table *cst = cs->tables[i];
        if (cst) {
            struct om_cs_row *row, *next;
            OM_LIST_FOR_EACH_SAFE (row, next, struct om_cs_row, node,
                                   &cst->row_list) {
                om_cs_row_destroy(mon->tables[i], row);
            }
            om_hmap_destroy(&cst->rows);
            free(cst);
        }
    }
    free(cs->tables);
    free(cs);
}

static struct om_cs_row *
om_cs_find_row(const struct om_cs_table *cst, const char *uuid,
               uint32_t hash)
{
    for (struct om_hnode *node = om_hmap_first_with_hash(&cst->rows, hash);
         node; node = node->next) {
        struct om_cs_row *row = OM_CONTAINER_OF(node, struct om_cs_row,
                                                hnode);
        if (node->hash == hash && !strcmp(row->uuid, uuid)) {
            return row;
        }
    }
    return NULL;
}

/* Adds the change of row 'uuid' from 'old' to 'new' (either may be null) to
 * 'cst', merging it with what 'cst' already has for the row. */
static void
om_cs_table_update(const struct om_mtable *mt, struct om_cs_table *cst,
                   const char *uuid, struct json *const *old,
                   struct json *const *new)
{
    size_t n = mt->table->n_columns;
    uint32_t hash = om_hash_string(uuid, 0);
    struct om_cs_row *row = om_cs_find_row(cst, uuid, hash);

    if (!row) {
        row = om_xzalloc(sizeof *row);
        memcpy(row->uuid, uuid, sizeof row->uuid);
        row->old = old ? om_values_clone(old, n) : NULL;
        row->new = new ? om_values_clone(new, n) : NULL;
        om_hmap_insert(&cst->rows, &row->hnode, hash);
        om_list_push_back(&cst->row_list, &row->node);
    } else if (new) {
        om_values_destroy(row->new, n);
        row->new = om_values_clone(new, n);
    } else {
        om_values_destroy(row->new, n);
        row->new = NULL;
        if (!row->old) {
            /* Inserted, then deleted, within the change set. */
            om_hmap_remove(&cst->rows, &row->hnode);
            om_list_remove(&row->node);
            om_cs_row_destroy(mt, row);
        }
    }
}

/* Whether a change to a row of 'mt' is visible to some client: OVS's
 * OVSDB_CHANGES_REQUIRE_EXTERNAL_UPDATE.  A modification counts as an
 * insertion or deletion too, since a condition can turn it into one. */
static bool
om_change_is_external(const struct om_mtable *mt, const struct om_change *c)
{
    unsigned int type = (!c->old ? OM_SEL_INSERT
                         : !c->new ? OM_SEL_DELETE
                         : OM_SEL_MODIFY | OM_SEL_INSERT | OM_SEL_DELETE);
    return (mt->select & type) != 0;
}

static bool
om_change_has_effect(const struct om_mtable *mt, const struct om_change *c)
{
    if (!c->old || !c->new) {
        return true;
    }
    for (size_t i = 0; i < mt->table->n_columns; i++) {
        if (!json_equal(c->old[i], c->new[i])) {
            return true;
        }
    }
    return false;
}

/* Applies committed 'changes' to the monitor's change sets and drops the
 * cache entries they make stale (OVS: ovsdb_monitor_commit()). */
static void
om_monitor_commit(struct om_monitor *mon, struct om_change *const *changes,
                  size_t n)
{
    bool any = false;
    struct om_cs *cs, *next;

    for (size_t i = 0; i < n; i++) {
        const struct om_change *c = changes[i];
        const struct om_mtable *mt = om_monitor_find_mtable(mon, c->table);

        if (!mt || !om_change_has_effect(mt, c)) {
            continue;
        }
        bool external = om_change_is_external(mt, c);
        OM_LIST_FOR_EACH_SAFE (cs, next, struct om_cs, node,
                               &mon->change_sets) {
            struct om_cs_table *cst = cs->tables[mt->index];
            if (cst) {
                om_cs_table_update(mt, cst, c->uuid, c->old, c->new);
                cs->dirty |= external;
            }
        }
        any = true;
    }
    if (any) {
        /* Clients that are up to date now need a new change set. */
        mon->new_cs = NULL;
    }
    OM_LIST_FOR_EACH_SAFE (cs, next, struct om_cs, node, &mon->change_sets) {
        if (cs->dirty && mon->invalidation) {
            mon->counters.cache_invalidations += om_cache_drop(mon, cs);
        }
        cs->dirty = false;
    }
}

static void
om_monitor_untrack(struct om_monitor *mon, struct om_cs *cs)
{
    om_assert(cs->n_refs > 0);
    if (--cs->n_refs == 0) {
        if (cs == mon->init_cs) {
            /* The initial change set lives as long as the monitor. */
            cs->n_refs++;
            return;
        }
        if (cs == mon->new_cs) {
            mon->new_cs = NULL;
        }
        om_cache_drop(mon, cs);
        om_cs_destroy(mon, cs);
    }
}

static struct om_cs *
om_monitor_track_new(struct om_monitor *mon)
{
    if (mon->new_cs) {
        mon->new_cs->n_refs++;
    } else {
        mon->new_cs = om_cs_create(mon, false, mon->db->last_txn);
    }
    return mon->new_cs;
}

/* Returns the change set of all current rows, as insertions. */
static struct om_cs *
om_monitor_get_initial(struct om_monitor *mon)
{
    if (mon->init_cs) {
        mon->init_cs->n_refs++;
        return mon->init_cs;
    }

    struct om_cs *cs = om_cs_create(mon, true, "");
    for (size_t i = 0; i < mon->n_tables; i++) {
        const struct om_mtable *mt = mon->tables[i];
        struct om_cs_table *cst = cs->tables[i];
        struct om_row *row, *next;

        if (!cst) {
            continue;
        }
        OM_LIST_FOR_EACH_SAFE (row, next, struct om_row, node,
                               &mt->table->row_list) {
            om_cs_table_update(mt, cst, row->uuid, NULL, row->values);
        }
    }
    mon->init_cs = cs;
    return cs;
}

/* Returns a change set with the changes after transaction 'txn_id', or null
 * if the history no longer has it (OVS:
 * ovsdb_monitor_get_changes_after()). */
static struct om_cs *
om_monitor_get_changes_after(struct om_monitor *mon, const char *txn_id)
{
    struct om_cs *cs, *next;

    OM_LIST_FOR_EACH_SAFE (cs, next, struct om_cs, node, &mon->change_sets) {
        if (cs != mon->init_cs && !strcmp(cs->prev_txn, txn_id)) {
            cs->n_refs++;
            return cs;
        }
    }

    struct om_history_txn *h, *next_h;
    cs = NULL;
    OM_LIST_FOR_EACH_SAFE (h, next_h, struct om_history_txn, node,
                           &mon->db->history) {
        if (!cs) {
            if (!strcmp(h->id, txn_id)) {
                cs = om_cs_create(mon, false, txn_id);
            }
            continue;
        }
        for (size_t i = 0; i < h->n; i++) {
            const struct om_change *c = h->changes[i];
            const struct om_mtable *mt = om_monitor_find_mtable(mon,
                                                                c->table);
            if (mt && om_change_has_effect(mt, c)) {
                om_cs_table_update(mt, cs->tables[mt->index], c->uuid,
                                   c->old, c->new);
            }
        }
    }
    return cs;
}

/* ---------------------------------------------------------------------
 * Composing updates.
 * --------------------------------------------------------------------- */

/* Row update types, like OVS's OJMS_*; OM_SEL_* bits. */
enum { OM_NONE = 0 };

static bool
om_table_cond_match(const struct om_table_cond *tc, struct json *const *row)
{
    for (size_t i = 0; i < tc->n; i++) {
        if (tc->columns[i]
            ? json_equal(row[tc->columns[i]->index], tc->values[i])
            : tc->literals[i]) {
            return true;
        }
    }
    return false;
}

/* Type of the update of 'row' for a client with condition 'tc' (nullable):
 * a condition turns a modification into an insertion or a deletion when the
 * row starts or stops matching it. */
static unsigned int
om_row_update_type(const struct om_table_cond *tc, const struct om_cs_row *row,
                   bool initial)
{
    unsigned int type = (initial ? OM_SEL_INITIAL
                         : !row->old ? OM_SEL_INSERT
                         : !row->new ? OM_SEL_DELETE : OM_SEL_MODIFY);
    if (!tc) {
        return type;
    }

    bool old_cond = row->old && om_table_cond_match(tc, row->old);
    bool new_cond = row->new && om_table_cond_match(tc, row->new);
    switch (type) {
    case OM_SEL_INITIAL:
    case OM_SEL_INSERT:
        return new_cond ? type : OM_NONE;
    case OM_SEL_DELETE:
        return old_cond ? type : OM_NONE;
    case OM_SEL_MODIFY:
    default:
        return (!old_cond && !new_cond ? OM_NONE
                : !old_cond ? OM_SEL_INSERT
                : !new_cond ? OM_SEL_DELETE : OM_SEL_MODIFY);
    }
}

/* Fills 'changed' (one flag per monitored column) and returns whether any
 * monitored column changed. */
static bool
om_row_changed_columns(const struct om_mtable *mt,
                       const struct om_cs_row *row, bool *changed)
{
    bool any = false;

    for (size_t i = 0; i < mt->n_columns; i++) {
        size_t idx = mt->columns[i]->index;
        changed[i] = !json_equal(row->old[idx], row->new[idx]);
        any |= changed[i];
    }
    return any;
}

/* <row-update> of RFC 7047 for "update" (monitor), or null to skip. */
static struct json *
om_compose_row_update1(const struct om_mtable *mt,
                       const struct om_cs_row *row, bool initial,
                       bool *changed)
{
    unsigned int type = om_row_update_type(NULL, row, initial);

    if (!(mt->select & type)
        || (type == OM_SEL_MODIFY
            && !om_row_changed_columns(mt, row, changed))) {
        return NULL;
    }

    struct json *row_json = json_object_create();
    struct json *new_json = NULL, *old_json = NULL;
    /* "new" before "old": members in name order. */
    if (type != OM_SEL_DELETE) {
        new_json = json_object_create();
        json_object_put(row_json, "new", new_json);
    }
    if (type & (OM_SEL_DELETE | OM_SEL_MODIFY)) {
        old_json = json_object_create();
        json_object_put(row_json, "old", old_json);
    }
    for (size_t i = 0; i < mt->n_columns; i++) {
        const struct om_column *col = mt->columns[i];

        if (type == OM_SEL_DELETE
            || (type == OM_SEL_MODIFY && changed[i])) {
            json_object_put(old_json, col->name,
                            json_clone(row->old[col->index]));
        }
        if (new_json) {
            json_object_put(new_json, col->name,
                            json_clone(row->new[col->index]));
        }
    }
    return row_json;
}

/* The "modify" value of a column in update2: the new value of a scalar; for
 * sets the elements added or removed; for maps the pairs removed (old
 * value), added, or whose value changed (new value). */
static struct json *
om_datum_diff(const struct om_column *col, const struct json *old,
              const struct json *new)
{
    if (col->kind == OM_SCALAR) {
        return json_clone(new);
    }

    size_t on = om_datum_n(old, col->kind), nn = om_datum_n(new, col->kind);
    struct json **elems = om_xmalloc((on + nn + 1) * sizeof *elems);
    size_t oi = 0, ni = 0, n = 0;

    while (oi < on && ni < nn) {
        const struct json *o = om_datum_at(old, col->kind, oi);
        const struct json *e = om_datum_at(new, col->kind, ni);
        bool map = col->kind == OM_MAP;
        int cmp = om_atom_compare(map ? json_array_at(o, 0) : o,
                                  map ? json_array_at(e, 0) : e);
        if (cmp < 0) {
            elems[n++] = json_clone(o);
            oi++;
        } else if (cmp > 0) {
            elems[n++] = json_clone(e);
            ni++;
        } else {
            if (map && !json_equal(json_array_at(o, 1),
                                   json_array_at(e, 1))) {
                elems[n++] = json_clone(e);
            }
            oi++;
            ni++;
        }
    }
    for (; oi < on; oi++) {
        elems[n++] = json_clone(om_datum_at(old, col->kind, oi));
    }
    for (; ni < nn; ni++) {
        elems[n++] = json_clone(om_datum_at(new, col->kind, ni));
    }

    return om_datum_render(col->kind, elems, n);
}

/* <row-update2> of ovsdb-server(7) for "update2" and "update3", or null to
 * skip. */
static struct json *
om_compose_row_update2(const struct om_mtable *mt,
                       const struct om_table_cond *tc,
                       const struct om_cs_row *row, bool initial,
                       bool *changed)
{
    unsigned int type = om_row_update_type(tc, row, initial);

    if (!(mt->select & type)
        || (type == OM_SEL_MODIFY
            && !om_row_changed_columns(mt, row, changed))) {
        return NULL;
    }

    struct json *row_json = json_object_create();
    if (type == OM_SEL_DELETE) {
        json_object_put(row_json, "delete", json_null_create());
        return row_json;
    }

    struct json *diff = json_object_create();
    for (size_t i = 0; i < mt->n_columns; i++) {
        const struct om_column *col = mt->columns[i];
        const struct json *value = row->new[col->index];

        if (type == OM_SEL_MODIFY) {
            if (changed[i]) {
                json_object_put(diff, col->name,
                                om_datum_diff(col, row->old[col->index],
                                              value));
            }
        } else if (!om_value_is_default(col, value)) {
            json_object_put(diff, col->name, json_clone(value));
        }
    }
    json_object_put(row_json,
                    (type == OM_SEL_INITIAL ? "initial"
                     : type == OM_SEL_MODIFY ? "modify" : "insert"),
                    diff);
    return row_json;
}

static int
om_compare_cs_rows(const void *a_, const void *b_)
{
    const struct om_cs_row *const *a = a_;
    const struct om_cs_row *const *b = b_;
    return strcmp((*a)->uuid, (*b)->uuid);
}

/* Composes the <table-updates> (or <table-updates2>) for change set 'cs',
 * for a client with conditions 'conds' (nullable); null if there is
 * nothing to send (OVS: ovsdb_monitor_compose_update()). */
static struct json *
om_compose_update(const struct om_monitor *mon, const struct om_cs *cs,
                  enum om_version version, bool initial,
                  const struct om_table_cond *conds)
{
    struct json *json = NULL;

    for (size_t t = 0; t < mon->n_tables; t++) {
        const struct om_mtable *mt = mon->tables[t];
        const struct om_cs_table *cst = cs->tables[t];
        const struct om_table_cond *tc = conds && conds[t].mt ? &conds[t]
                                                              : NULL;
        if (!cst || !cst->rows.n) {
            continue;
        }

        /* Rows in uuid order, for sorted objects (see
         * om_monitor_add_table()). */
        struct om_cs_row **rows = om_xmalloc(cst->rows.n * sizeof *rows);
        struct om_cs_row *row, *next;
        size_t n = 0;
        OM_LIST_FOR_EACH_SAFE (row, next, struct om_cs_row, node,
                               &cst->row_list) {
            rows[n++] = row;
        }
        qsort(rows, n, sizeof *rows, om_compare_cs_rows);

        bool *changed = om_xmalloc((mt->n_columns + 1) * sizeof *changed);
        struct json *table_json = NULL;
        for (size_t i = 0; i < n; i++) {
            struct json *row_json
                = (version == OM_V1
                   ? om_compose_row_update1(mt, rows[i], initial, changed)
                   : om_compose_row_update2(mt, tc, rows[i], initial,
                                            changed));
            if (!row_json) {
                continue;
            }
            if (!json) {
                json = json_object_create();
            }
            if (!table_json) {
                table_json = json_object_create();
                json_object_put(json, mt->table->name, table_json);
            }
            json_object_put(table_json, rows[i]->uuid, row_json);
        }
        free(changed);
        free(rows);
    }
    return json;
}

/* Returns the update that brings client 'c' up to date (null if empty),
 * from the cache or composed, and sets '*ep' to its cache entry (null if
 * it is not cached).  The entry lives at least until om_client_advance()
 * (OVS: ovsdb_monitor_get_update()). */
static struct json *
om_monitor_compose_for(struct om_client *c, bool initial,
                       struct om_cache_entry **ep)
{
    struct om_monitor *mon = c->mon;
    struct om_counters *k = &mon->counters;
    bool cacheable = (mon->mode != OM_CACHE_NONE
                      && (!c->conditional
                          || mon->mode == OM_CACHE_SHARED_COND));
    struct om_cond_group *group = c->conditional ? c->group : NULL;
    struct json *json;

    struct om_cache_entry *e = NULL;
    if (cacheable) {
        e = om_cache_find(mon, c->version, c->cs, group);
        if (e) {
            k->cache_hits++;
        } else {
            k->cache_misses++;
        }
    }

    if (e) {
        json = e->json ? json_clone(e->json) : NULL;
    } else {
        json = om_compose_update(mon, c->cs, c->version, initial,
                                 group ? group->conds : NULL);
        k->compositions++;
        if (c->conditional) {
            k->cond_compositions++;
        }
        if (cacheable) {
            if (json && mon->mode >= OM_CACHE_SERIALIZED) {
                /* Commit 43e66fc27: serialize once, before the entry is
                 * shared, instead of once per client when sending. */
                struct json *serialized = json_serialized_object_create(json);
                json_destroy(json);
                json = serialized;
                k->serializations++;
                k->bytes_serialized += strlen(json_serialized_object(json));
            }
            e = om_cache_insert(mon, c->version, c->cs, group, json);
        }
    }
    *ep = e;
    return json;
}

/* Moves client 'c' to the monitor's new change set: it is up to date. */
static void
om_client_advance(struct om_client *c)
{
    om_monitor_untrack(c->mon, c->cs);
    c->cs = om_monitor_track_new(c->mon);
}

/* Returns the update that brings client 'c' up to date (null if empty) and
 * moves it to the monitor's new change set. */
static struct json *
om_monitor_get_update(struct om_client *c, bool initial)
{
    struct om_cache_entry *e;
    struct json *json = om_monitor_compose_for(c, initial, &e);

    om_client_advance(c);
    return json;
}

/* A pass of the server's main loop: every client's session writes what it
 * can, and those with nothing left to write get their pending update (OVS:
 * ovsdb_jsonrpc_session_run(), which flushes monitors only when the
 * session's backlog is empty). */
void
om_monitor_flush(struct om_monitor *mon)
{
    struct om_client *c, *next;

    OM_LIST_FOR_EACH_SAFE (c, next, struct om_client, node, &mon->clients) {
        om_client_run(c);
        if (!c->backlog) {
            om_client_flush(c);
        }
    }
}

void
om_monitor_destroy(struct om_monitor *mon)
{
    if (!mon) {
        return;
    }

    struct om_client *c, *next_c;
    OM_LIST_FOR_EACH_SAFE (c, next_c, struct om_client, node,
                           &mon->clients) {
        om_client_destroy(c);
    }
    om_cache_drop(mon, NULL);
    om_assert(!mon->notifications.n && !mon->cond_groups.n && !mon->n_msgs);
    om_hmap_destroy(&mon->notifications);
    om_hmap_destroy(&mon->cond_groups);

    struct om_cs *cs, *next_cs;
    OM_LIST_FOR_EACH_SAFE (cs, next_cs, struct om_cs, node,
                           &mon->change_sets) {
        om_cs_destroy(mon, cs);
    }
    for (size_t i = 0; i < mon->n_tables; i++) {
        free(mon->tables[i]->columns);
        free(mon->tables[i]);
    }
    free(mon->tables);
    om_db_unobserve(mon->db, mon->observer);
    free(mon);
}

/* ---------------------------------------------------------------------
 * Conditions.
 * --------------------------------------------------------------------- */

struct om_condition *
om_condition_create(void)
{
    return om_xzalloc(sizeof(struct om_condition));
}

void
om_condition_destroy(struct om_condition *cond)
{
    if (cond) {
        for (size_t i = 0; i < cond->n; i++) {
            free(cond->clauses[i].table);
            free(cond->clauses[i].column);
            json_destroy(cond->clauses[i].value);
        }
        free(cond->clauses);
        free(cond);
    }
}

static struct om_clause *
om_condition_add__(struct om_condition *cond, const char *table)
{
    cond->clauses = om_xrealloc(cond->clauses,
                                (cond->n + 1) * sizeof *cond->clauses);
    struct om_clause *clause = &cond->clauses[cond->n++];
    memset(clause, 0, sizeof *clause);
    clause->table = om_xstrdup(table);
    return clause;
}

bool
om_condition_add_equal(struct om_condition *cond, const char *table,
                       const char *column, const struct json *value)
{
    if (!table || !column || !value) {
        return false;
    }
    struct om_clause *clause = om_condition_add__(cond, table);
    clause->column = om_xstrdup(column);
    clause->value = json_clone(value);
    return true;
}

void
om_condition_add_bool(struct om_condition *cond, const char *table,
                      bool value)
{
    om_condition_add__(cond, table)->literal = value;
}

static void
om_table_conds_destroy(struct om_table_cond *conds, size_t n)
{
    if (conds) {
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < conds[i].n; j++) {
                json_destroy(conds[i].values[j]);
            }
            free(conds[i].columns);
            free(conds[i].values);
            free(conds[i].literals);
        }
        free(conds);
    }
}

/* Binds 'cond' to the tables of 'mon'.  Sets '*conditional' unless every
 * clause is literally true. */
static struct om_table_cond *
om_condition_bind(const struct om_monitor *mon,
                  const struct om_condition *cond, bool *conditional,
                  char **errorp)
{
    struct om_table_cond *conds = om_xzalloc((mon->n_tables + 1)
                                             * sizeof *conds);
    *conditional = false;
    for (size_t i = 0; i < cond->n; i++) {
        const struct om_clause *clause = &cond->clauses[i];
        const struct om_mtable *mt = NULL;

        for (size_t t = 0; t < mon->n_tables; t++) {
            if (!strcmp(mon->tables[t]->table->name, clause->table)) {
                mt = mon->tables[t];
            }
        }
        if (!mt) {
            *errorp = om_error("condition: table %s is not monitored",
                               clause->table);
            goto error;
        }

        const struct om_column *col = NULL;
        struct json *value = NULL;
        if (clause->column) {
            col = om_table_find_column(mt->table, clause->column);
            if (!col) {
                *errorp = om_error("condition: table %s has no column %s",
                                   clause->table, clause->column);
                goto error;
            }
            value = om_value_canonical__(col, clause->value, errorp);
            if (!value) {
                goto error;
            }
        }

        struct om_table_cond *tc = &conds[mt->index];
        tc->mt = mt;
        tc->columns = om_xrealloc(tc->columns,
                                  (tc->n + 1) * sizeof *tc->columns);
        tc->values = om_xrealloc(tc->values, (tc->n + 1) * sizeof *tc->values);
        tc->literals = om_xrealloc(tc->literals,
                                   (tc->n + 1) * sizeof *tc->literals);
        tc->columns[tc->n] = col;
        tc->values[tc->n] = value;
        tc->literals[tc->n] = clause->literal;
        tc->n++;
        if (col || !clause->literal) {
            *conditional = true;
        }
    }
    return conds;

error:
    om_table_conds_destroy(conds, mon->n_tables);
    return NULL;
}

/* ---------------------------------------------------------------------
 * Clients.
 * --------------------------------------------------------------------- */

/* The session.  Writes what 'c''s socket takes from its output queue
 * (OVS: jsonrpc_run()). */
void
om_client_run(struct om_client *c)
{
    while (c->connected && !om_list_is_empty(&c->output)) {
        struct om_output *o = OM_CONTAINER_OF(c->output.next,
                                              struct om_output, node);
        size_t n = o->msg->size - o->ofs;

        if (c->window != SIZE_MAX) {
            size_t room = c->window - c->unread;
            if (!room) {
                break;          /* EAGAIN: the peer is not reading. */
            }
            n = n < room ? n : room;
            c->unread += n;
        }
        if (c->keep) {
            ds_put_buffer(&c->out, o->msg->data + o->ofs, n);
        }
        c->bytes += n;
        c->backlog -= n;
        o->ofs += n;
        if (o->ofs == o->msg->size) {
            om_list_remove(&o->node);
            c->n_output--;
            om_msg_unref(o->msg);
            free(o);
        }
    }
}

/* Drops 'c''s connection (OVS: jsonrpc_error()): its queued messages go,
 * each releasing only this client's reference. */
void
om_client_disconnect(struct om_client *c)
{
    struct om_output *o, *next;

    OM_LIST_FOR_EACH_SAFE (o, next, struct om_output, node, &c->output) {
        om_list_remove(&o->node);
        om_msg_unref(o->msg);
        free(o);
    }
    c->n_output = 0;
    c->backlog = 0;
    c->connected = false;
}

/* Queues 'm' on 'c', with a reference of its own (the caller keeps its
 * own), and writes what the socket takes (OVS: jsonrpc_send(), and
 * jsonrpc_send_shared() of the fan-out patch).  The bytes count in the
 * backlog until they are written. */
static void
om_client_queue(struct om_client *c, struct om_msg *m)
{
    struct om_counters *k = &c->mon->counters;

    if (!c->connected) {
        return;
    }
    struct om_output *o = om_xmalloc(sizeof *o);
    o->msg = om_msg_ref(m);
    o->ofs = 0;
    om_list_push_back(&c->output, &o->node);
    c->n_output++;
    c->backlog += m->size;
    c->messages++;
    k->messages++;
    k->bytes_sent += m->size;

    if (c->backlog_limit && c->backlog > c->backlog_limit) {
        om_client_disconnect(c);
        return;
    }
    om_client_run(c);
}

/* Sends 'msg' (which it destroys) to 'c' alone: a buffer of its own.
 * 'body' is the update inside 'msg'. */
static void
om_client_send(struct om_client *c, struct json *msg, const struct json *body)
{
    if (!c->connected) {
        json_destroy(msg);
        return;
    }
    struct om_msg *m = om_msg_create(c->mon, msg, body);
    om_client_queue(c, m);
    om_msg_unref(m);
}

static struct json *
om_last_txn_json(const struct om_client *c)
{
    return json_string_create(c->mon->db->last_txn);
}

struct om_client *
om_client_create(struct om_monitor *mon, enum om_version version,
                 const char *monitor_id, const struct om_condition *cond,
                 const char *last_txn_id, char **errorp)
{
    char *error = NULL;
    struct om_table_cond *conds = NULL;
    bool conditional = false;

    if ((int) version < OM_V1 || version >= OM_N_VERSIONS) {
        error = om_error("bad monitor version %d", (int) version);
    } else if (!mon->n_tables) {
        error = om_error("monitor has no tables");
    } else if (cond && version == OM_V1) {
        error = om_error("monitor (version 1) takes no condition");
    } else if (last_txn_id && version != OM_V3) {
        error = om_error("only monitor_cond_since takes a last-txn-id");
    } else if (last_txn_id && strlen(last_txn_id) != OM_UUID_LEN) {
        error = om_error("last-txn-id must be UUID format");
    } else if (cond) {
        conds = om_condition_bind(mon, cond, &conditional, &error);
    }
    if (error) {
        om_set_error(errorp, error);
        return NULL;
    }

    struct om_client *c = om_xzalloc(sizeof *c);
    c->mon = mon;
    c->version = version;
    c->monitor_id = json_string_create(monitor_id ? monitor_id : "");
    c->monitor_id_text = json_to_string(c->monitor_id, 0);
    if (conditional) {
        c->group = om_cond_group_get(mon, conds);
    } else {
        om_table_conds_destroy(conds, mon->n_tables);
    }
    c->conditional = conditional;
    om_list_init(&c->output);
    c->window = SIZE_MAX;
    c->connected = true;
    c->keep = true;
    ds_init(&c->out);
    om_list_push_back(&mon->clients, &c->node);

    /* The reply to the monitor request, with the initial contents or, for a
     * monitor_cond_since that found its transaction, the changes since. */
    bool found = false;
    if (last_txn_id && strcmp(last_txn_id,
                              "00000000-0000-0000-0000-000000000000")) {
        c->cs = om_monitor_get_changes_after(mon, last_txn_id);
        found = c->cs != NULL;
    }
    if (!c->cs) {
        c->cs = om_monitor_get_initial(mon);
    }

    struct json *update = NULL;
    if (c->cs != mon->new_cs) {
        update = om_monitor_get_update(c, !found);
    }
    if (!update) {
        update = json_object_create();
    }
    const struct json *body = update;
    struct json *result = update;
    if (version == OM_V3) {
        result = json_array_create_3(json_boolean_create(found),
                                     om_last_txn_json(c), update);
    }

    struct json *msg = json_object_create();
    json_object_put(msg, "id",
                    json_integer_create((long long) mon->next_request_id++));
    json_object_put(msg, "result", result);
    json_object_put(msg, "error", json_null_create());
    om_client_send(c, msg, body);
    return c;
}

void
om_client_destroy(struct om_client *c)
{
    if (!c) {
        return;
    }
    om_client_disconnect(c);
    if (c->cs) {
        om_monitor_untrack(c->mon, c->cs);
    }
    om_list_remove(&c->node);
    om_cond_group_unref(c->mon, c->group);
    json_destroy(c->monitor_id);
    free(c->monitor_id_text);
    ds_destroy(&c->out);
    free(c);
}

bool
om_client_needs_flush(const struct om_client *c)
{
    return c->cs != c->mon->new_cs;
}

bool
om_client_is_conditional(const struct om_client *c)
{
    return c->conditional;
}

bool
om_client_same_condition(const struct om_client *a,
                         const struct om_client *b)
{
    return a->mon == b->mon && a->group == b->group;
}

/* The notification of 'update' for 'c' (takes 'update'). */
static struct json *
om_client_notify(const struct om_client *c, struct json *update)
{
    struct json *params = (c->version == OM_V3
                           ? json_array_create_3(json_clone(c->monitor_id),
                                                 om_last_txn_json(c), update)
                           : json_array_create_2(json_clone(c->monitor_id),
                                                 update));
    struct json *msg = json_object_create();
    json_object_put(msg, "id", json_null_create());
    json_object_put(msg, "method",
                    json_string_create(om_update_method(c->version)));
    json_object_put(msg, "params", params);
    return msg;
}

/* Returns the notification of the update of cache entry 'e' for 'c', made
 * by another client before if its bytes would be the same, serialized now
 * otherwise.  The monitor holds the returned reference until 'e' goes.
 * 'update' is 'e''s update, which it takes (OVS, with the fan-out patch:
 * ovsdb_jsonrpc_notification_get()). */
static struct om_msg *
om_notification_get(struct om_client *c, struct om_cache_entry *e,
                    struct json *update)
{
    struct om_monitor *mon = c->mon;
    const char *last_txn = (c->version == OM_V3 && mon->key_txn_id
                            ? mon->db->last_txn : "");
    uint32_t hash = om_hash_bytes(&e, sizeof e, 0);

    hash = om_hash_bytes(&c->version, sizeof c->version, hash);
    hash = om_hash_string(c->monitor_id_text, hash);
    hash = om_hash_string(last_txn, hash);
    if (mon->collide) {
        hash = 0;
    }
    for (struct om_hnode *node = om_hmap_first_with_hash(&mon->notifications,
                                                         hash);
         node; node = node->next) {
        struct om_notification *n = OM_CONTAINER_OF(node,
                                                    struct om_notification,
                                                    hnode);
        if (node->hash == hash && n->entry == e && n->version == c->version
            && !strcmp(n->last_txn, last_txn)
            && !strcmp(n->monitor_id, c->monitor_id_text)) {
            mon->counters.notifications_shared++;
            json_destroy(update);
            return n->msg;
        }
    }

    struct om_notification *n = om_xmalloc(sizeof *n);
    n->entry = e;
    n->version = c->version;
    n->monitor_id = om_xstrdup(c->monitor_id_text);
    snprintf(n->last_txn, sizeof n->last_txn, "%s", last_txn);
    n->msg = om_msg_create(mon, om_client_notify(c, update), update);
    om_hmap_insert(&mon->notifications, &n->hnode, hash);
    om_list_push_back(&e->notifications, &n->node);
    mon->counters.notifications_serialized++;
    return n->msg;
}

/* Sends client 'c' its pending update, if any (OVS:
 * ovsdb_jsonrpc_monitor_flush_all()).  Returns true if it sent one. */
bool
om_client_flush(struct om_client *c)
{
    if (!c->connected || !om_client_needs_flush(c)) {
        return false;
    }

    struct om_cache_entry *e;
    struct json *update = om_monitor_compose_for(c, false, &e);
    if (update && e && c->mon->mode >= OM_CACHE_SHARED) {
        /* A serialized update from the cache, the same for every client of
         * this version and condition group: so is the notification, up to
         * the monitor id and the last transaction id. */
        om_client_queue(c, om_notification_get(c, e, update));
    } else if (update) {
        om_client_send(c, om_client_notify(c, update), update);
    }
    om_client_advance(c);
    return update != NULL;
}

static int
om_compare_rows(const void *a_, const void *b_)
{
    const struct om_row *const *a = a_;
    const struct om_row *const *b = b_;
    return strcmp((*a)->uuid, (*b)->uuid);
}

/* The rows of 'mt' that match 'new_tc' but not 'old_tc', as insertions,
 * and those that match 'old_tc' but not 'new_tc', as deletions (OVS:
 * ovsdb_monitor_compose_cond_change_update()).  A null condition matches
 * every row.  Adds them to '*jsonp'. */
static void
om_compose_cond_change_table(const struct om_mtable *mt,
                             const struct om_table_cond *old_tc,
                             const struct om_table_cond *new_tc,
                             struct json **jsonp)
{
    size_t n_rows = mt->table->rows.n, n = 0;
    struct om_row **rows = om_xmalloc((n_rows + 1) * sizeof *rows);
    struct om_row *row, *next;

    OM_LIST_FOR_EACH_SAFE (row, next, struct om_row, node,
                           &mt->table->row_list) {
        rows[n++] = row;
    }
    qsort(rows, n, sizeof *rows, om_compare_rows);

    struct json *table_json = NULL;
    for (size_t i = 0; i < n; i++) {
        bool old_match = !old_tc || om_table_cond_match(old_tc,
                                                        rows[i]->values);
        bool new_match = !new_tc || om_table_cond_match(new_tc,
                                                        rows[i]->values);
        unsigned int type = (old_match == new_match ? 0
                             : new_match ? OM_SEL_INSERT : OM_SEL_DELETE);
        if (!(mt->select & type)) {
            continue;
        }

        struct json *row_json = json_object_create();
        if (type == OM_SEL_DELETE) {
            json_object_put(row_json, "delete", json_null_create());
        } else {
            struct json *diff = json_object_create();
            for (size_t j = 0; j < mt->n_columns; j++) {
                const struct om_column *col = mt->columns[j];
                const struct json *value = rows[i]->values[col->index];
                if (!om_value_is_default(col, value)) {
                    json_object_put(diff, col->name, json_clone(value));
                }
            }
            json_object_put(row_json, "insert", diff);
        }
        if (!*jsonp) {
            *jsonp = json_object_create();
        }
        if (!table_json) {
            table_json = json_object_create();
            json_object_put(*jsonp, mt->table->name, table_json);
        }
        json_object_put(table_json, rows[i]->uuid, row_json);
    }
    free(rows);
}

bool
om_client_cond_change(struct om_client *c, const struct om_condition *cond,
                      char **errorp)
{
    struct om_monitor *mon = c->mon;
    struct om_table_cond *conds = NULL;
    bool conditional = false;
    char *error = NULL;

    if (c->version == OM_V1) {
        error = om_error("monitor (version 1) takes no condition");
    } else if (cond) {
        conds = om_condition_bind(mon, cond, &conditional, &error);
    }
    if (error) {
        om_set_error(errorp, error);
        return false;
    }

    /* What is pending goes out under the old condition. */
    om_client_flush(c);

    struct json *update = NULL;
    for (size_t t = 0; t < mon->n_tables; t++) {
        const struct om_table_cond *old_tc
            = (c->conditional && c->group->conds[t].mt
               ? &c->group->conds[t] : NULL);
        const struct om_table_cond *new_tc
            = conditional && conds[t].mt ? &conds[t] : NULL;
        if (old_tc || new_tc) {
            om_compose_cond_change_table(mon->tables[t], old_tc, new_tc,
                                         &update);
        }
    }
    mon->counters.compositions++;
    mon->counters.cond_compositions++;

    /* The client moves to the group of its new condition. */
    om_cond_group_unref(mon, c->group);
    c->group = NULL;
    if (conditional) {
        c->group = om_cond_group_get(mon, conds);
    } else {
        om_table_conds_destroy(conds, mon->n_tables);
    }
    c->conditional = conditional;

    if (update) {
        om_client_send(c, om_client_notify(c, update), update);
    }

    struct json *reply = json_object_create();
    json_object_put(reply, "id",
                    json_integer_create((long long) mon->next_request_id++));
    json_object_put(reply, "result", json_object_create());
    json_object_put(reply, "error", json_null_create());
    om_client_send(c, reply, NULL);
    return true;
}

const char *
om_client_output(const struct om_client *c, size_t *lenp)
{
    if (lenp) {
        *lenp = c->out.length;
    }
    return c->out.string ? c->out.string : "";
}

void
om_client_clear_output(struct om_client *c)
{
    ds_clear(&c->out);
}

void
om_client_set_keep_output(struct om_client *c, bool keep)
{
    c->keep = keep;
    if (!keep) {
        ds_clear(&c->out);
    }
}

uint64_t
om_client_bytes(const struct om_client *c)
{
    return c->bytes;
}

uint64_t
om_client_messages(const struct om_client *c)
{
    return c->messages;
}

void
om_client_set_window(struct om_client *c, size_t bytes)
{
    c->window = bytes;
    if (c->window != SIZE_MAX && c->unread > c->window) {
        c->unread = c->window;
    }
}

void
om_client_receive(struct om_client *c)
{
    c->unread = 0;
}

size_t
om_client_backlog(const struct om_client *c)
{
    return c->backlog;
}

size_t
om_client_n_queued(const struct om_client *c)
{
    return c->n_output;
}

void
om_client_set_backlog_limit(struct om_client *c, size_t bytes)
{
    c->backlog_limit = bytes;
}

bool
om_client_is_connected(const struct om_client *c)
{
    return c->connected;
}
