// memplan: the independent plan checker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

struct Validation {
  bool ok = true;
  int64_t peak = 0;
  std::vector<std::string> errors;  // the first violations, in words (at most max_errors)
};

// Checks offsets against the problem: one offset per buffer, offset >= 0, alignment,
// pre-placed offsets, offset + size without overflow and within the capacity (if any),
// and no two buffers whose footprints (gaps honoured) intersect in both time and memory.
// O(n log n + reported violations) by a sweep over time with an ordered map of the
// occupied address ranges.
Validation validate(const Problem& problem, const std::vector<int64_t>& offsets,
                    std::optional<int64_t> capacity = std::nullopt, int max_errors = 10);

}  // namespace memplan
