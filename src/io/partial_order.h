// Internal: lifetimes given as a partial order in a problem file (CSV and JSON readers).
// A row is in one of three forms: scalar [lower, upper) (the default), vector clocks
// (lower/upper with one component per stream: "a:b:c" in CSV, arrays in JSON), or a
// stream program (`stream`, op positions lower/upper on it, `deps`, `reads`; streams.h).
// All rows of a file use one form. The clock and stream forms lower to a Problem whose
// [start, end) is a linear extension plus the explicit conflicts it hides (streams.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

enum class RowForm { kScalar, kClock, kStream };

struct OrderRow {
  std::string where;  // "file:line" or "file: buffers[k]", for messages
  RowForm form = RowForm::kScalar;
  std::vector<int64_t> lower, upper;  // kClock
  int64_t stream = 0, op_lower = 0, op_upper = 0;  // kStream
  std::string upper_name = "upper";                // kStream: the column op_upper came from, for messages
  std::vector<std::string> deps;                   // kStream: ids dead before the producer
  std::vector<std::pair<int64_t, int64_t>> reads;  // kStream: last readers (stream, op)
};

// Replaces the lifetimes of `p` (buffers in row order, other fields kept) by the partial
// order of `rows`, when they are not scalar; explicit conflicts already in `p` are kept.
// `field_word` is "column" (CSV) or "field" (JSON). Throws InputError naming the row and
// field: mixed forms, clocks of different lengths, lower > upper, an unknown or
// self-referencing id in deps, a cycle (deadlock), more than 64 streams, gaps, in-place,
// groups or a two-ended side together with a partial order. `stop` is polled while the
// conflicts are derived; when it says so, DerivationStopped (streams.h) is thrown.
void apply_partial_order(Problem& p, const std::vector<OrderRow>& rows, const std::string& name,
                         const std::string& field_word, const std::function<bool()>& stop = {});

// "a:b:c" -> {a, b, c} (false when `text` has no ':'); throws InputError via `fail` on a bad
// component.
bool parse_clock(const std::string& text, std::vector<int64_t>& out, std::string& error);

}  // namespace memplan
