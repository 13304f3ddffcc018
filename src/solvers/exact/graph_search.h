// Internal: solver `exact` under explicit conflicts (Problem::conflicts). The canonical
// search of MiniMalloc with conflicts read from the timeline module's conflict graph
// (timeline.h), never from interval overlap alone; research note parallel-streams.md §4.2.
#pragma once

#include <cstdint>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"

namespace memplan::exact {

// Decides a capacity, or minimizes the peak with proof (kOptimal through lower_bound,
// kInfeasible), like run_exact on intervals. Gaps are searched as full rectangles, so no
// proof is claimed when any buffer has gaps. The conflict graph's connected components are
// solved one by one (graph_components.cpp).
SolveResult run_exact_on_graph(const Problem& p, const SolveOptions& opt);

// The canonical search on `p` as a whole under its conflict graph `g`, until `deadline`;
// minimization stops early once its plan's peak is <= `enough` (another component already
// sets the peak; 0: never). INT64_MAX: no search at all, only the first-fit incumbent (if
// within the capacity) and the bound.
SolveResult search_on_graph(const Problem& p, const ConflictGraph& g, const SolveOptions& opt, const Deadline& deadline,
                            int64_t enough = 0);

// Per buffer, its connected component's index (components numbered by smallest member);
// returns the number of components.
int32_t conflict_components(const ConflictGraph& g, std::vector<int32_t>& component);

}  // namespace memplan::exact
