#include "core/crossing_index.h"

#include <algorithm>

namespace memplan {

void insert_run(std::vector<AddressRun>& set, int64_t lo, int64_t hi) {
  auto first = std::partition_point(set.begin(), set.end(), [&](const AddressRun& r) { return r.hi < lo; });
  auto last = first;
  while (last != set.end() && last->lo <= hi) {
    lo = std::min(lo, last->lo);
    hi = std::max(hi, last->hi);
    ++last;
  }
  if (first == last) {
    set.insert(first, AddressRun{lo, hi});
  } else {
    *first = {lo, hi};
    set.erase(first + 1, last);
  }
}

void CrossingIndex::init(int32_t slots, int32_t block) {
  block_ = std::max<int32_t>(block, 1);
  blocks_ = std::max<int32_t>(1, (slots + block_ - 1) / block_);
  // A recursive halving of [0, blocks) numbers its nodes below 4 * blocks.
  here_.assign(4 * static_cast<size_t>(blocks_), {});
  all_.assign(4 * static_cast<size_t>(blocks_), {});
  touched_.clear();
}

void CrossingIndex::clear() {
  for (int32_t v : touched_) here_[v].clear(), all_[v].clear();
  touched_.clear();
}

void CrossingIndex::add(int32_t a, int32_t b, int64_t lo, int64_t hi) {
  int32_t v = 1, l = 0, r = blocks_;
  for (;;) {
    if (all_[v].empty()) touched_.push_back(v);
    insert_run(all_[v], lo, hi);
    if (r - l < 2) return;  // a leaf block: all(v) is here(v), never read separately
    const int32_t m = (l + r) / 2;
    const int64_t cut = int64_t(m) * block_;
    if (a < cut && cut < b) return insert_run(here_[v], lo, hi);  // crosses the boundary
    if (b <= cut) v = 2 * v, r = m;
    else v = 2 * v + 1, l = m;
  }
}

}  // namespace memplan
