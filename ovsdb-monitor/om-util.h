/* ovsdb-monitor: small internal helpers (allocation, an intrusive list, a
 * hash map of nodes).  Our own code, shaped like OVS's util/list/hmap. */

#ifndef OM_UTIL_H
#define OM_UTIL_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OM_CONTAINER_OF(PTR, TYPE, MEMBER) \
    ((TYPE *) (void *) ((char *) (PTR) - offsetof(TYPE, MEMBER)))

/* The number of elements of array ARRAY. */
#define OM_ARRAY_SIZE(ARRAY) (sizeof (ARRAY) / sizeof *(ARRAY))

/* Aborts with a message: out of memory or a broken invariant. */
static inline void __attribute__((noreturn))
om_abort(const char *what)
{
    fprintf(stderr, "ovsdb-monitor: %s\n", what);
    abort();
}

#define om_assert(COND) \
    ((COND) ? (void) 0 : om_abort("assertion " #COND " failed"))

static inline void *
om_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        om_abort("out of memory");
    }
    return p;
}

static inline void *
om_xzalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        om_abort("out of memory");
    }
    return p;
}

static inline void *
om_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        om_abort("out of memory");
    }
    return p;
}

static inline char *
om_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(om_xmalloc(n), s, n);
}

/* splitmix64: the next of a deterministic sequence of pseudo-random
 * numbers from '*state'. */
static inline uint64_t
om_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Doubly linked circular list with a sentinel head. */
struct om_list {
    struct om_list *prev;       /* Previous node, or the last if head. */
    struct om_list *next;       /* Next node, or the first if head. */
};

static inline void
om_list_init(struct om_list *list)
{
    list->prev = list->next = list;
}

static inline void
om_list_push_back(struct om_list *list, struct om_list *node)
{
    node->prev = list->prev;
    node->next = list;
    list->prev->next = node;
    list->prev = node;
}

static inline void
om_list_remove(struct om_list *node)
{
    node->prev->next = node->next;
    node->next->prev = node->prev;
}

static inline bool
om_list_is_empty(const struct om_list *list)
{
    return list->next == list;
}

/* Iterates VAR (a "TYPE *") over LIST, where MEMBER is the list node in
 * TYPE.  NEXT (another "TYPE *") allows removing VAR during the loop. */
#define OM_LIST_FOR_EACH_SAFE(VAR, NEXT, TYPE, MEMBER, LIST)               \
    for ((VAR) = OM_CONTAINER_OF((LIST)->next, TYPE, MEMBER);              \
         &(VAR)->MEMBER != (LIST)                                          \
         && ((NEXT) = OM_CONTAINER_OF((VAR)->MEMBER.next, TYPE, MEMBER),   \
             true);                                                        \
         (VAR) = (NEXT))

/* Node of a hash map; embedded in the element. */
struct om_hnode {
    struct om_hnode *next;      /* Next node in the same bucket. */
    uint32_t hash;              /* Hash of the element's key. */
};

/* Hash map of "struct om_hnode"s with chained buckets. */
struct om_hmap {
    struct om_hnode **buckets;  /* 'mask + 1' bucket heads. */
    size_t mask;                /* Number of buckets minus 1. */
    size_t n;                   /* Number of nodes. */
};

static inline void
om_hmap_init(struct om_hmap *map)
{
    map->mask = 7;
    map->n = 0;
    map->buckets = om_xzalloc((map->mask + 1) * sizeof *map->buckets);
}

static inline void
om_hmap_destroy(struct om_hmap *map)
{
    free(map->buckets);
    map->buckets = NULL;
}

static inline void
om_hmap_expand__(struct om_hmap *map)
{
    size_t new_mask = map->mask * 2 + 1;
    struct om_hnode **buckets = om_xzalloc((new_mask + 1) * sizeof *buckets);

    for (size_t i = 0; i <= map->mask; i++) {
        struct om_hnode *node = map->buckets[i], *next;
        for (; node; node = next) {
            next = node->next;
            node->next = buckets[node->hash & new_mask];
            buckets[node->hash & new_mask] = node;
        }
    }
    free(map->buckets);
    map->buckets = buckets;
    map->mask = new_mask;
}

static inline void
om_hmap_insert(struct om_hmap *map, struct om_hnode *node, uint32_t hash)
{
    node->hash = hash;
    node->next = map->buckets[hash & map->mask];
    map->buckets[hash & map->mask] = node;
    if (++map->n > map->mask + 1) {
        om_hmap_expand__(map);
    }
}

static inline void
om_hmap_remove(struct om_hmap *map, struct om_hnode *node)
{
    struct om_hnode **p = &map->buckets[node->hash & map->mask];

    while (*p != node) {
        om_assert(*p);
        p = &(*p)->next;
    }
    *p = node->next;
    map->n--;
}

/* First node in the bucket of 'hash'; walk with ->next and compare the
 * hash and the key. */
static inline struct om_hnode *
om_hmap_first_with_hash(const struct om_hmap *map, uint32_t hash)
{
    return map->buckets[hash & map->mask];
}

/* FNV-1a over a string. */
static inline uint32_t
om_hash_string(const char *s, uint32_t basis)
{
    uint32_t h = 2166136261u ^ basis;

    for (; *s; s++) {
        h ^= (unsigned char) *s;
        h *= 16777619u;
    }
    return h;
}

#endif /* om-util.h */
