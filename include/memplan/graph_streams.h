// memplan: a model graph run on several streams (parallel-streams.md §2.2). Operators on one
// stream run in the order given; across streams only data dependences order them (an op
// waits for the producers of its inputs). Two buffers may share bytes only if one is dead
// before the other is born under every such interleaving (SOMAS's rule), computed exactly
// with vector clocks, one component per stream.
#pragma once

#include <cstdint>
#include <vector>

#include "memplan/graph.h"

namespace memplan {

// Gives every operator without a stream (stream < 0) one of `streams` streams: independent
// branches round-robin. Walking the ops in `order` (empty: graph order), an op continues the
// stream of the producer of its first produced input when it is that producer's first
// consumer to be assigned; any other op (a graph source, a second consumer of a fork) starts a
// new branch on the next stream in round-robin. Ops with a stream keep it. Throws
// InputError when a given stream is >= `streams` or `streams` < 1.
void assign_streams(Graph& g, int32_t streams, const std::vector<int32_t>& order = {});

// lower(g, order, options) with the partial order of the streams instead of one time axis:
// ids, sizes, views and scratch as lower() makes them (no in-place reuse: the lowering
// refuses options.inplace), [start, end) from `order` (a linear extension), plus the vector
// clocks (problem.h; every operator's stream must be in [0, streams)) and every conflicting
// pair that does not overlap in `order` as an explicit conflict. A buffer is born at its
// producer's begin clock (graph inputs and weights: the zero clock) and dies at the join of
// its readers' end clocks (graph outputs, weights and unread inputs: at the end of the run;
// an unread activation: at its producer's end).
LoweredGraph lower_streams(const Graph& g, int32_t streams, const std::vector<int32_t>& order = {},
                           const LowerOptions& options = {});

}  // namespace memplan
