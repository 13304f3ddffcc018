// Internal to the CLI: several memories, swapping (solve --memories/--swap) and explain.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/load.h"
#include "memplan/solver.h"
#include "memplan/swap.h"

namespace memplan {

struct SpacesArgs {
  std::string memories;            // --memories sram=262144:64,dram
  bool swap = false;               // --swap
  bool swap_exact = false;         // --swap-exact
  std::optional<int64_t> bandwidth;  // --bandwidth (bytes per time unit, 0 = instantaneous)
  std::optional<int> channels;       // --copy-channels
  std::vector<int64_t> durations;    // --durations 1,1,3,...
  std::string mode;                  // --swap-mode pinned|split
  bool allow_stall = false;          // --allow-stall
  std::string to;                    // --swap-to MEMORY
  std::string transfers;             // --transfers FILE (CSV)
  SwapOptions file;                  // a JSON input's "swap" and "durations" (flags override)
  bool file_swap = false;            // the JSON input has "swap"
};

SpacesArgs& spaces_args();
void add_spaces_options(CLI::App* solve_cmd);

// Reads the space columns/fields of the input and --memories; checks them (InputError).
void load_spaces(Loaded& l, const std::string& input);

// validate's options for plans with memories or absences (--memories, --transfers and the
// copy settings).
void add_validate_spaces_options(CLI::App* validate_cmd);
// validate's reading of the plan file `plan` (CSV, or JSON by its extension): its offsets
// into *offsets and, when it has a `space` or `evictions` column (JSON field), its check
// with validate_spaces / validate_absences / validate_swaps (with --transfers) and the
// verdict printed; returns the exit code, or -1 when the plan has neither column (the file
// is read once).
int validate_plan_file(Loaded& l, const std::string& input, const std::string& plan, std::optional<int64_t> capacity,
                       std::vector<int64_t>* offsets);

// solve with several memories or --swap; returns -1 when neither applies. Writes the plan
// (`output`), the transfers (--transfers) and, with --swap alone, the picture (`svg`), all
// or nothing.
int solve_spaces(Loaded& l, const std::string& input, const std::string& algo, const SolveOptions& opt,
                 const std::string& output, const std::string& svg);


struct ExplainArgs {
  CLI::App* cmd = nullptr;
  std::string input, algo = "auto", lifetimes = "half-open";
  std::optional<int64_t> capacity;
  double time_limit = 1.0;
  ModelOptions model;  // --dim, --input, ... for a model input
};
void add_explain_command(CLI::App& app, ExplainArgs& a);
int run_explain(const ExplainArgs& a);

}  // namespace memplan
