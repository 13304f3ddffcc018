// memplan: seeded synthetic model graphs, for the scheduler's tests and benchmarks.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memplan/graph.h"

namespace memplan {

// A DNN-like DAG of about `operators` operators (at least that many, a few more to close
// the last block), finalized: a stem, then a seeded mix of residual blocks (conv, in-place
// ReLU, add over a skip), inception blocks (3-4 parallel branches and a concat),
// multi-head attention blocks (Q/K/V projections, per-head slices as views, softmax in
// place, heads concatenated), U-Net stretches (encoder outputs held across the decoder by
// long skips) and downsampling; conv workspaces as scratch; weights as weight tensors.
// Throws std::invalid_argument when operators < 1. Deterministic in seed.
Graph generate_dnn_graph(int64_t operators, uint64_t seed);

// A randomly wired network (the irregular graphs Serenity targets) of about `operators`
// operators: a chain of cells, each a random DAG of 8-24 operators (every operator reads
// 1-3 random earlier operators of its cell or the cell input, sizes vary 16x), the cell's
// sinks summed into its output (of the cell input's size); operators written in a seeded random topological
// order within the cell. Throws std::invalid_argument when operators < 1.
Graph generate_random_wired_graph(int64_t operators, uint64_t seed);

// The graph kinds `memplan generate --kind` writes as graph files (graph_io.h): name and
// description. "dag" is generate_dnn_graph, "wired" generate_random_wired_graph.
std::vector<std::pair<std::string, std::string>> graph_generator_kinds();
// The graph of that kind; throws std::invalid_argument for another kind or operators < 1.
Graph generate_graph(const std::string& kind, int64_t operators, uint64_t seed);

}  // namespace memplan
