// Internal to the CLI: `memplan bound`, the window lower bound's refutation made checkable.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace memplan {

struct BoundArgs {
  CLI::App* cmd = nullptr;
  std::string input, window, output, lifetimes = "half-open";
  int64_t capacity = 0;
  double time_limit = 0;
};

void add_bound_command(CLI::App& app, BoundArgs& a);
// Cuts the window FROM:TO out of the input (window_problem, bounds.h), optionally writes it
// (-o, MiniMalloc CSV), and decides it at --capacity with the exact search. Prints one line
// (window, buffers, capacity, status, nodes); exit 0 when refuted (a lower bound of
// capacity + 1 on the whole input), 3 when a plan fits or the search ran out of time, 2 on
// bad input.
int run_bound(const BoundArgs& a);

}  // namespace memplan
