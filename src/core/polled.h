// Internal: deadline polling for the O(n log n) set-up steps (orders, indexes, the online
// plan, validation), so that a time limit is honoured even when one of them alone takes
// longer than the time left (1,000,000 buffers: 0.1-0.8 s of CPU each, several times that
// in wall time on a loaded machine).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "memplan/solver.h"

namespace memplan {

// Counts items and reads the clock every 4096 of them (a clock read costs ~25 ns; 4096
// items of a sweep take ~50 us): poll() is true once the deadline (if any) has passed.
class Poll {
 public:
  explicit Poll(const Deadline* deadline) : deadline_(deadline) {}
  bool operator()() { return deadline_ && (++count_ & 4095) == 0 && deadline_->expired(); }
  bool expired() const { return deadline_ && deadline_->expired(); }

 private:
  const Deadline* deadline_;
  uint32_t count_ = 0;
};

namespace polled_detail {

// A block's sort: stable, or (kTotal: `less` orders any two distinct elements, so every sort
// gives the same result) std::sort, which is cheaper (greedy's 16 orders on 800 buffers spent
// a third more time sorting with the stable one).
template <bool kTotal, class It, class Less>
void sort_block(It first, It last, Less less) {
  if constexpr (kTotal) std::sort(first, last, less);
  else std::stable_sort(first, last, less);
}

// Numbers, or pairs of numbers, compared whole by std::less: equal ones cannot be told
// apart, so any sort will do.
template <class T>
constexpr bool kNumbers = std::is_arithmetic_v<T>;
template <class A, class B>
constexpr bool kNumbers<std::pair<A, B>> = std::is_arithmetic_v<A> && std::is_arithmetic_v<B>;
template <class T, class Less>
constexpr bool kPlainValues = kNumbers<T> && (std::is_same_v<Less, std::less<>> || std::is_same_v<Less, std::less<T>>);

// The sort behind sort_until / sort_until_stop: `expired()` is read between blocks of 2^13
// items and every 4096 items of the merges.
template <bool kTotal, class T, class Less, class Expired>
bool sort_polled(std::vector<T>& v, Less less, Expired&& expired) {
  constexpr size_t kBlock = size_t{1} << 13;
  const size_t n = v.size();
  if (n <= kBlock) {
    sort_block<kTotal>(v.begin(), v.end(), less);
    return true;
  }
  for (size_t lo = 0; lo < n; lo += kBlock) {
    if (expired()) return false;
    sort_block<kTotal>(v.begin() + lo, v.begin() + std::min(n, lo + kBlock), less);
  }
  // Bottom-up merges of sorted runs; stable: the left run wins ties.
  std::vector<T> tmp(n);
  uint32_t count = 0;
  for (size_t width = kBlock; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(n, lo + width), hi = std::min(n, lo + 2 * width);
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if ((++count & 4095) == 0 && expired()) return false;
        tmp[k++] = less(v[j], v[i]) ? std::move(v[j++]) : std::move(v[i++]);
      }
      std::move(v.begin() + i, v.begin() + mid, tmp.begin() + k);
      std::move(v.begin() + j, v.begin() + hi, tmp.begin() + k + (mid - i));
    }
    v.swap(tmp);
  }
  return true;
}

}  // namespace polled_detail

// Sorts v by `less` (a stable sort), checking the deadline between blocks of 2^13 items and
// every 4096 items of its merges, so that no step between two checks takes more than about
// a millisecond of CPU (on a machine loaded 10-15 times over, 10 ms of CPU are 0.1-0.15 s of
// wall time: the whole tolerance of a short limit).
// Returns false, leaving v permuted, when the deadline passed before it was done (a sort that
// got done is kept, however late: a small one is not checked at all). Without a deadline it
// is std::stable_sort.
template <class T, class Less>
bool sort_until(std::vector<T>& v, Less less, const Deadline* deadline) {
  constexpr bool kTotal = polled_detail::kPlainValues<T, Less>;
  if (!deadline) {
    polled_detail::sort_block<kTotal>(v.begin(), v.end(), less);
    return true;
  }
  return polled_detail::sort_polled<kTotal>(v, less, [deadline] { return deadline->expired(); });
}

// sort_until for a `less` that is a strict total order on v's elements (no ties between
// distinct ones, e.g. keys that end in the index): the one sorted order, found by
// std::sort in the blocks instead of the stable sort.
template <class T, class Less>
bool sort_total_until(std::vector<T>& v, Less less, const Deadline* deadline) {
  if (!deadline) {
    std::sort(v.begin(), v.end(), less);
    return true;
  }
  return polled_detail::sort_polled<true>(v, less, [deadline] { return deadline->expired(); });
}

// The same, polling a stop predicate (the timeline module's `stop` callbacks) instead of a
// deadline; an empty one never stops.
template <class T, class Less>
bool sort_until_stop(std::vector<T>& v, Less less, const std::function<bool()>& stop) {
  constexpr bool kTotal = polled_detail::kPlainValues<T, Less>;
  if (!stop) {
    polled_detail::sort_block<kTotal>(v.begin(), v.end(), less);
    return true;
  }
  return polled_detail::sort_polled<kTotal>(v, less, stop);
}

}  // namespace memplan
