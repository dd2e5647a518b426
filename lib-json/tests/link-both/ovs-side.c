/* The link-both test, OVS's half: built with OVS's headers, linked with
 * libopenvswitch. */

#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "side.h"

#define SIDE_FN ovs_side
#include "work.h"

void *
ovs_side_parser(void)
{
    return (void *) json_from_string;
}
