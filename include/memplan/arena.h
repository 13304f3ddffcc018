// memplan: a runtime arena that applies a plan. One aligned block of `peak` bytes; buffer i
// lives at base + offsets[i]. The plan is validated on construction, so a running program
// never gets overlapping live buffers from a bad plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

class Arena {
 public:
  // Throws std::invalid_argument when the plan does not validate against the problem.
  // The block is aligned to the largest buffer alignment (at least alignof(max_align_t)).
  Arena(const Problem& problem, const Solution& plan);

  std::byte* data(size_t buffer) const { return base_ + offsets_.at(buffer); }
  std::byte* data(const std::string& id) const { return data(index_.at(id)); }
  size_t size_bytes() const { return size_; }
  std::byte* base() const { return base_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> block_;
  std::byte* base_ = nullptr;
  size_t size_ = 0;
  std::vector<int64_t> offsets_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace memplan
