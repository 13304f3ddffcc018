// memplan: benchmark runs and their reports (tables, charts, one self-contained HTML page).
// Standard library only; the CLI's `bench` and `report` commands are thin wrappers.
#pragma once

#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

struct BenchInput {
  std::string name;
  Problem problem;
};

struct BenchRow {
  std::string input, solver;
  int64_t buffers = 0, load = 0;
  int64_t peak = -1;          // -1: no plan
  double seconds = 0;         // mean wall time over repetitions
  bool valid = false;         // the independent checker accepted the plan
  std::string status, error;  // status name; error text when the run failed or was invalid
  std::vector<int64_t> offsets;  // the plan (kept for pictures)
  double ratio() const { return peak > 0 && load > 0 ? double(peak) / double(load) : 0; }
};

// Runs every solver on every input `repeat` times (time limit per run), validating each plan.
// A failed validation or an exception becomes an error in the row, never a missing row.
std::vector<BenchRow> run_bench(const std::vector<BenchInput>& inputs,
                                const std::vector<std::string>& solvers, const SolveOptions& options,
                                int repeat = 1);

std::string bench_markdown(const std::vector<BenchRow>& rows);  // peak/LOAD and seconds tables
std::string bench_csv(const std::vector<BenchRow>& rows);
// Grouped bars of peak/LOAD per solver per input (the idealloc paper's Figure 6 style).
std::string ratio_chart_svg(const std::vector<BenchRow>& rows);
// Solve time against number of buffers, log-log, one series per solver.
std::string time_chart_svg(const std::vector<BenchRow>& rows);
// One self-contained page (no network): tables, both charts, and a zoomable picture of the
// best plan of each input with buffer details on hover.
std::string report_html(const std::vector<BenchInput>& inputs, const std::vector<BenchRow>& rows);

}  // namespace memplan
