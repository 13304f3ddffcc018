// Sub-problems: a subset of the buffers as a problem of its own (problem.h). One function for
// what the conflict components (solvers/exact/graph_components.cpp), the memories
// (spaces/memories.cpp) and `explain` (driver/explain.cpp) each cut out.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "memplan/problem.h"

namespace memplan {

std::vector<Problem> subproblems(const Problem& p, const std::vector<std::vector<int32_t>>& parts) {
  const size_t n = p.buffers.size();
  std::vector<int32_t> part_of(n, -1), local(n, -1);
  for (size_t c = 0; c < parts.size(); ++c)
    for (size_t k = 0; k < parts[c].size(); ++k) {
      const int32_t i = parts[c][k];
      if (i < 0 || static_cast<size_t>(i) >= n)
        throw std::invalid_argument("subproblem: buffer index " + std::to_string(i) + " out of range");
      if (part_of[i] >= 0) throw std::invalid_argument("subproblem: buffer index " + std::to_string(i) + " repeated");
      part_of[i] = static_cast<int32_t>(c), local[i] = static_cast<int32_t>(k);
    }
  const size_t S = static_cast<size_t>(std::max(p.clock_dim, 0));
  const bool clocks = S > 0 && p.clock_lower.size() == n * S && p.clock_upper.size() == n * S;
  std::vector<Problem> out(parts.size());
  for (size_t c = 0; c < parts.size(); ++c) {
    Problem& sub = out[c];
    sub.capacity = p.capacity;
    sub.buffers.reserve(parts[c].size());
    if (clocks) sub.clock_dim = p.clock_dim;
    for (const int32_t i : parts[c]) {
      sub.buffers.push_back(p.buffers[i]);
      if (clocks) {
        sub.clock_lower.insert(sub.clock_lower.end(), p.clock_lower.begin() + i * S, p.clock_lower.begin() + (i + 1) * S);
        sub.clock_upper.insert(sub.clock_upper.end(), p.clock_upper.begin() + i * S, p.clock_upper.begin() + (i + 1) * S);
      }
    }
    // An in-place link names a buffer by id: to one outside the part it would name nothing.
    if (std::none_of(sub.buffers.begin(), sub.buffers.end(), [](const Buffer& b) { return !b.inplace_of.empty(); }))
      continue;
    std::unordered_set<std::string> here;
    for (const Buffer& b : sub.buffers) here.insert(b.id);
    for (Buffer& b : sub.buffers)
      if (!b.inplace_of.empty() && !here.count(b.inplace_of)) b.inplace_of.clear();
  }
  for (const auto& [a, b] : p.conflicts)  // a pair in one part; a self-pair constrains nothing
    if (a != b && a >= 0 && b >= 0 && static_cast<size_t>(a) < n && static_cast<size_t>(b) < n &&
        part_of[a] >= 0 && part_of[a] == part_of[b])
      out[part_of[a]].conflicts.emplace_back(local[a], local[b]);
  return out;
}

Problem subproblem(const Problem& p, const std::vector<int32_t>& ids) { return std::move(subproblems(p, {ids}).front()); }

}  // namespace memplan
