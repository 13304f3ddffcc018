// Internal: a plan from a failed search's deepest partial placement (SearchResult::deepest).
// On perfect packings the cell search that runs out of nodes has often placed nearly every
// buffer at the capacity before it went wrong; the dives and greedy orders land 20-40 %
// above it (aligned 800: dive 1.21, greedy 1.34). Keeping the deepest placement and placing
// the buffers it left, one at a time, where they fit lowest (or tightest) around it lands
// close above the capacity instead. A heuristic plan: never a proof of anything.
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

}  // namespace memplan::exact
