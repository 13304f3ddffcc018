// Internal: solver `exact` under explicit conflicts (Problem::conflicts). The canonical
// search of MiniMalloc with conflicts read from the timeline module's conflict graph
// (timeline.h), never from interval overlap alone; research note parallel-streams.md §4.2.
#pragma once

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::exact {

// Decides a capacity, or minimizes the peak with proof (kOptimal through lower_bound,
// kInfeasible), like run_exact on intervals. Gaps are searched as full rectangles, so no
// proof is claimed when any buffer has gaps.
SolveResult run_exact_on_graph(const Problem& p, const SolveOptions& opt);

}  // namespace memplan::exact
