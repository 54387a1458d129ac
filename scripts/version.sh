#!/bin/bash
# Print magnet's version, from its one place: MAGNET_VERSION in module/magnet.h.
set -eu
sed -n 's/^#define MAGNET_VERSION "\(.*\)"$/\1/p' "$(dirname "$0")/../module/magnet.h"
