// Internal: a plan from a failed search's deepest partial placement (SearchResult::deepest).
// On perfect packings the cell search fails on, the dives and greedy orders land 20-50 %
// above the optimum. The deepest placement the search reached (11-66 % of the buffers in the
// runs traced, each at the capacity) is kept, and the buffers it left are placed one at a
// time where they fit lowest (or tightest) around it: lower than those plans on about half
// of the unsolved held-out runs (README, "An unsolved search's deepest placement,
// completed"). A heuristic plan: never a proof of anything.
#pragma once

#include <atomic>
#include <optional>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::exact {

// Testing and measuring aid: false turns the fills off in `exact` (the minimization ladder
// completes the deepest placement of its rounds while this is true).
inline std::atomic<bool> fill_deepest_plans{true};

// The best of a few completions of `deepest` (offsets, -1 where unplaced; the placed ones
// pairwise apart): the placed buffers where they are, the others in decreasing size, then
// decreasing length, each at its first-fit and then its best-fit offset. nullopt when
// `deepest` is empty or not a valid partial plan, or the deadline passed.
std::optional<Solution> fill_deepest(const Problem& p, const std::vector<int64_t>& deepest, const Deadline& deadline);

// A plan with peak < `below` that keeps `deepest`'s placed buffers where they are: canonical
// dives (dive.h) of the others with those buffers pinned, under the preorders TWA, TWO, WAT
// and TAW, each at capacity one below the lowest peak so far; the lowest plan, or nullopt
// (also when `deepest` is empty). When the deadline passes, the best so far. Dearer than
// fill_deepest (the four dives take ~15 ms at 1,600 buffers, 0.14-0.33 s at 6,400, 0.5-0.7 s
// at 12,800: about quadratic; bench/cell_depth_bench's "dive ms") and lower: the dives
// build on the search's dense floor instead of stacking greedily on top of it (README,
// "completed by dives"). A dive's plan hardly depends on its capacity once it lands
// (landing peaks traced at capacities 1.00-1.30 x LOAD), so one capacity per preorder, no
// ladder.
std::optional<Solution> dive_deepest(const Problem& p, const std::vector<int64_t>& deepest, int64_t below,
                                     const Deadline& deadline);

}  // namespace memplan::exact
