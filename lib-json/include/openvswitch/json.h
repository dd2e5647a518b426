/* In-tree compatibility only (not installed): the projects in this
 * repository that include "openvswitch/json.h" get lib-json's header.
 * Programs built against an installed lib-json include <ovsjson/json.h>. */
#include "../ovsjson/json.h"
