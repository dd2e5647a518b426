/* In-tree compatibility only (not installed): the projects in this
 * repository that include "openvswitch/shash.h" get lib-json's header.
 * Programs built against an installed lib-json include <ovsjson/shash.h>. */
#include "../ovsjson/shash.h"
