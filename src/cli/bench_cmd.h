// Internal to the CLI: the `bench` and `report` subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/load.h"

namespace memplan {

struct BenchArgs {
  CLI::App* bench = nullptr;
  CLI::App* report = nullptr;
  std::vector<std::string> inputs, generate;
  std::string algos, output;
  int repeat = 1, threads = 2;
  double time_limit = 2.0;
  uint64_t seed = 1;
  ModelOptions model;  // how .onnx inputs are read
  bool lenient = false;  // unknown JSON fields are warnings, not errors
};

void add_bench_commands(CLI::App& app, BenchArgs& args);
// Exit code: 0, or 1 when some run failed or gave an invalid plan (shown in the output).
int run_bench_command(const BenchArgs& args);

}  // namespace memplan
