// The dive on a conflict graph (graph_dive.h). A MinTree over buffer indices holds the
// candidates by (minimum offset, rank), a second one the tops at minimum offsets
// (dominance); per section of the [start, end) axis the sizes still unplaced (inference).
// A placement raises the floors of its unplaced neighbours, read from the adjacency lists.
#include "solvers/exact/graph_dive.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include "core/arith.h"
#include "solvers/exact/dive_trees.h"

namespace memplan::exact {

GraphDiveInput::GraphDiveInput(const Problem& problem, const ConflictGraph& graph) : p(problem), g(graph) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::vector<int64_t> start(n), end(n), size(n);
  fixed.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    const Buffer& b = p.buffers[i];
    start[i] = b.start, end[i] = b.end, size[i] = b.offset ? 0 : b.size;
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
      if (const Buffer& f = p.buffers[g.adj[k]]; f.offset) fixed[i].emplace_back(*f.offset, sat_add(*f.offset, f.size));
    std::sort(fixed[i].begin(), fixed[i].end());
  }
  sections = sections_of(start, end, size);
}

namespace {

class GraphDiver {
 public:
  GraphDiver(const GraphDiveInput& in, int64_t cap, const std::vector<int32_t>& rank, const Deadline& deadline)
      : in_(in), p_(in.p), g_(in.g), cap_(cap), rank_(rank), deadline_(deadline),
        n_(static_cast<int32_t>(p_.buffers.size())), mo_(n_, 0), offset_(n_, 0), placed_(n_, 0),
        remaining_(in.sections.total), cand_(n_), tops_(n_) {
    for (int32_t i = 0; i < n_; ++i) {
      if (const Buffer& b = p_.buffers[i]; b.offset) {
        placed_[i] = 1, offset_[i] = *b.offset;
        continue;
      }
      ++left_;
      mo_[i] = clear_fixed(i, 0);
      cand_.assign(i, mo_[i], rank_[i]), tops_.assign(i, sat_add(mo_[i], p_.buffers[i].size), 0);
    }
    cand_.rebuild(0, n_), tops_.rebuild(0, n_);
  }

  std::optional<std::vector<int64_t>> run() {
    for (int32_t i = 0; i < n_; ++i)
      if (placed_[i] && sat_add(offset_[i], p_.buffers[i].size) > cap_) return std::nullopt;
    const int32_t sections = in_.sections.count();
    int64_t cur = 0;  // the canonical sequence's last offset
    for (int64_t steps = 0; left_ > 0; ++steps) {
      if ((steps & 255) == 255 && deadline_.expired()) return std::nullopt;
      const int64_t tight = remaining_.max(0, sections);
      // Every unplaced buffer lands at or above cur, so each section's rest must fit there.
      if (sat_add(cur, tight) > cap_) return std::nullopt;
      const int32_t i = next(cur, tight);
      if (i < 0) return std::nullopt;
      cur = mo_[i];
      place(i);
    }
    return offset_;
  }

 private:
  // The lowest aligned offset >= floor clear of i's pre-placed neighbours.
  int64_t clear_fixed(int32_t i, int64_t floor) const {
    const Buffer& b = p_.buffers[i];
    int64_t x = align_up(floor, b.alignment);
    for (const auto& [lo, hi] : in_.fixed[i]) {
      if (sat_add(x, b.size) <= lo) break;
      if (x < hi) x = align_up(hi, b.alignment);
    }
    return x;
  }

  // The search's first child: the least (minimum offset, rank) candidate at or above cur
  // that passes its tests, or -1. A candidate that fails (or lies below cur: no canonical
  // sequence places it now) leaves the tree until a placement raises its floor.
  int32_t next(int64_t cur, int64_t tight) {
    int32_t tight_at = -1;
    for (;;) {
      const int32_t i = cand_.best(0, n_).pos;
      if (i < 0) return -1;
      const int64_t at = mo_[i];
      const Buffer& b = p_.buffers[i];
      if (at < cur) {
        cand_.remove(i);
        continue;
      }
      if (sat_add(at, b.size) > cap_) return -1;  // minimum offsets only rise: it never fits
      // Dominance (§4.2 item 3): another unplaced buffer fits entirely at or below `at`; so
      // does every later candidate (their offsets are no lower): the search's node fails.
      if (std::min(tops_.best(0, i), tops_.best(i + 1, n_)).key <= at) return -1;
      const int32_t lo = in_.sections.lo[i], hi = in_.sections.hi[i];
      bool ok = sat_add(at, remaining_.max(lo, hi)) <= cap_;
      if (ok && sat_add(at, tight) > cap_) {  // the tightest section needs this buffer now
        if (tight_at < 0) tight_at = remaining_.first(0, in_.sections.count(), tight);
        ok = tight_at >= lo && tight_at < hi;
      }
      if (ok) return i;
      cand_.remove(i);
    }
  }

  void place(int32_t i) {
    const Buffer& b = p_.buffers[i];
    const int64_t top = sat_add(mo_[i], b.size);
    placed_[i] = 1, offset_[i] = mo_[i], --left_;
    cand_.remove(i), tops_.remove(i);
    remaining_.add(in_.sections.lo[i], in_.sections.hi[i], -b.size);
    raised_.clear();
    for (int64_t k = g_.begin[i]; k < g_.begin[i + 1]; ++k) {
      const int32_t j = g_.adj[k];
      if (placed_[j] || mo_[j] >= top) continue;  // floors only rise
      mo_[j] = clear_fixed(j, top);
      cand_.assign(j, mo_[j], rank_[j]);
      tops_.assign(j, sat_add(mo_[j], p_.buffers[j].size), 0);
      raised_.push_back(j);
    }
    std::sort(raised_.begin(), raised_.end());
    scratch_ = raised_;
    cand_.rebuild_at(raised_);
    tops_.rebuild_at(scratch_);
  }

  const GraphDiveInput& in_;
  const Problem& p_;
  const ConflictGraph& g_;
  const int64_t cap_;
  const std::vector<int32_t>& rank_;
  const Deadline& deadline_;
  const int32_t n_;
  int32_t left_ = 0;
  std::vector<int64_t> mo_, offset_;  // mo_: the minimum offset while unplaced
  std::vector<char> placed_;
  SectionMax remaining_;              // per section: the movable sizes still unplaced
  MinTree cand_, tops_;
  std::vector<int32_t> raised_, scratch_;
};

std::vector<int32_t> ranks_of(int32_t n, const std::function<bool(int32_t, int32_t)>& before) {
  std::vector<int32_t> order(n), rank(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), before);
  for (int32_t k = 0; k < n; ++k) rank[order[k]] = k;
  return rank;
}

}  // namespace

std::optional<std::vector<int64_t>> graph_dive(const GraphDiveInput& in, int64_t capacity,
                                               const std::vector<int32_t>& rank, const Deadline& deadline) {
  GraphDiver d(in, capacity, rank, deadline);
  return d.run();
}

std::vector<std::vector<int32_t>> graph_dive_ranks(const Problem& p, const ConflictGraph& g) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::vector<int64_t> size(n), weight(n);
  for (int32_t i = 0; i < n; ++i) size[i] = p.buffers[i].size;
  for (int32_t i = 0; i < n; ++i) {
    weight[i] = size[i];
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k) weight[i] = sat_add(weight[i], size[g.adj[k]]);
  }
  return {ranks_of(n, [&](int32_t a, int32_t b) { return weight[a] > weight[b]; }),
          ranks_of(n, [&](int32_t a, int32_t b) { return g.degree(a) > g.degree(b); }),
          ranks_of(n, [&](int32_t a, int32_t b) { return size[a] != size[b] ? size[a] > size[b] : g.degree(a) > g.degree(b); })};
}

}  // namespace memplan::exact
