// memplan: why a problem does not fit a capacity.
//
// Two cases. (1) LOAD > capacity: some instants carry more live bytes than the capacity, so
// no plan of any solver can fit; the explanation names those instants (as maximal runs), the
// worst one (the first instant of highest load), its load and the buffers live there,
// largest first. (2) LOAD <= capacity but the solver proved infeasibility or found no plan:
// a deletion filter (as MiniMalloc's IIS search) removes buffers one at a time while the
// rest still does not fit, leaving a small subset that does not fit on its own, and the
// best peak the solver reaches without a capacity is reported. The filter stops at the
// time limit; `core_minimal` says whether every buffer was tried.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

struct Explanation {
  int64_t capacity = 0;
  bool load_exceeds = false;   // case (1)
  // Case (1): maximal runs [start, end) of instants whose load exceeds the capacity.
  std::vector<std::pair<int64_t, int64_t>> overloaded;
  int64_t worst_time = 0;      // first instant of the highest load
  int64_t worst_load = 0;      // its load (= LOAD)
  std::vector<size_t> live;    // buffers present at worst_time, size descending (ties: index)
  // Case (2).
  std::vector<size_t> core;    // a subset that does not fit the capacity on its own
  bool core_proven = false;    // the core itself was proven not to fit (by the check that made it the core)
  bool core_minimal = false;   // the filter tried every buffer before the time limit
  std::optional<int64_t> best_peak;  // the solver's peak without a capacity

  // One token for the summary line, e.g. "t=12:load=9>8" or "core=3:best_peak=9".
  std::string summary(const Problem& p) const;
  // The full multi-line report (at most `max_named` buffers named per list).
  std::string report(const Problem& p, size_t max_named = 20) const;
};

// Per-instant live bytes (gaps count their window width; an in-place chain counts as the
// largest live member, constraints.h inplace_merged, as the plans place it):
// the load is constant on each [times[k], times[k+1]) and load[k] applies there.
struct LoadProfile {
  std::vector<int64_t> times;
  std::vector<int64_t> load;
};
LoadProfile load_profile(const Problem& p);

// Explains why `problem` does not fit `capacity` with solver `algo` (the deletion filter and
// best peak use it, within options.time_limit_seconds). Case (1) never calls the solver.
// solve() calls this itself when no plan fits (SolveOptions::explain, SolveResult::explanation).
Explanation explain(const Problem& problem, int64_t capacity, const std::string& algo,
                    const SolveOptions& options);
Explanation explain(const Problem& problem, int64_t capacity, const SolverInfo& algo,
                    const SolveOptions& options);

}  // namespace memplan
