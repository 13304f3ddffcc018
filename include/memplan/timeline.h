// memplan: the timeline/conflict module. One place computes what every interval solver
// used to sweep for itself: sections (the elementary intervals between consecutive event
// times), section totals, per-buffer pressure, overlap degrees, overlap lists and LOAD; and
// the conflict relation of a problem:
//
//   conflict(a, b) = (lifetimes overlap  OR  {a, b} is an explicit conflict edge)
//                    AND NOT (a and b are linked by inplace_of)
//
// Interval-only views (sections, pressure, interval degrees) describe the time axis; a
// solver that relies on them needs interval conflicts (Problem::conflicts empty) and must
// say so (see solver capabilities). The independent validator (validate.cpp) deliberately
// does not use this module.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

class Deadline;  // solver.h

// Sections of a set of half-open lifetimes [start, end) with sizes (gaps ignored: every
// buffer is a full rectangle).
struct Sections {
  std::vector<int64_t> times;          // distinct event times, increasing
  std::vector<int32_t> lo, hi;         // per buffer: the sections it spans, [lo, hi)
  std::vector<int64_t> total;          // per section: total size live in it
  int32_t count() const { return static_cast<int32_t>(total.size()); }
};
// `stop` is polled throughout (about every 4096 items); once it says so the result is empty
// (lo and hi shorter than start).
Sections sections_of(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& size, const std::function<bool()>& stop = {});
// The sections of a problem's buffers' lifetimes and sizes (gaps ignored, as above).
Sections sections_of(const Problem& p);

// Per buffer: the largest section total over its sections (0 for an empty lifetime).
// O(S log S + n) by a sparse table of range maxima.
std::vector<int64_t> section_pressure(const Sections& s);

// Buffer ids sorted by start, ties by id. O(n log n). `stop` is polled throughout (about
// every 4096 items); once it says so the result is empty (check its size against start's).
std::vector<int32_t> order_by_start(const std::vector<int64_t>& start, const std::function<bool()>& stop = {});

// Per buffer: how many other lifetimes overlap it. O(n log n), no lists. `stop` is polled
// throughout; once it says so the result is empty.
std::vector<int32_t> overlap_degrees(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                                     const std::function<bool()>& stop = {});

// Number of overlapping pairs, by a sweep. O(n log n). `stop` is polled throughout (about
// every 4096 items); once it says so the result is -1.
int64_t overlapping_pairs(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                          const std::function<bool()>& stop = {});

// The overlap lists (CSR): adj[begin[i], begin[i + 1]) holds every buffer whose lifetime
// overlaps i's, each once, in the order a sweep in `by_start` order meets the pairs (not
// sorted). Two sweeps, counting then filling: 8 bytes a pair (the lists), no list of pairs;
// given `degrees` (overlap_degrees of the same lifetimes) the filling sweep alone.
// Returns false when `stop` (polled every 256 buffers) says so; the lists are then unusable.
bool overlap_lists(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                   const std::vector<int32_t>& by_start, std::vector<int64_t>& begin, std::vector<int32_t>& adj,
                   const std::function<bool()>& stop = {}, const std::vector<int32_t>* degrees = nullptr);

// LOAD of a problem on its time axis: the largest total size live at one instant, gaps
// narrowing a buffer to its window and in-place components (inplace_of links) counting
// once per instant as their widest live member. O(n log n). With a deadline it polls it and
// returns -1 once it has passed.
int64_t interval_load(const Problem& p, const Deadline* deadline = nullptr);

// Per buffer: the id of its in-place component (buffers linked by inplace_of through any
// number of links). Empty when no buffer names an in-place target.
std::vector<int32_t> inplace_components(const Problem& p);

// The conflict relation of a problem as adjacency lists (CSR, each list increasing).
struct ConflictGraph {
  std::vector<int64_t> begin;  // n + 1 entries
  std::vector<int32_t> adj;
  int64_t degree(int32_t i) const { return begin[i + 1] - begin[i]; }
};

// Builds the relation defined at the top of this file. Returns false (the graph is then unusable) when it
// would hold more than `max_pairs` pairs or `stop` says so.
bool conflict_graph(const Problem& p, ConflictGraph& g, int64_t max_pairs,
                    const std::function<bool()>& stop = {});

// Per buffer, an end at or after its own such that every explicit conflict pair (Problem::
// conflicts) overlaps in time: for a pair apart in time (a ends at or before b starts), a's
// end moves to b's start + 1. Ends only grow, so pairs that overlapped still do; a plan
// that keeps apart every two buffers overlapping in [start, that end) is therefore valid
// for p without looking at its conflicts (how `online-best-fit` plans under explicit
// conflicts). O(n + pairs); empty when `stop` (polled every 2^16 pairs) says so.
std::vector<int64_t> ends_covering_conflicts(const Problem& p, const std::function<bool()>& stop = {});

// p's conflict graph for a solver: `given` when a caller built it already
// (SolveOptions::conflict_graph, the same problem), else built into `own` as conflict_graph
// does. nullptr when it cannot be had (above `max_pairs` pairs, or `stop`).
const ConflictGraph* conflict_graph_of(const Problem& p, const ConflictGraph* given, ConflictGraph& own,
                                       int64_t max_pairs, const std::function<bool()>& stop = {});

}  // namespace memplan

namespace memplan {

// A sound lower bound on any plan's peak under a conflict graph: the weight of the heaviest
// clique found greedily (from each buffer, add its neighbours by decreasing size when they
// conflict with all chosen so far), at least the largest single size. Stops growing new
// cliques after about `budget` adjacency tests or when `stop` (polled every 256 cliques) says
// so (the bound stays sound, only weaker).
int64_t greedy_clique_bound(const ConflictGraph& g, const std::vector<int64_t>& size, int64_t budget = 50'000'000,
                            const std::function<bool()>& stop = {});

}  // namespace memplan
