// Internal to the CLI: reading a problem file by its extension.
#pragma once

#include <optional>
#include <string>

#include "memplan/io.h"

namespace memplan {

struct Loaded {
  Problem problem;
  std::optional<CsvTable> table;  // CSV input: header and unknown columns, to write back in kind
};

// True iff `path` ends with `suffix` (e.g. ".json").
bool has_extension(const std::string& path, const std::string& suffix);

// .onnx (when built with ONNX), .json, .plc (idealloc binary trace), anything else CSV with
// `lifetimes` "half-open" or "inclusive". Throws InputError on bad input. `lenient`: unknown
// JSON fields are warnings, not errors. Warnings (also a CSV column one edit away from a
// known one) go to stderr.
Loaded load_problem_as_given(const std::string& path, const std::string& lifetimes,
                             bool lenient = false);

}  // namespace memplan
