/* lib-json: a string-keyed map, the subset of OVS's "struct shash" that JSON
 * objects need.  Our own implementation: members live in one array in
 * insertion order, with a hash index built only for large objects.
 *
 * Differences from OVS's shash, all documented in lib-json/README.md:
 *   - A node pointer stays valid only until the map is next modified
 *     (members are stored in a growable array, not in separate nodes).
 *   - SHASH_FOR_EACH and SHASH_FOR_EACH_SAFE visit members in insertion
 *     order. */

#ifndef OVSJSON_SHASH_H
#define OVSJSON_SHASH_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "names.h"

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

#define SHASH_INITIALIZER(SHASH) \
    { NULL, 0, 0, NULL, 0, true, true, NULL, NULL }

/* Iterates NODE (a "struct shash_node *") over SHASH in insertion order.
 * The map must not be modified during the iteration. */
#define SHASH_FOR_EACH(NODE, SHASH)                                 \
    for ((NODE) = (SHASH)->nodes;                                   \
         (NODE) != NULL && (NODE) < (SHASH)->nodes + (SHASH)->n;    \
         (NODE)++)

/* Like SHASH_FOR_EACH, but the body may delete NODE with shash_delete()
 * (and only NODE).  OVS's two forms: SHASH_FOR_EACH_SAFE (NODE, SHASH) and
 * SHASH_FOR_EACH_SAFE (NODE, NEXT, SHASH); in the second, NEXT is the node
 * that comes after NODE, or NULL.  Deleting shifts the later members down
 * one slot, so the iteration stays at the same position when the count
 * dropped; NODE and NEXT are recomputed from the map each time. */
#define SHASH_FOR_EACH_SAFE_SHORT(NODE, SHASH)                              \
    for (size_t shash_i__ = 0, shash_n__ = 0;                               \
         (shash_n__ = (SHASH)->n, shash_i__ < shash_n__)                    \
         && ((NODE) = &(SHASH)->nodes[shash_i__], 1);                       \
         shash_i__ += (SHASH)->n >= shash_n__)
#define SHASH_FOR_EACH_SAFE_LONG(NODE, NEXT, SHASH)                         \
    for (size_t shash_i__ = 0, shash_n__ = 0;                               \
         (shash_n__ = (SHASH)->n, shash_i__ < shash_n__)                    \
         && ((NODE) = &(SHASH)->nodes[shash_i__],                           \
             (NEXT) = (shash_i__ + 1 < shash_n__                            \
                       ? &(SHASH)->nodes[shash_i__ + 1] : NULL), 1);        \
         shash_i__ += (SHASH)->n >= shash_n__)
#define SHASH_SAFE_PICK__(_1, _2, _3, NAME, ...) NAME
#define SHASH_FOR_EACH_SAFE(...)                                            \
    SHASH_SAFE_PICK__(__VA_ARGS__, SHASH_FOR_EACH_SAFE_LONG,                \
                      SHASH_FOR_EACH_SAFE_SHORT, unused)(__VA_ARGS__)

OVSJSON_API void shash_init(struct shash *);
OVSJSON_API void shash_destroy(struct shash *);
OVSJSON_API void shash_clear(struct shash *);
OVSJSON_API size_t shash_count(const struct shash *);
OVSJSON_API bool shash_is_empty(const struct shash *);

OVSJSON_API struct shash_node *shash_find(const struct shash *,
                                          const char *name);
OVSJSON_API void *shash_find_data(const struct shash *, const char *name);
OVSJSON_API struct shash_node *shash_add(struct shash *, const char *name,
                                         const void *data);
OVSJSON_API struct shash_node *shash_add_nocopy(struct shash *, char *name,
                                                const void *data);
OVSJSON_API bool shash_add_once(struct shash *, const char *name,
                                const void *data);
OVSJSON_API void shash_add_assert(struct shash *, const char *name,
                                  const void *data);
OVSJSON_API void *shash_replace(struct shash *, const char *name,
                                const void *data);
OVSJSON_API void *shash_replace_nocopy(struct shash *, char *name,
                                       const void *data);
OVSJSON_API void shash_delete(struct shash *, struct shash_node *);
OVSJSON_API void *shash_find_and_delete(struct shash *, const char *name);
OVSJSON_API void *shash_find_and_delete_assert(struct shash *,
                                               const char *name);
OVSJSON_API const struct shash_node **shash_sort(const struct shash *);

#ifdef __cplusplus
}
#endif

#endif /* ovsjson/shash.h */
