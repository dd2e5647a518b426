/* lib-json internal: shash functions shared with the JSON code. */

#ifndef OVSJSON_SHASH_PRIVATE_H
#define OVSJSON_SHASH_PRIVATE_H 1

#include <stddef.h>
#include "ovsjson/shash.h"

size_t ojs_shash_find_idx(const struct shash *, const char *name,
                        size_t len);
void ojs_shash_fixup(struct shash *);
struct shash_node *ojs_shash_append(struct shash *, char *name,
                                  const void *data);
size_t ojs_shash_sorted_nodes(const struct shash *,
                              const struct shash_node **buf, size_t buf_n,
                              const struct shash_node ***nodesp);

#endif
