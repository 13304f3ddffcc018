// Internal: which buffer of the problem a plan's row (CSV line or JSON entry) is about, for
// the plan readers (solution.cpp, json.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "memplan/problem.h"

namespace memplan {

// Plans written by memplan keep the problem's order, so row k is first compared with buffer
// k; only when they differ is the id looked up, in a map of views of the problem's ids built
// at the first such row (on 10^6 rows the map alone was half of `memplan validate`).
class PlanRows {
 public:
  explicit PlanRows(const Problem& problem) : problem_(problem) {}  // `problem` outlives this

  // The buffer whose id is `id` (row: the row's rank from 0), or nullopt when none has it.
  std::optional<size_t> buffer_of(std::string_view id, size_t row) {
    const auto& bufs = problem_.buffers;
    if (index_.empty() && row < bufs.size() && bufs[row].id == id) return row;
    if (index_.empty()) {
      index_.reserve(bufs.size());
      for (size_t i = 0; i < bufs.size(); ++i) index_.emplace(bufs[i].id, i);
    }
    const auto it = index_.find(id);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

 private:
  const Problem& problem_;
  std::unordered_map<std::string_view, size_t> index_;
};

}  // namespace memplan
