/* lib-json: a string-keyed map, the subset of OVS's "struct shash" that JSON
 * objects need.  Our own implementation: members live in one array in
 * insertion order, with a hash index built only for large objects.
 *
 * Differences from OVS's shash, all documented in lib-json/README.md:
 *   - A node pointer stays valid only until the map is next modified
 *     (members are stored in a growable array, not in separate nodes).
 *   - SHASH_FOR_EACH visits members in insertion order.  There is no
 *     SHASH_FOR_EACH_SAFE: delete with shash_find_and_delete() instead. */

#ifndef OVSJSON_SHASH_H
#define OVSJSON_SHASH_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One member of a map. */
struct shash_node {
    char *name;                 /* Key, null-terminated. */
    void *data;                 /* Value (a "struct json *" in objects). */
};

/* A map from strings to pointers. */
struct shash {
    struct shash_node *nodes;   /* Members, in insertion order. */
    size_t n;                   /* Number of members. */
    size_t allocated;           /* Capacity of 'nodes'. */
    uint32_t *index;            /* Hash index: node number + 1, 0 if free;
                                 * null until the map gets large. */
    uint32_t index_mask;        /* Number of 'index' slots minus 1. */
    bool sorted;                /* Names strictly increase along 'nodes'. */
    bool nodes_owned;           /* 'nodes' is a heap block of its own. */
    const char *names_lo;       /* Names in [names_lo, names_hi) share the */
    const char *names_hi;       /* block of their parent and aren't freed. */
};

#define SHASH_INITIALIZER { NULL, 0, 0, NULL, 0, true, true, NULL, NULL }

/* Iterates NODE (a "struct shash_node *") over SHASH in insertion order.
 * The map must not be modified during the iteration. */
#define SHASH_FOR_EACH(NODE, SHASH)                                 \
    for ((NODE) = (SHASH)->nodes;                                   \
         (NODE) != NULL && (NODE) < (SHASH)->nodes + (SHASH)->n;    \
         (NODE)++)

void shash_init(struct shash *);
void shash_destroy(struct shash *);
void shash_clear(struct shash *);
size_t shash_count(const struct shash *);
bool shash_is_empty(const struct shash *);

struct shash_node *shash_find(const struct shash *, const char *name);
void *shash_find_data(const struct shash *, const char *name);
struct shash_node *shash_add(struct shash *, const char *name,
                             const void *data);
struct shash_node *shash_add_nocopy(struct shash *, char *name,
                                    const void *data);
void *shash_replace(struct shash *, const char *name, const void *data);
void *shash_replace_nocopy(struct shash *, char *name, const void *data);
void *shash_find_and_delete(struct shash *, const char *name);
void *shash_delete(struct shash *, struct shash_node *);
const struct shash_node **shash_sort(const struct shash *);

/* Internal to lib-json. */
size_t shash_sorted_nodes__(const struct shash *,
                            const struct shash_node **buf, size_t buf_n,
                            const struct shash_node ***nodesp);

#ifdef __cplusplus
}
#endif

#endif /* openvswitch/shash.h */
