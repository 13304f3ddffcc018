#include "memplan/version.h"

namespace memplan {

const char* version() { return MEMPLAN_VERSION; }

}  // namespace memplan
