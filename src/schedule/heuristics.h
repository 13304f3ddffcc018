// Per-block orders: the production heuristics (reimplemented from the descriptions in the
// research note §3-§4), the local search, and the exact dynamic program.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "schedule/model.h"

namespace memplan::sched {

// The operators at positions [lo, hi) of the graph order: one block (all of them run
// between the same two cut operators in every order).
struct BlockView {
  const Model* m;
  int32_t lo, hi;
  int32_t size() const { return hi - lo; }
  int32_t node(int32_t i) const { return m->gorder[lo + i]; }
  int32_t local(int32_t v) const { return m->pos[v] - lo; }
  // Predecessors always sit before v in the graph order, successors after it.
  bool pred_inside(int32_t u) const { return m->pos[u] >= lo; }
  bool succ_inside(int32_t w) const { return m->pos[w] < hi; }
};

enum class Heuristic { kGraph, kXlaList, kXlaDfs, kXlaPostorder, kLpmf, kBfs, kInductorDfs };
constexpr Heuristic kAllHeuristics[] = {Heuristic::kGraph,        Heuristic::kXlaList,
                                        Heuristic::kXlaDfs,       Heuristic::kXlaPostorder,
                                        Heuristic::kLpmf,         Heuristic::kBfs,
                                        Heuristic::kInductorDfs};
const char* heuristic_name(Heuristic h);

// The block's order by heuristic `h`. `s` holds the state at the block's start; it may be
// advanced (dynamic priorities read it) and is rolled back to that state on return. Past
// the deadline, the list schedulers finish with any ready operator at each step.
std::vector<int32_t> heuristic_order(Heuristic h, const BlockView& b, Sweep& s, const Clock& clock);

struct BlockScore {
  int64_t peak = 0;
  int64_t area = 0;  // sum of the step memories: the local search's tie-break
  bool operator<(const BlockScore& o) const { return peak != o.peak ? peak < o.peak : area < o.area; }
};

// Scores a block order from the state in `s` (left unchanged).
BlockScore score_block(const std::vector<int32_t>& order, Sweep& s);

// Moves one operator at a time to another place between its last predecessor and first
// successor, keeping a move that does not worsen (peak, area). `evals` orders scored at
// most; stops early at the deadline. Returns the final score.
BlockScore local_search(const BlockView& b, Sweep& s, std::vector<int32_t>& order,
                        int64_t evals, std::mt19937_64& rng, const Clock& clock);

// The state a block starts from, as the dynamic program needs it.
struct BlockStart {
  int64_t live = 0;
  int32_t step = 0;
  std::vector<int32_t> families;   // families the block reads
  std::vector<int32_t> remaining;  // their uses left at the block's start
};
BlockStart capture_start(const BlockView& b, const Sweep& s);

struct ExactResult {
  enum Status { kSolved, kTooManyStates, kTimeout } status = kSolved;
  int64_t peak = 0;              // kSolved: the block's optimum (incumbent if none lower)
  std::vector<int32_t> order;    // kSolved and below the incumbent: an optimal order
  int64_t states = 0;
};

// Serenity-style dynamic program over the sets of scheduled operators of a block of at
// most 64, keeping the lowest peak per set and pruning every partial order whose peak
// reaches `incumbent` (the peak of a known order). kSolved proves the optimum.
ExactResult exact_block(const BlockView& b, const BlockStart& start, int64_t incumbent,
                        int64_t max_states, const Clock& clock);

}  // namespace memplan::sched
