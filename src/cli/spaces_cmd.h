// Internal to the CLI: several memories, swapping (solve --memories/--swap) and explain.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/load.h"
#include "memplan/solver.h"

namespace memplan {

struct SpacesArgs {
  std::string memories;            // --memories sram=262144:64,dram
  bool swap = false;               // --swap
  bool swap_exact = false;         // --swap-exact
  int64_t bandwidth = 0;           // --bandwidth (bytes per time unit, 0 = instantaneous)
  int channels = 1;                // --copy-channels
  std::vector<int64_t> durations;  // --durations 1,1,3,...
  std::string transfers;           // --transfers FILE (CSV)
};

SpacesArgs& spaces_args();
void add_spaces_options(CLI::App* solve_cmd);

// Reads the space columns/fields of the input and --memories; checks them (InputError).
void load_spaces(Loaded& l, const std::string& input);

// solve with several memories or --swap; returns -1 when neither applies.
int solve_spaces(Loaded& l, const std::string& input, const std::string& algo, const SolveOptions& opt,
                 const std::string& output);

// The "explain=..." token and the stderr report for a problem that does not fit.
std::string explain_failure(const Problem& p, int64_t capacity, const std::string& algo, const SolveOptions& opt);

struct ExplainArgs {
  CLI::App* cmd = nullptr;
  std::string input, algo = "auto", lifetimes = "half-open";
  std::optional<int64_t> capacity;
  double time_limit = 1.0;
};
void add_explain_command(CLI::App& app, ExplainArgs& a);
int run_explain(const ExplainArgs& a);

}  // namespace memplan
