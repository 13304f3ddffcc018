// Internal: restarts of the cell search (kWells: fewest branches) on perfect packings (every section's
// total at the capacity). The search either finds such a packing in about n nodes or goes
// wrong early and thrashes, and whether it goes wrong depends on the tie-break among a
// cell's candidates (the static order). Longest lifetime first is what works on pinwheel
// (non-guillotine) packings: under it the search found 6 of 10 pinwheels of 800 buffers
// and 4 of 10 of 1,600 within 2n nodes, under area-first, size-first or random orders none
// (README, issue 21 item 1). So the restarts keep that order and jitter it: each buffer's
// log lifetime is perturbed by a small uniform noise, which reorders only lifetimes within
// a few tens of percent of each other.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/exact/search.h"

namespace memplan::exact {

// Buffers by lifetime, longest first, each log lifetime shifted by a uniform amount in
// [-kJitter, kJitter) drawn from `seed` (splitmix64): the same order for the same seed.
inline constexpr double kJitter = 0.15;
std::vector<int32_t> jittered_order(const Instance& in, uint64_t seed);

// Nodes per restart of restart_cells under a budget of `node_budget`: at least
// kRestartNodes x n, and a 1/kRestartsPerCall share of the budget once that is more, so the
// restarts lengthen as the round robin doubles its budgets (backjumping pays only in longer
// searches: README, issue 21 item 1, "the perfect-packing list re-tuned").
inline constexpr int64_t kRestartNodes = 2;
inline constexpr int64_t kRestartsPerCall = 4;
int64_t restart_length(int32_t n, int64_t node_budget);

// Restarts of search_cells (CellChoice::kWells) at `capacity`, each of restart_length nodes under
// jittered_order(in, seed mixed with the budget and the restart's number), until one
// decides or `node_budget` nodes are spent (at least one restart). The memo, if given, is
// shared: a failed state fails under any order. nodes = the restarts' total.
SearchResult restart_cells(const Instance& in, int64_t capacity, uint64_t seed, int64_t node_budget,
                           const Deadline& deadline, FailureMemo* memo = nullptr);

}  // namespace memplan::exact
