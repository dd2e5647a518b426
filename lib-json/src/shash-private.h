/* lib-json internal: shash functions shared with the JSON code. */

#ifndef OVSJSON_SHASH_PRIVATE_H
#define OVSJSON_SHASH_PRIVATE_H 1

#include <stddef.h>
#include "openvswitch/shash.h"

size_t shash_find_idx__(const struct shash *, const char *name,
                        size_t len);
void shash_fixup__(struct shash *);
struct shash_node *shash_append__(struct shash *, char *name,
                                  const void *data);

#endif
