// Test helpers: random instances and brute-force references, independent of the library's
// own sweep algorithms.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::testing {

struct RandomSpec {
  int buffers = 8;
  int64_t horizon = 12;
  int64_t max_size = 8;
  bool alignment = false;   // random power-of-two alignments
  bool gaps = false;        // random gaps with windows
};

Problem random_problem(std::mt19937_64& rng, const RandomSpec& spec);

// O(n^2 * T) reference: true iff no two footprints share a (time, byte) cell, all offsets
// >= 0, aligned, pre-placed ones honoured and (if set) within capacity.
bool brute_force_valid(const Problem& p, const std::vector<int64_t>& offsets,
                       std::optional<int64_t> capacity = std::nullopt);

// The true optimal peak by exhaustive search over every offset of every buffer (tiny
// instances only: a handful of buffers with small sizes).
int64_t brute_force_optimum(const Problem& p);

// Max over integer times t of the live footprint width, by direct enumeration.
int64_t brute_force_load(const Problem& p);

std::string source_path(const std::string& relative);  // under the repository root

// True when the tests run instrumented (scripts/sanitize.sh sets MEMPLAN_SANITIZER=1): the
// slow brute-force tests then run the same checks on smaller sizes, never skip them.
bool under_sanitizer();
// `normal`, or `sanitized` under a sanitizer (sizes, trial counts).
inline int64_t sanitizer_scaled(int64_t normal, int64_t sanitized) {
  return under_sanitizer() ? sanitized : normal;
}

// A plain buffer live during [start, end).
Buffer make_buffer(std::string id, int64_t start, int64_t end, int64_t size);

// A deadline that has already passed (its cancellation flag is set): deterministic tests of
// the time-limit polls, never a wall-clock race.
struct PassedDeadline {
  std::atomic<bool> flag{true};
  Deadline deadline{0, &flag};
};

// `memplan generate --kind dnn` with n buffers.
Problem generated_dnn(int64_t n, uint64_t seed);

// idealloc's PLC trace bytes: eight big-endian u64 words per record.
std::string plc_bytes(const std::vector<std::array<uint64_t, 8>>& records);

}  // namespace memplan::testing
