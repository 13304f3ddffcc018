// Internal: the dive (dive.h) carried over to a conflict graph (Problem::conflicts; research
// note parallel-streams.md §4.2 item 6). One descent of graph_search.cpp's canonical search
// without backtracking: buffers in non-decreasing offset, each at its minimum offset (the
// lowest aligned offset at or above its placed neighbours' tops, clear of its pre-placed
// neighbours), the least (minimum offset, rank) candidate that passes the search's tests:
// within the capacity, not dominated (no other unplaced buffer fits entirely below it), and
// the section inference on the [start, end) axis, whose sections are cliques of the
// relation (timeline.h). Placed neighbours come from the graph's adjacency lists, never from
// a time tree: O(degree log n) a placement. A heuristic: a failed dive proves nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"

namespace memplan::exact {

// What every dive on one problem shares: the graph, the sections of the [start, end) axis
// over the movable buffers, and each buffer's pre-placed neighbours' extents.
struct GraphDiveInput {
  const Problem& p;
  const ConflictGraph& g;
  Sections sections;                                            // movable sizes only
  std::vector<std::vector<std::pair<int64_t, int64_t>>> fixed;  // per buffer, sorted by lo
  GraphDiveInput(const Problem& problem, const ConflictGraph& graph);
};

// Offsets of a plan with peak <= capacity, or nullopt (a candidate-less step, or the
// deadline). `rank`: per buffer, its position in the static order (ties of minimum offset).
std::optional<std::vector<int64_t>> graph_dive(const GraphDiveInput& in, int64_t capacity,
                                               const std::vector<int32_t>& rank, const Deadline& deadline);

// The dives' static orders, as ranks: weighted degree (own size plus the neighbours' sizes:
// buffers in heavy cliques first), degree, and size (ties: degree), each tie by index; the
// first two land most often on the streams family (1k and 10k buffers, seed 1), so first.
std::vector<std::vector<int32_t>> graph_dive_ranks(const Problem& p, const ConflictGraph& g);

}  // namespace memplan::exact
