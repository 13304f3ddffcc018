// Internal to the CLI: `memplan bound`, the window and instant lower bounds' refutations
// made checkable.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace memplan {

struct BoundArgs {
  CLI::App* cmd = nullptr;
  std::string input, window, instants, output, lifetimes = "half-open";
  int64_t capacity = -1;  // -1: not given
  int64_t min_load = -1;  // -1: not given
  int64_t nodes = 0;      // per decision, 0: no limit
  bool cutting_planes = false;
  double time_limit = 0;
};

void add_bound_command(CLI::App& app, BoundArgs& a);
// With --window FROM:TO: cuts the window out of the input (window_problem, bounds.h); with
// --instants T1,T2,...: keeps the instant-subset relaxation (instants_problem); with
// --min-load B: the same at the start of every section whose total live size is >= B. Optionally
// writes it (-o, MiniMalloc CSV) and decides it at --capacity with the exact search. Prints
// one line (window or instants, buffers, capacity, status, nodes); exit 0 when refuted (a
// lower bound of capacity + 1 on the whole input), 3 when a plan fits or the search ran out
// of time or nodes, 2 on bad input.
// With --cutting-planes: the loop of instant_bound.h from --capacity (default LOAD) and the
// --instants or --min-load seed (default the peak sections), each decision by `exact` within --nodes; one
// line per decision, then the bound; exit 0 when some capacity was refuted or the whole was
// solved at a proven bound (status=optimal), 3 otherwise.
int run_bound(const BoundArgs& a);

}  // namespace memplan
