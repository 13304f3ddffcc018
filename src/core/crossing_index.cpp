#include "core/crossing_index.h"

#include <algorithm>

#include "core/index_memory.h"

namespace memplan {

// Most inserts land at the top of the set (measured: 2 of 3 of the 39M inserts of a
// first-fit pass over 1M training buffers, whose sets hold thousands of runs): checking the
// last two runs first spares them the binary search's cache misses over the whole set.
void insert_run(std::vector<AddressRun>& set, int64_t lo, int64_t hi) {
  // The first run that ends at or above lo (runs are sorted by lo and by hi alike).
  const size_t n = set.size();
  auto first = set.end();
  if (n > 0 && set[n - 1].hi >= lo) {
    if (n == 1 || set[n - 2].hi < lo) first = set.end() - 1;
    else first = std::partition_point(set.begin(), set.end() - 2, [&](const AddressRun& r) { return r.hi < lo; });
  }
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

void prefetch_tops(const std::vector<std::vector<AddressRun>*>& sets) {
  for (const std::vector<AddressRun>* set : sets)
    if (!set->empty()) __builtin_prefetch(set->data() + set->size() - 1);
}

void CrossingIndex::init(int32_t slots, int32_t block) {
  block_ = std::max<int32_t>(block, 1);
  blocks_ = std::max<int32_t>(1, (slots + block_ - 1) / block_);
  // A recursive halving of [0, blocks) numbers its nodes below 4 * blocks.
  nodes_.assign(4 * static_cast<size_t>(blocks_), Node{});
  touched_.clear();
  set_inserts_ = 0;
}

void CrossingIndex::clear() {
  for (int32_t v : touched_) nodes_[v].here.clear(), nodes_[v].all.clear();
  touched_.clear();
}

// As in OccupancyIndex::add: the sets are listed, their top runs prefetched, then filled.
void CrossingIndex::add(int32_t a, int32_t b, int64_t lo, int64_t hi) {
  targets_.clear();
  int32_t v = 1, l = 0, r = blocks_;
  for (;;) {
    if (nodes_[v].all.empty()) touched_.push_back(v);
    targets_.push_back(&nodes_[v].all);
    if (r - l < 2) break;  // a leaf block: all(v) is here(v), never read separately
    const int32_t m = (l + r) / 2;
    const int64_t cut = int64_t(m) * block_;
    if (a < cut && cut < b) {  // crosses the boundary
      targets_.push_back(&nodes_[v].here);
      break;
    }
    if (b <= cut) v = 2 * v, r = m;
    else v = 2 * v + 1, l = m;
  }
  prefetch_tops(targets_);
  set_inserts_ += static_cast<int64_t>(targets_.size());
  for (std::vector<AddressRun>* set : targets_) insert_run(*set, lo, hi);
}

void CrossingIndex::memory(IndexMemory& m) const {
  m.headers[IndexMemory::kCrossHere] += static_cast<int64_t>(nodes_.size());
  m.headers[IndexMemory::kCrossAll] += static_cast<int64_t>(nodes_.size());
  for (const Node& v : nodes_) count_set(v.here, m, IndexMemory::kCrossHere), count_set(v.all, m, IndexMemory::kCrossAll);
  m.other_bytes += static_cast<int64_t>(touched_.capacity() * sizeof(int32_t));
}

}  // namespace memplan
