/* In-tree compatibility only (not installed): the projects in this
 * repository that include "openvswitch/dynamic-string.h" get lib-json's header.
 * Programs built against an installed lib-json include <ovsjson/dynamic-string.h>. */
#include "../ovsjson/dynamic-string.h"
