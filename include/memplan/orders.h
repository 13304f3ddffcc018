// memplan: the standard placement orders used by greedy solvers and as seeds elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

enum class Order {
  kSizeDesc,    // size desc, then length desc, then start asc
  kAreaDesc,    // size * length desc, then size desc
  kLengthDesc,  // length desc, then size desc
  kStartAsc,    // start asc, then size desc (the order buffers appear in a schedule)
  kConflictDesc,      // number of lifetime-overlapping buffers desc, then size desc
  kConflictSizeDesc,  // total size of lifetime-overlapping buffers desc, then size desc
  kPressureDesc,      // "TAW": highest live total during the lifetime desc, then area, length
  kLengthAreaPressure,  // "WAT": length desc, then area, then live total
};

const char* order_name(Order o);  // "size", "area", "length", "start"
inline constexpr Order kAllOrders[] = {Order::kSizeDesc,         Order::kAreaDesc,
                                       Order::kLengthDesc,       Order::kStartAsc,
                                       Order::kConflictDesc,     Order::kConflictSizeDesc,
                                       Order::kPressureDesc,     Order::kLengthAreaPressure};

// Per buffer: the largest total size live at any instant of its lifetime (MiniMalloc's "T"
// key). O(n log n) with a sparse table over the load profile.
std::vector<int64_t> lifetime_pressure(const Problem& p, const Deadline* deadline = nullptr);
// Per buffer: how many other buffers' lifetimes overlap it, and their total size. O(n log n).
std::vector<int64_t> conflict_counts(const Problem& p, const Deadline* deadline = nullptr);
std::vector<int64_t> conflict_sizes(const Problem& p, const Deadline* deadline = nullptr);

// Buffer indices sorted by the order; ties are broken by index, so the result is
// deterministic.
// With a deadline, these poll it (every 4096 items and in their sorts; 1,000,000 buffers
// take 0.1-0.8 s of CPU per order) and return an empty vector once it has passed.
std::vector<int32_t> make_order(const Problem& p, Order o, const Deadline* deadline = nullptr);

}  // namespace memplan
