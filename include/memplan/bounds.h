// memplan: lower bounds and instance statistics.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// LOAD: the largest total size live at one instant, by an event sweep in which ends come
// before starts at equal times (half-open lifetimes). Gaps reduce a buffer's contribution
// to its window width (0 for an absent stretch). Buffers linked by in-place reuse
// (inplace_of, through any number of links) count once per instant, as their widest live
// member: a plan may let them share one address (it need not), and no other buffer may
// share their bytes, so every valid plan's peak is >= LOAD. O(n log n).
int64_t compute_load(const Problem& p);

// The highest end of a pre-placed buffer, max(offset + size) (0 when none is fixed): every
// plan's peak reaches it. A two-ended pool's high-end buffers count their offsets from the
// top, so they are left out. O(n).
int64_t fixed_top(const Problem& p);

class Deadline;  // solver.h

// The lower bound on every plan's peak on the time axis, the one the driver, `auto` and
// the solvers start from: max(LOAD (in-place components counted once, see compute_load),
// fixed_top). O(n log n). With a deadline its sort and sweep poll it, and the result is -1
// once it has passed (without one it is never negative). Under explicit conflicts the
// driver adds a clique of the relation on top (driver.h, driver_lower_bound).
int64_t lower_bound_of(const Problem& p, const Deadline* deadline = nullptr);

// The max-weight antichain of a problem's partial order (its vector clocks, problem.h): a
// set of buffers no two of which is dead before the other, so pairwise conflicting and
// disjoint in every valid plan; its weight is a lower bound on the peak that generalizes
// LOAD (../shared/research/parallel-streams.md §4.3; weighted Dilworth). Computed as a
// min flow (every buffer a node of demand = its size; arcs along the order), i.e. total
// size minus a max flow, on a sparse network that never materializes the order: the
// distinct lower clocks are split greedily into chains, and each buffer gets one arc to
// the first lower clock of each chain that its upper clock reaches: O(n x chains) arcs
// (62k buffers on 4 streams: 4.5 s CPU for `memplan stats`, reading included). The
// antichain is read from the residual graph's reachable set, so it is a true antichain
// even when `stop` (polled once per Dinic phase) ends the flow early; it is then maybe
// not the heaviest (exact = false).
// nullopt when the problem has no clocks, has in-place links (they may share while
// concurrent), or the chain split exceeds `max_arcs` arcs.
struct Antichain {
  int64_t weight = 0;
  std::vector<int32_t> members;  // increasing buffer indices
  bool exact = true;             // false when stopped early
};
std::optional<Antichain> antichain_bound(const Problem& p, const std::function<bool()>& stop = {},
                                         int64_t max_arcs = 100'000'000);

// The time window [from, to) of a problem, for window lower bounds: every buffer live in
// it (start < to and end > from), its lifetime clipped to the window; ids, sizes,
// alignments and pre-placed offsets kept, capacity dropped. Why its optimal peak bounds p's
// from below: a valid plan of p, restricted to these buffers, is a valid plan of the window,
// since two clipped lifetimes overlap only where the original ones do (and there the plan
// keeps the buffers apart) and a pre-placed buffer keeps its offset; its peak is at most
// p's. So if no plan of the window fits C, none of p does. Throws std::invalid_argument for
// an empty window, explicit conflicts, or a buffer in the window with gaps, an in-place
// link, a group or a high-end (from_top) placement: their restriction is not modelled.
Problem window_problem(const Problem& p, int64_t from, int64_t to);

// The instant-subset relaxation of a problem, a generalization of window_problem: keep only
// the buffers live at some instant of `instants` (start <= t < end for some t in the set;
// any order, repeats ignored), and only their conflicts at those instants. With the instants
// sorted, t_0 < ... < t_{m-1}, a kept buffer live at t_i..t_j (a run: its lifetime is an
// interval) gets the lifetime [t_i, t_j + 1), so two kept lifetimes overlap exactly when the
// buffers share an instant of the set, and the result is again an interval problem. Its
// optimal peak bounds p's from below for the same reason as a window's: a valid plan of p,
// restricted to the kept buffers, keeps every pair live at a common instant apart. A window
// [from, to) is the special case of its section starts. Ids, sizes, alignments and
// pre-placed offsets kept, capacity dropped; buffers in p's order. Throws
// std::invalid_argument for an empty set, explicit conflicts, or a kept buffer with gaps, an
// in-place link, a group or a high-end placement (as window_problem).
Problem instants_problem(const Problem& p, std::vector<int64_t> instants);

// Whether window_problem and instants_problem model p (they throw otherwise): no explicit
// conflicts or vector clocks, and no buffer (relaxable(b)) with gaps, an in-place link, a
// group or a high-end placement. The window and instant lower bounds skip other problems.
bool relaxable(const Buffer& b);
bool relaxable(const Problem& p);

struct InstanceStats {
  int64_t buffers = 0;
  int64_t time_min = 0, time_max = 0;    // span of all lifetimes
  int64_t distinct_times = 0;
  int64_t size_min = 0, size_max = 0;    // h_min, h_max
  double size_ratio = 0;                 // h_max / h_min
  int64_t total_size = 0;
  int64_t load = 0;
  int64_t max_live_buffers = 0;          // most buffers live at one instant
  double overlap_density = 0;            // overlapping pairs / all pairs
  int64_t overlapping_pairs = 0;
  int64_t fixed = 0, aligned = 0, with_gaps = 0;
};

// O(n log n): overlapping pairs are counted by a sweep, not enumerated.
InstanceStats compute_stats(const Problem& p);

}  // namespace memplan
