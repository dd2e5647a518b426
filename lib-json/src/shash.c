/* lib-json: string-keyed map for JSON objects.  Our own implementation.
 *
 * Members are kept in one array in insertion order.  Small maps are searched
 * linearly; once a map has more than SHASH_LINEAR_MAX members a lookup
 * builds an open-addressing index of node numbers.  'sorted' records that
 * names strictly increase along the array, which makes both duplicate checks
 * on append and sorted serialization free for already-sorted input (OVSDB
 * files and OVS output are sorted). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/shash.h"
#include "shash-private.h"
#include "util.h"

#define SHASH_LINEAR_MAX 16

void
shash_init(struct shash *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->sorted = true;
    sh->nodes_owned = true;
}

static bool
name_is_shared(const struct shash *sh, const char *name)
{
    uintptr_t p = (uintptr_t) name;
    return p >= (uintptr_t) sh->names_lo && p < (uintptr_t) sh->names_hi;
}

/* Frees the names and the storage of 'sh', but not the data. */
void
shash_destroy(struct shash *sh)
{
    size_t i;

    if (sh->names_lo) {
        for (i = 0; i < sh->n; i++) {
            if (!name_is_shared(sh, sh->nodes[i].name)) {
                free(sh->nodes[i].name);
            }
        }
    } else {
        for (i = 0; i < sh->n; i++) {
            free(sh->nodes[i].name);
        }
    }
    if (sh->nodes_owned) {
        free(sh->nodes);
    }
    free(sh->index);
    shash_init(sh);
}

void
shash_clear(struct shash *sh)
{
    shash_destroy(sh);
}

size_t
shash_count(const struct shash *sh)
{
    return sh->n;
}

bool
shash_is_empty(const struct shash *sh)
{
    return !sh->n;
}

static inline uint32_t
name_hash(const char *name, size_t len)
{
    return ojs_hash_bytes(name, len, 0);
}

static void
index_insert(struct shash *sh, size_t node_idx, uint32_t hash)
{
    uint32_t i = hash & sh->index_mask;
    while (sh->index[i]) {
        i = (i + 1) & sh->index_mask;
    }
    sh->index[i] = (uint32_t) node_idx + 1;
}

/* (Re)builds the index for at least 'n_wanted' members. */
static void
index_build(struct shash *sh, size_t n_wanted)
{
    size_t n_slots = 64;
    size_t i;

    while (n_slots < 2 * n_wanted) {
        n_slots *= 2;
    }
    free(sh->index);
    sh->index = ojs_xzalloc(n_slots * sizeof *sh->index);
    sh->index_mask = (uint32_t) (n_slots - 1);
    for (i = 0; i < sh->n; i++) {
        const char *name = sh->nodes[i].name;
        index_insert(sh, i, name_hash(name, strlen(name)));
    }
}

static void
index_drop(struct shash *sh)
{
    free(sh->index);
    sh->index = NULL;
    sh->index_mask = 0;
}

/* Returns the node number of 'name' (of length 'len') in 'sh', or SIZE_MAX.
 * Never modifies 'sh', so concurrent lookups are safe: a map that is not
 * sorted and has more than SHASH_LINEAR_MAX members always has its index,
 * a sorted one is binary-searched. */
size_t
ojs_shash_find_idx(const struct shash *sh, const char *name, size_t len)
{
    size_t i;

    if (sh->index) {
        for (i = name_hash(name, len) & sh->index_mask; sh->index[i];
             i = (i + 1) & sh->index_mask) {
            size_t k = sh->index[i] - 1;
            if (!strcmp(sh->nodes[k].name, name)) {
                return k;
            }
        }
        return SIZE_MAX;
    } else if (sh->sorted && sh->n > SHASH_LINEAR_MAX) {
        size_t lo = 0, hi = sh->n;

        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int cmp = strcmp(sh->nodes[mid].name, name);

            if (!cmp) {
                return mid;
            } else if (cmp < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return SIZE_MAX;
    }
    for (i = 0; i < sh->n; i++) {
        const char *s = sh->nodes[i].name;
        if (s[0] == name[0] && !strcmp(s, name)) {
            return i;
        }
    }
    return SIZE_MAX;
}

struct shash_node *
shash_find(const struct shash *sh, const char *name)
{
    size_t i = ojs_shash_find_idx(sh, name, strlen(name));
    return i == SIZE_MAX ? NULL : &sh->nodes[i];
}

void *
shash_find_data(const struct shash *sh, const char *name)
{
    struct shash_node *node = shash_find(sh, name);
    return node ? node->data : NULL;
}

/* Appends a member without checking for duplicates; takes 'name'. */
struct shash_node *
ojs_shash_append(struct shash *sh, char *name, const void *data)
{
    struct shash_node *node;

    if (sh->n >= sh->allocated) {
        size_t n_alloc = sh->allocated < 4 ? 4 : sh->allocated * 2;
        if (sh->nodes_owned) {
            sh->nodes = ojs_xrealloc(sh->nodes, n_alloc * sizeof *sh->nodes);
        } else {
            struct shash_node *nodes = ojs_xmalloc(n_alloc * sizeof *nodes);
            memcpy(nodes, sh->nodes, sh->n * sizeof *nodes);
            sh->nodes = nodes;
            sh->nodes_owned = true;
        }
        sh->allocated = n_alloc;
    }
    if (sh->sorted && sh->n && strcmp(sh->nodes[sh->n - 1].name, name) >= 0) {
        sh->sorted = false;
    }
    node = &sh->nodes[sh->n++];
    node->name = name;
    node->data = (void *) data;
    if (sh->index) {
        if (2 * sh->n > (size_t) sh->index_mask + 1) {
            index_build(sh, sh->n);
        } else {
            index_insert(sh, sh->n - 1, name_hash(name, strlen(name)));
        }
    } else if (!sh->sorted && sh->n > SHASH_LINEAR_MAX) {
        index_build(sh, sh->n);
    }
    return node;
}

struct shash_node *
shash_add_nocopy(struct shash *sh, char *name, const void *data)
{
    return ojs_shash_append(sh, name, data);
}

struct shash_node *
shash_add(struct shash *sh, const char *name, const void *data)
{
    return ojs_shash_append(sh, ojs_xstrdup(name), data);
}

/* Adds 'name' (a copy) with 'data' and returns true, unless 'name' is
 * already present: then returns false and changes nothing. */
bool
shash_add_once(struct shash *sh, const char *name, const void *data)
{
    if (shash_find(sh, name)) {
        return false;
    }
    shash_add(sh, name, data);
    return true;
}

/* Adds 'name' with 'data'; 'name' must not be present yet. */
void
shash_add_assert(struct shash *sh, const char *name, const void *data)
{
    bool added = shash_add_once(sh, name, data);
    ovs_assert(added);
}

/* Returns the node number of 'name' if it is present in 'sh', SIZE_MAX if
 * it is not.  A name that sorts after the last one of a sorted map cannot be
 * present, which makes appending sorted names cheap. */
static size_t
find_for_insert(struct shash *sh, const char *name)
{
    if (sh->sorted
        && (!sh->n || strcmp(sh->nodes[sh->n - 1].name, name) < 0)) {
        return SIZE_MAX;
    }
    return ojs_shash_find_idx(sh, name, strlen(name));
}

void *
shash_replace_nocopy(struct shash *sh, char *name, const void *data)
{
    size_t i = find_for_insert(sh, name);
    void *old;

    if (i == SIZE_MAX) {
        ojs_shash_append(sh, name, data);
        return NULL;
    }
    free(name);
    old = sh->nodes[i].data;
    sh->nodes[i].data = (void *) data;
    return old;
}

void *
shash_replace(struct shash *sh, const char *name, const void *data)
{
    size_t i = find_for_insert(sh, name);
    void *old;

    if (i == SIZE_MAX) {
        ojs_shash_append(sh, ojs_xstrdup(name), data);
        return NULL;
    }
    old = sh->nodes[i].data;
    sh->nodes[i].data = (void *) data;
    return old;
}

/* Removes 'node' from 'sh' and frees its name (not its data). */
void
shash_delete(struct shash *sh, struct shash_node *node)
{
    size_t i = node - sh->nodes;

    if (!name_is_shared(sh, node->name)) {
        free(node->name);
    }
    if (!sh->nodes_owned) {
        struct shash_node *nodes = ojs_xmalloc(sh->allocated * sizeof *nodes);
        memcpy(nodes, sh->nodes, sh->n * sizeof *nodes);
        sh->nodes = nodes;
        sh->nodes_owned = true;
    }
    memmove(&sh->nodes[i], &sh->nodes[i + 1],
            (sh->n - i - 1) * sizeof *sh->nodes);
    sh->n--;
    if (sh->index) {
        index_drop(sh);
        if (!sh->sorted && sh->n > SHASH_LINEAR_MAX) {
            index_build(sh, sh->n);
        }
    }
}

/* Removes member 'name' and returns its data, or returns NULL if there is
 * no such member. */
void *
shash_find_and_delete(struct shash *sh, const char *name)
{
    size_t i = ojs_shash_find_idx(sh, name, strlen(name));
    void *data;

    if (i == SIZE_MAX) {
        return NULL;
    }
    data = sh->nodes[i].data;
    shash_delete(sh, &sh->nodes[i]);
    return data;
}

/* Like shash_find_and_delete(), but 'name' must be present. */
void *
shash_find_and_delete_assert(struct shash *sh, const char *name)
{
    size_t i = ojs_shash_find_idx(sh, name, strlen(name));
    void *data;

    ovs_assert(i != SIZE_MAX);
    data = sh->nodes[i].data;
    shash_delete(sh, &sh->nodes[i]);
    return data;
}

static int
compare_nodes(const void *a_, const void *b_)
{
    const struct shash_node *const *a = a_;
    const struct shash_node *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

/* Stores pointers to the nodes of 'sh' in name order in '*nodesp', which is
 * 'buf' if it has room for them ('buf_n' pointers) or else a new heap array
 * that the caller frees.  Returns the number of nodes. */
size_t
ojs_shash_sorted_nodes(const struct shash *sh,
                     const struct shash_node **buf, size_t buf_n,
                     const struct shash_node ***nodesp)
{
    const struct shash_node **nodes;
    size_t i, n = sh->n;

    nodes = n <= buf_n ? buf : ojs_xmalloc(n * sizeof *nodes);
    for (i = 0; i < n; i++) {
        nodes[i] = &sh->nodes[i];
    }
    if (!sh->sorted) {
        if (n <= 12) {
            /* Insertion sort: objects are usually small. */
            size_t j;
            for (i = 1; i < n; i++) {
                const struct shash_node *x = nodes[i];
                for (j = i; j > 0 && strcmp(nodes[j - 1]->name, x->name) > 0;
                     j--) {
                    nodes[j] = nodes[j - 1];
                }
                nodes[j] = x;
            }
        } else {
            qsort(nodes, n, sizeof *nodes, compare_nodes);
        }
    }
    *nodesp = nodes;
    return n;
}

const struct shash_node **
shash_sort(const struct shash *sh)
{
    const struct shash_node **nodes;

    ojs_shash_sorted_nodes(sh, NULL, 0, &nodes);
    return nodes;
}

/* Restores the invariant "unsorted and large implies indexed" after the
 * caller filled 'sh->nodes' directly. */
void
ojs_shash_fixup(struct shash *sh)
{
    if (!sh->sorted && sh->n > SHASH_LINEAR_MAX && !sh->index) {
        index_build(sh, sh->n);
    }
}
