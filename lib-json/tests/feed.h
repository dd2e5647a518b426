/* Feeding a json_parser in pieces, for the programs of lib-json/tests.
 * Include it after the json.h it is built with (lib-json's, or OVS's for
 * api-diff.c's -DUSE_OVS build). */

#ifndef FEED_H
#define FEED_H 1

#include <stddef.h>

/* Feeds the 'n' bytes at 's' to 'p', 'piece' bytes at a time (0: all at
 * once), until it takes less than it is given.  Returns the number of
 * bytes it took. */
static inline size_t
feed_pieces(struct json_parser *p, const char *s, size_t n, size_t piece)
{
    size_t pos = 0;

    while (pos < n) {
        size_t k = piece && n - pos > piece ? piece : n - pos;
        size_t used = json_parser_feed(p, s + pos, k);
        pos += used;
        if (used < k) {
            break;
        }
    }
    return pos;
}

#endif /* feed.h */
