/* lib-json: "struct uuid", as OVS's include/openvswitch/uuid.h defines it,
 * for json_string_create_uuid() and json_object_put_uuid(). */

#ifndef OVSJSON_UUID_H
#define OVSJSON_UUID_H 1

#include <stdint.h>

/* A UUID, in host byte order: parts[0] holds its first 8 hex digits. */
struct uuid {
    uint32_t parts[4];
};

#endif /* ovsjson/uuid.h */
