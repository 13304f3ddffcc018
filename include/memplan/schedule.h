// memplan: memory-aware operator scheduling. Chooses the execution order (a topological
// order of a Graph's operators) that lowers LOAD, the largest total live at one instant,
// before any offset is planned. See ../shared/research/memory-aware-scheduling.md.
//
// The objective is exactly the LOAD of lower(g, order, lower_options).problem with its
// in-place pairs merged (constrained_lower_bound): views keep their base alive, an output
// that may overwrite an input shares its bytes when the input dies at that step, scratch
// is live during its operator, graph outputs live to the end.
//
// Every mode first splits the graph at cut operators (each comparable with every other
// operator, so each sits at the same position in every order): the blocks in between are
// scheduled on their own, in linear time overall for the split.
//  - graph:  the graph order (graph_order(g)).
//  - memory: per block, a portfolio of production heuristics reimplemented from their
//            descriptions (XLA's list scheduler, DFS and post-order; Inductor's LPMF, BFS
//            and DFS), then a local search over the best order (moves that keep it
//            topological); per block the best, graph order kept on ties. Never worse than
//            graph order.
//  - exact:  memory, then per block a dynamic program over the sets of scheduled
//            operators (Serenity), pruned at the incumbent; proves the block optimal when
//            it completes. Blocks over 64 operators, or over the state or time budget,
//            keep their memory order, and the result says so (fell_back, reason).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "memplan/graph.h"

namespace memplan {

enum class ScheduleMode { kGraph, kMemory, kExact };

const char* to_string(ScheduleMode m);
// "graph", "memory" or "exact"; throws std::invalid_argument otherwise.
ScheduleMode parse_schedule_mode(const std::string& s);

struct ScheduleOptions {
  ScheduleMode mode = ScheduleMode::kMemory;
  double time_limit = 10.0;  // seconds for the whole call; <= 0: no limit
  uint64_t seed = 1;         // local search moves; same seed, same order
  LowerOptions lower;        // the memory model scored (weights, in-place)
  int exact_max_nodes = 64;  // exact: blocks up to this many operators (at most 64)
  int64_t exact_max_states = 4'000'000;  // exact: states kept per block (~32 bytes each)
};

struct HeuristicLoad {
  std::string name;  // "xla-list", "xla-dfs", "xla-postorder", "lpmf", "bfs", "inductor-dfs"
  int64_t load = 0;  // LOAD of that heuristic's order on every block
};

struct ScheduleResult {
  std::vector<int32_t> order;     // operator indices, a topological order
  int64_t load = 0;               // LOAD of `order`
  int64_t graph_order_load = 0;   // LOAD of graph_order(g)
  std::string method;             // mode used: "graph", "memory" or "exact"
  bool proven_optimal = false;    // no order has a lower LOAD (sound)
  int64_t lower_bound = 0;        // <= LOAD of every order
  std::vector<HeuristicLoad> heuristics;  // memory/exact: each production heuristic
  int64_t local_search_load = 0;  // memory/exact: after the local search (per block best)
  bool fell_back = false;         // exact: some block was left to `memory`
  std::string fell_back_reason;
  int64_t blocks = 0;             // blocks after splitting at cut operators
  int64_t largest_block = 0;      // operators in the largest block
  int64_t exact_blocks = 0;       // blocks the dynamic program completed
  double seconds = 0;
};

// Schedules a finalized graph. Throws InputError for a tensor of unknown size (as lower).
ScheduleResult schedule(const Graph& g, const ScheduleOptions& options = {});

// LOAD of `order` (a topological order of g) under the lowering's memory model: equals
// constrained_lower_bound(lower(g, order, options).problem). O(operators + edges).
int64_t order_load(const Graph& g, const std::vector<int32_t>& order,
                   const LowerOptions& options = {});

// The order as text, one operator name per line (an unnamed operator as #index).
void write_order_text(std::ostream& os, const Graph& g, const std::vector<int32_t>& order);
// {"method", "load", "graph_order_load", "proven_optimal", "lower_bound", "fell_back",
//  "fell_back_reason", "order": [names]} as JSON.
void write_order_json(std::ostream& os, const Graph& g, const ScheduleResult& r);

}  // namespace memplan
