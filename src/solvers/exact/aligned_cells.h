// Internal: the lowest-cell search's (cells.cpp) choices on instances with alignment.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/exact/search.h"

namespace memplan::exact {

// Test hook: when false on a thread, the cell search tries an aligned cell's buffers in
// preorder rank, as on instances without alignment (the node counts with and without).
inline thread_local bool order_aligned_cells = true;

// Diagnostic hook (exact_scale_bench guided): when set on a thread, the cell search tries
// first, at each node with fewer than guide_placements buffers placed, the buffer this plan
// puts at the cell's floor (an order only: the search stays complete). On any instance,
// aligned or not (`exact_scale_bench guided 3200 100-109 4 0,1000,2000 pinwheel`).
inline thread_local const std::vector<int64_t>* guide_plan = nullptr;
inline thread_local int64_t guide_placements = 0;

// Root rotations (aligned perfect packings). Following the generator's plan for the first K
// placements and then searching on (`exact_scale_bench guided 800 100-109 8 0,1,2,...`,
// tuning seeds) finds seeds 106 and 109 with K = 1 and not with K = 0: the search's very
// first decision is wrong there, and its failures (thrashing far deeper in the tree)
// never reach back to it. Restarts that each put another of the root cell's candidates
// first (the rest of the search unchanged) reach those decisions (rotate_root_cells).
// Nodes per rotation: at least kRotationNodes x n, and a 1/kRotationsPerCall share of the
// budget once that is more.
inline constexpr int64_t kRotationNodes = 4;
inline constexpr int64_t kRotationsPerCall = 16;

// search_cells (CellChoice::kWells) under `order`, restarted with the root cell's
// candidate number 1, 2, ... (mod their count, in the search's own trial order) tried first,
// until one decides or `node_budget` nodes are spent. The memo is shared (a failed state
// fails whatever the order), and so are the dead-end weights. nodes = the restarts' total.
SearchResult rotate_root_cells(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                               int64_t node_budget, const Deadline& deadline, FailureMemo* memo = nullptr);

// The 2-adic valuation of a position: the largest k with 2^k dividing it (64 for 0 and
// for the capacity, where nothing has to start).
int top_valuation(int64_t position, int64_t cap);

// Orders candidates[from, end), the buffers of a cell at floor h (placed at h in turn), by
// decreasing valuation of their top h + size, ties kept in the given (preorder rank) order.
// Only an order, so the search stays complete; used on aligned instances only.
//
// Why: in a perfect packing every cell is filled, so where a buffer ends another starts in
// each of its sections, and a buffer of alignment 2^k can start only at a multiple of 2^k.
// A top of low valuation admits only weakly aligned buffers above it; the packing's own
// tops are cut lines, which the `aligned` generator puts on multiples of 2^j. Following the
// generator's plan cell by cell (`exact_scale_bench plan_order 400,800,1600 100-106`, tuning
// seeds), the plan's buffer comes first among a cell's 2+ candidates in 765 of 1,284 cells
// by this order against 387 by preorder rank (TAW) at 400 buffers, 3,049 of 5,075 against
// 1,623 at 1,600; on tilings without alignment the order is no better than rank (439 and
// 455 of 1,328), so the signal is the alignment. README, "Aligned perfect packings".
void order_by_top_valuation(const Instance& in, int64_t h, int64_t cap, std::vector<int32_t>& candidates,
                            size_t from);

}  // namespace memplan::exact
