/* The link-both test: the same work done by one translation unit against
 * lib-json (main.c) and by another against OVS's libopenvswitch
 * (ovs-side.c), in one program.  SIDE_FN names the function each defines;
 * only C strings cross between them. */

#ifndef LINK_BOTH_SIDE_H
#define LINK_BOTH_SIDE_H 1

/* Parses 'text' (an object), adds and deletes members, formats into a
 * "struct ds" and uses a standalone "struct shash"; returns a malloc()ed
 * report. */
char *libjson_side(const char *text);
char *ovs_side(const char *text);

/* The address of json_from_string() as each half sees it: they must
 * differ, or one library's code serves both halves. */
void *ovs_side_parser(void);

#endif
