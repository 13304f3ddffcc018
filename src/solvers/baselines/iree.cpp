// IREE Stream LayoutSlices (static slices): TFLite-core best fit in IR order, no sort
// (heuristics.md §6d). Our buffers' input order stands for the IR order.
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {

void register_iree(std::vector<SolverInfo>& out) {
  add_solver(out, "iree-layout-slices",
             "IREE Stream LayoutSlices: TFLite-core best fit in IR (input) order, no sort",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return arena_best_fit(recs, 1, false, dl);
             });
}

}  // namespace memplan::baselines
