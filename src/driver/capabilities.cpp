// The driver's refusals: a problem feature a solver's Supports does not cover, named with the
// solver, before the solver runs (instead of a wrong plan).
#include <string>

#include "memplan/constraints.h"
#include "memplan/driver.h"

namespace memplan {

std::string unsupported_feature(const Problem& p, const SolverInfo& solver) {
  const std::string who = "algorithm '" + solver.name + "'";
  if (!p.conflicts.empty()) {
    if (!solver.supports.explicit_conflicts)
      return who +
             " needs interval lifetimes; the input has explicit conflicts (use 'auto', 'exact' or another "
             "algorithm marked [conflicts] in 'memplan list')";
    // Lowering merges in-place chains and groups on the time axis; the explicit pairs would
    // have to follow the merged buffers (not done yet).
    if (has_constraints(p))
      return "explicit conflicts together with in-place reuse or contiguous groups are not supported yet";
  }
  if (!solver.supports.fixed_offsets)
    for (const Buffer& b : p.buffers)
      if (b.offset) return who + " does not support pre-placed buffers (buffer '" + b.id + "' has an offset)";
  return {};
}

}  // namespace memplan
