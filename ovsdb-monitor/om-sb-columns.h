/* ovsdb-monitor: columns of Southbound-like tables that the unit tests
 * (tests/test-ovsdb-monitor.c) and the fan-out benchmark (bench-fanout.c)
 * both have, first in their tables, as initializers of arrays of struct
 * om_column_def.  Each program adds its own columns after them. */

#ifndef OM_SB_COLUMNS_H
#define OM_SB_COLUMNS_H 1

#include "ovsdb-monitor.h"

/* Port_Binding: the port's name and tunnel key, the chassis it is bound
 * to, and whether it is up. */
#define OM_SB_PORT_BINDING_COLUMNS                  \
    { "logical_port", OM_SCALAR, OM_STRING, 0 },    \
    { "tunnel_key", OM_SCALAR, OM_INTEGER, 0 },     \
    { "chassis", OM_SET, OM_STRING, 0 },            \
    { "up", OM_SCALAR, OM_BOOLEAN, 0 }

/* Logical_Flow: the flow's match and actions, and its place in the
 * pipeline. */
#define OM_SB_LOGICAL_FLOW_COLUMNS                  \
    { "match", OM_SCALAR, OM_STRING, 0 },           \
    { "actions", OM_SCALAR, OM_STRING, 0 },         \
    { "priority", OM_SCALAR, OM_INTEGER, 0 },       \
    { "table_id", OM_SCALAR, OM_INTEGER, 0 },       \
    { "pipeline", OM_SCALAR, OM_STRING, 0 }

#endif /* om-sb-columns.h */
