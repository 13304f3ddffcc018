// Internal: first-fit and best-fit on a conflict graph (timeline.h), for problems with
// explicit conflicts (parallel streams): a buffer avoids the bytes of its placed
// neighbours, never the interval overlaps alone. Gaps are ignored (full rectangles:
// conservative). Research note parallel-streams.md §4.1.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"

namespace memplan {

// Pairs beyond which a conflict graph is not built (16 bytes a pair in the CSR lists and
// the sweep).
constexpr int64_t kMaxConflictPairs = 40'000'000;

// Places the buffers in `order` (pre-placed ones first, at their offsets), each at the
// lowest aligned offset clear of its placed neighbours (kFirst) or in the smallest such
// hole (kBest; above everything when no hole fits), as PlacementEngine does on intervals.
// Returns the plan, or nullopt when `deadline` (polled every 4,096 buffers and neighbours
// scanned) passes first; with `cut`, the plan then goes on with the buffers not yet placed
// stacked above all the others (valid under any conflicts), and *cut is set.
std::optional<Solution> fit_on_graph(const Problem& p, const ConflictGraph& g, const std::vector<int32_t>& order,
                                     Fit fit, const Deadline& deadline, bool* cut = nullptr);

// Points `g` at p's conflict graph: the caller's (opt.conflict_graph), else one built into
// `own`, polling `deadline`; when it cannot be had (above kMaxConflictPairs pairs, or the
// deadline passed), returns instead the result to give: the stacked plan, with the reason
// in its detail.
std::optional<SolveResult> conflict_graph_or_stacked(const Problem& p, const SolveOptions& opt, const Deadline& deadline,
                                                     ConflictGraph& own, const ConflictGraph*& g);

// Every movable buffer stacked above the pre-placed ones, each at its own bytes: valid
// under any conflict relation; O(n). The plan of last resort.
Solution stacked_plan(const Problem& p);

// The best of fit_on_graph over (order, fit) variants (lowest peak; ties to the earliest);
// when the deadline cuts the first variant's pass, that pass with the rest stacked on top
// (winner = kCutPass); with no graph (too many pairs), stacked_plan (winner = -1). The
// winner's index in `variants` otherwise.
inline constexpr int kCutPass = -2;
struct GraphVariant {
  std::vector<int32_t> order;
  Fit fit = Fit::kFirst;
};
Solution best_on_graph(const Problem& p, const ConflictGraph* g, const std::vector<GraphVariant>& variants,
                       const Deadline& deadline, int& winner, int64_t& completed);

// The detail of a result whose best_on_graph winner is negative (no pass completed):
// the cut pass (kCutPass) or the stacked plan (-1).
const char* last_resort_detail(int winner);

// Per buffer: its size plus its neighbours' sizes (saturating); the first-fit order that
// wins most often on the streams family (conflict-greedy). Empty when `deadline` passed.
std::vector<int64_t> weighted_degrees(const Problem& p, const ConflictGraph& g, const Deadline& deadline);

// A local search over first-fit orders from `start` (graph_local_search.cpp): moves a
// buffer whose top is the peak earlier in the plan's offset order and re-fits, keeping a
// plan no worse by (peak, buffers at the peak). Ends at `lower`, the deadline, or 1,000 +
// 50 n moves in a row without a lower peak; returns the best plan seen (never above
// `start`'s peak), the number of moves in `moves`. Deterministic in `seed`.
Solution improve_on_graph(const Problem& p, const ConflictGraph& g, Solution start, uint64_t seed, int64_t lower,
                          const Deadline& deadline, int64_t& moves);

}  // namespace memplan
