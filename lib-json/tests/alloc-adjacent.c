/* lib-json: a dynamic string's storage form must be recorded in the node,
 * not guessed from where its bytes are.  lib-json puts the bytes of the
 * strings it makes right after the struct, in the same heap block; a
 * string from json_string_create_nocopy() has a block of its own, which
 * json_destroy() must free, even when an allocator happens to place that
 * block right after the node.
 *
 * This program replaces malloc() and friends with a header-less allocator
 * (8-byte granules, exact-size free lists), so that the case can be built
 * on purpose: free a node-sized block, allocate the string right after it,
 * and let json_string_create_nocopy() get the freed block for its node.
 * Then every block must be free again once the value is destroyed.
 *
 * Prints "ok ..." or "FAIL ...", then "N passed, N failed". */

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "ovsjson/json.h"

#define ARENA_SIZE (64u << 20)
#define GRANULE 8
#define MAX_CLASS 512           /* Exact-size free lists up to 4 KiB. */

static char *arena;             /* The heap. */
static size_t arena_used;
static uint32_t *sizes;         /* Size of the block at each granule. */
static void *free_lists[MAX_CLASS];
static long live;               /* Blocks allocated and not freed. */

/* The number of granules for an 'n'-byte block, 0 if too large. */
static size_t
granules(size_t n)
{
    if (n > SIZE_MAX - GRANULE) {
        return 0;
    }
    return n ? (n + GRANULE - 1) / GRANULE : 1;
}

void *
malloc(size_t n)
{
    size_t g = granules(n);
    char *p;

    if (!arena) {
        arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        sizes = mmap(NULL, ARENA_SIZE / GRANULE * sizeof *sizes,
                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    }
    if (!g) {
        return NULL;
    }
    if (g < MAX_CLASS && free_lists[g]) {
        p = free_lists[g];
        memcpy(&free_lists[g], p, sizeof(void *));
    } else {
        if (arena_used + g * GRANULE > ARENA_SIZE) {
            return NULL;
        }
        p = arena + arena_used;
        arena_used += g * GRANULE;
    }
    sizes[(p - arena) / GRANULE] = g;
    live++;
    return p;
}

void
free(void *p_)
{
    char *p = p_;
    size_t g;

    if (!p) {
        return;
    }
    g = sizes[(p - arena) / GRANULE];
    live--;
    if (g < MAX_CLASS) {
        memcpy(p, &free_lists[g], sizeof(void *));
        free_lists[g] = p;
    }
}

void *
calloc(size_t n, size_t size)
{
    void *p = n && size > SIZE_MAX / n ? NULL : malloc(n * size);
    return p ? memset(p, 0, n * size) : NULL;
}

void *
realloc(void *p, size_t n)
{
    void *q;

    if (!p) {
        return malloc(n);
    }
    q = malloc(n);
    if (q) {
        size_t old = sizes[((char *) p - arena) / GRANULE] * GRANULE;
        memcpy(q, p, old < n ? old : n);
        free(p);
    }
    return q;
}

int
main(void)
{
    long before = live;
    /* Volatile: the compiler must not drop a malloc()/free() pair. */
    char *volatile node_sized = malloc(sizeof(struct json));
    char *s = malloc(40);
    int adjacent;
    struct json *j;

    strcpy(s, "a string in a block of the caller's");
    free(node_sized);

    /* The node gets the freed block, so its string follows it. */
    j = json_string_create_nocopy(s);
    adjacent = j->str_ptr == (char *) (j + 1);
    json_destroy(j);

    /* The common case too: a string whose bytes lib-json put there. */
    j = json_string_create("a string longer than twenty-three bytes");
    json_destroy(j);

    long left = live - before;  /* Before printf() allocates anything. */
    if (!adjacent) {
        printf("FAIL alloc-adjacent: could not place the string after its "
               "node\n0 passed, 1 failed\n");
        return 1;
    }
    printf("%s alloc-adjacent: a _nocopy string placed right after its node "
           "is freed (%ld blocks left)\n", left ? "FAIL" : "ok", left);
    printf("%d passed, %d failed\n", !left, !!left);
    return left != 0;
}
