#include "core/occupancy_index.h"

#include <algorithm>
#include <bit>

#include "core/arith.h"
#include "core/index_memory.h"

namespace memplan {

void OccupancyIndex::init(int32_t slots, int32_t block) {
  block_ = std::max<int32_t>(block, 1);
  const int32_t blocks = std::max<int32_t>(1, (slots + block_ - 1) / block_);
  leaves_ = 1;
  while (leaves_ < blocks) leaves_ *= 2;
  nodes_.assign(2 * static_cast<size_t>(leaves_), Node{});
  raw_.assign(static_cast<size_t>(leaves_), {});
  raw_touched_.assign(static_cast<size_t>(leaves_), 0);
  touched_.clear();
  floors_.assign(2 * static_cast<size_t>(leaves_), {});
  floored_.clear();
  set_inserts_ = 0;
  floor_steps_ = 0;
  crossing_.init(slots, block_);
  crossing_on_ = false;
  floors_on_ = false;
}

void OccupancyIndex::set_crossing(bool on) {
  crossing_.clear();
  crossing_on_ = on;
}

void OccupancyIndex::set_floors(bool on) {
  for (int32_t v : floored_) floors_[v].clear();
  floored_.clear();
  floors_on_ = on;
}

void OccupancyIndex::clear() {
  set_crossing(false);
  set_floors(false);
  for (int32_t t : touched_) {
    if (t < 2 * leaves_) {
      Node& v = nodes_[t];
      v.here.clear();
      v.below.clear();
      v.inserts = 0;
      v.touched = false;
    } else {
      raw_[t - 2 * leaves_].clear();
      raw_touched_[t - 2 * leaves_] = 0;
    }
  }
  touched_.clear();
}

void OccupancyIndex::touch(int32_t node) {
  if (node < 2 * leaves_) {
    if (!nodes_[node].touched) nodes_[node].touched = true, touched_.push_back(node);
  } else if (!raw_touched_[node - 2 * leaves_]) {
    raw_touched_[node - 2 * leaves_] = 1, touched_.push_back(node);
  }
}

// Calls f(node) for the canonical nodes of the blocks [fa, fb) (fa < fb).
template <class F>
void OccupancyIndex::canonical(int32_t fa, int32_t fb, F&& f) const {
  for (int32_t l = fa + leaves_, r = fb + leaves_; l < r; l /= 2, r /= 2) {
    if (l & 1) f(l++);
    if (r & 1) f(--r);
  }
}

// The sets a piece goes into lie scattered in memory (~39 per piece, crossing sets included,
// at 1M training buffers; most inserts land at a set's top run, and reading it was 65 % of
// insert_run's time, a cache miss): they are listed first and their top runs prefetched
// (prefetch_tops), so that the misses overlap instead of coming one after the other.
void OccupancyIndex::add(int32_t a, int32_t b, int64_t lo, int64_t hi) {
  if (crossing_on_) crossing_.add(a, b, lo, hi);
  const int32_t fa = (a + block_ - 1) / block_, fb = b / block_;  // fully covered blocks
  ++now_;
  targets_.clear();
  auto up = [&](int32_t node) {  // below() of node and its ancestors, each once
    for (; node >= 1 && nodes_[node].stamp != now_; node /= 2) {
      nodes_[node].stamp = now_;
      touch(node);
      targets_.push_back(&nodes_[node].below);
    }
  };
  if (fa < fb)
    canonical(fa, fb, [&](int32_t node) {
      touch(node);
      targets_.push_back(&nodes_[node].here);
      ++nodes_[node].inserts;
      up(node);
    });
  auto partial = [&](int32_t block) {
    touch(2 * leaves_ + block);
    // Kept sorted by lo (ties: insertion order), so that a query merges the raw pieces it
    // meets without sorting them (a block holds ~32-80 of them; the sort was most of a
    // partial block's cost in sources()).
    std::vector<Raw>& raw = raw_[block];
    raw.insert(std::upper_bound(raw.begin(), raw.end(), lo, [](int64_t v, const Raw& r) { return v < r.lo; }),
               Raw{a, b, lo, hi});
    up(leaves_ + block);
  };
  const int32_t ba = a / block_, bb = (b - 1) / block_;
  if (fa >= fb) {  // no full block: one or two partial ones
    partial(ba);
    if (bb != ba) partial(bb);
  } else {
    if (ba < fa) partial(ba);
    if (bb >= fb) partial(bb);
  }
  prefetch_tops(targets_);
  set_inserts_ += static_cast<int64_t>(targets_.size());
  for (std::vector<Run>* set : targets_) insert_run(*set, lo, hi);
}

void OccupancyIndex::sources(int32_t a, int32_t b, int64_t ql, int64_t qh, std::vector<Source>& out,
                             std::vector<Run>& scratch) const {
  const int32_t fa = (a + block_ - 1) / block_, fb = b / block_;
  ++now_;
  auto add_set = [&](const std::vector<Run>& s) {
    if (!s.empty()) out.push_back({s.data(), s.data() + s.size(), ql, qh, 0, 0});
  };
  if (crossing_on_) crossing_.sets(a, b, add_set);  // first: their long runs move a walk furthest
  auto path = [&](int32_t node) {  // here() of node and its ancestors, each once
    for (; node >= 1 && nodes_[node].stamp != now_; node /= 2) {
      nodes_[node].stamp = now_;
      add_set(nodes_[node].here);
    }
  };
  if (fa < fb)
    canonical(fa, fb, [&](int32_t node) {
      add_set(nodes_[node].below);
      path(node / 2);
    });
  auto partial = [&](int32_t block) {
    path(leaves_ + block);
    const size_t from = scratch.size();
    for (const Raw& r : raw_[block])
      if (r.a < b && a < r.b) scratch.push_back({r.lo, r.hi});
    if (scratch.size() == from) return;  // (in lo order: raw_ is kept sorted)
    size_t w = from;  // merge in place
    for (size_t k = from + 1; k < scratch.size(); ++k) {
      if (scratch[k].lo <= scratch[w].hi) scratch[w].hi = std::max(scratch[w].hi, scratch[k].hi);
      else scratch[++w] = scratch[k];
    }
    scratch.resize(w + 1);
    out.push_back({nullptr, nullptr, ql, qh, from, scratch.size()});
  };
  const int32_t ba = a / block_, bb = (b - 1) / block_;
  if (fa >= fb) {
    partial(ba);
    if (bb != ba) partial(bb);
  } else {
    if (ba < fa) partial(ba);
    if (bb >= fb) partial(bb);
  }
}

int64_t OccupancyIndex::settle(Source* src, int64_t* next, size_t m, int64_t x, int64_t align, int64_t& steps,
                              int64_t& low) {
  for (;;) {
    low = INT64_MAX;  // of next[] after this pass
    for (size_t k = 0; k < m; ++k) {
      if (next[k] <= x) {
        Source& s = src[k];
        const Run* r = advance(s, x + s.ql);
        for (; r != s.end && r->lo < x + s.qh; r = advance(s, x + s.ql)) {
          x = align_up(r->hi - s.ql, align);
          ++steps;
        }
        next[k] = r == s.end ? INT64_MAX : r->lo - s.qh + 1;
      }
      low = std::min(low, next[k]);
    }
    // Sources passed before x last moved may block it again; if none can, x is feasible.
    if (low > x) return x;
  }
}

// Floors. On training traces in area or pressure order, a short-lived query's forbidden
// addresses are one long interval made of runs that alternate between the here() sets of two
// or three of its block's ancestors (long activations, grouped by where their lifetimes end)
// with no free gap between them; the walk passes every run (measured at 50k buffers: ~350
// runs and ~160 passes over the ~10 sources per query, growing linearly with n). A summary of
// each set's own gaps does not help: within one set the gaps are wide (the other sets' runs);
// only their union has none (a skip over runs of one set followed by gaps narrower than the
// query passed 19 of the 349). So the union itself is summarized, per node v and width class
// k: floor(v, k) = the start of the first free range of length >= 2^k in the union U(v) of
// here() over v and its ancestors. A query of width w >= 2^k whose sources include U(v)
// collides at every relative address below it: a window of w bytes starting there starts in
// a run or in a free range shorter than w, so it meets a run.
// Upkeep is amortized: pieces are only added, so free ranges only shrink and split, and
// floor(v, k) only rises; U(parent) is a subset of U(v), so floor(v, k) >= floor(parent, k).
// A stale floor is raised by a walk over U(v)'s sets (settle with a window of 2^k) from
// max(floor(v, k), floor(parent, k)): each node walks each stretch of addresses once per
// class, instead of once per query. Staleness is detected by the number of runs inserted
// into here() along the path (a sum of counters that only grow).
int64_t OccupancyIndex::path_floor(int32_t node, int32_t k, uint64_t& version) const {
  int64_t from = 0;
  version = nodes_[node].inserts;
  if (node > 1) {
    uint64_t up = 0;
    from = path_floor(node / 2, k, up);
    version += up;
  }
  std::vector<Floor>& fl = floors_[node];
  auto it = std::find_if(fl.begin(), fl.end(), [&](const Floor& f) { return f.k == k; });
  if (it == fl.end()) {
    if (fl.empty()) floored_.push_back(node);
    fl.push_back({k, UINT64_MAX, 0});
    it = fl.end() - 1;
  }
  if (it->version == version) return it->at;
  from = std::max(from, it->at);
  floor_src_.clear();
  for (int32_t v = node; v >= 1; v /= 2) {
    const std::vector<Run>& s = nodes_[v].here;
    if (!s.empty()) floor_src_.push_back({s.data(), s.data() + s.size(), 0, int64_t{1} << k, 0, 0, s.data()});
  }
  floor_next_.assign(floor_src_.size(), INT64_MIN);
  int64_t steps = 0, low = 0;
  it->at = settle(floor_src_.data(), floor_next_.data(), floor_src_.size(), from, 1, steps, low);
  floor_steps_ += steps;
  it->version = version;
  return it->at;
}

int64_t OccupancyIndex::floor(int32_t a, int32_t b, int64_t width) const {
  if (!floors_on_ || width <= 0) return 0;
  const int32_t k = std::bit_width(static_cast<uint64_t>(width)) - 1;  // 2^k <= width
  int64_t at = 0;
  uint64_t version = 0;
  // The query's sources include U(parent of each canonical node) and U(each partial block).
  const int32_t fa = (a + block_ - 1) / block_, fb = b / block_;
  if (fa < fb)
    canonical(fa, fb, [&](int32_t node) {
      if (node > 1) at = std::max(at, path_floor(node / 2, k, version));
    });
  const int32_t ba = a / block_, bb = (b - 1) / block_;
  if (fa >= fb || ba < fa) at = std::max(at, path_floor(leaves_ + ba, k, version));
  if (bb != ba && (fa >= fb || bb >= fb)) at = std::max(at, path_floor(leaves_ + bb, k, version));
  return at;
}

void OccupancyIndex::memory(IndexMemory& m) const {
  m.headers[IndexMemory::kHere] += static_cast<int64_t>(nodes_.size());
  m.headers[IndexMemory::kBelow] += static_cast<int64_t>(nodes_.size());
  for (const Node& v : nodes_) count_set(v.here, m, IndexMemory::kHere), count_set(v.below, m, IndexMemory::kBelow);
  count_sets(raw_, m, IndexMemory::kRaw);
  crossing_.memory(m);
  // The nodes' bytes beyond their two vector headers (counted above, 24 bytes each).
  m.other_bytes += static_cast<int64_t>(nodes_.capacity() * (sizeof(Node) - 2 * sizeof(std::vector<Run>)) +
                                        touched_.capacity() * sizeof(int32_t) + raw_touched_.capacity() +
                                        floors_.capacity() * sizeof(std::vector<Floor>));
  for (const std::vector<Floor>& f : floors_) m.other_bytes += malloc_chunk(f.capacity() * sizeof(Floor));
}

}  // namespace memplan
