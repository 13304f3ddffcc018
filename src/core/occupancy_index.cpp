#include "core/occupancy_index.h"

#include <algorithm>

namespace memplan {

void OccupancyIndex::init(int32_t slots, int32_t block) {
  block_ = std::max<int32_t>(block, 1);
  const int32_t blocks = std::max<int32_t>(1, (slots + block_ - 1) / block_);
  leaves_ = 1;
  while (leaves_ < blocks) leaves_ *= 2;
  here_.assign(2 * static_cast<size_t>(leaves_), {});
  below_.assign(2 * static_cast<size_t>(leaves_), {});
  raw_.assign(static_cast<size_t>(leaves_), {});
  is_touched_.assign(2 * static_cast<size_t>(leaves_) + leaves_, 0);
  stamp_.assign(2 * static_cast<size_t>(leaves_), 0);
  touched_.clear();
  crossing_.init(slots, block_);
  crossing_on_ = false;
}

void OccupancyIndex::set_crossing(bool on) {
  crossing_.clear();
  crossing_on_ = on;
}

void OccupancyIndex::clear() {
  set_crossing(false);
  for (int32_t t : touched_) {
    if (t < 2 * leaves_) {
      here_[t].clear();
      below_[t].clear();
    } else {
      raw_[t - 2 * leaves_].clear();
    }
    is_touched_[t] = 0;
  }
  touched_.clear();
}

void OccupancyIndex::touch(int32_t node) {
  if (!is_touched_[node]) is_touched_[node] = 1, touched_.push_back(node);
}

// Calls f(node) for the canonical nodes of the blocks [fa, fb) (fa < fb).
template <class F>
void OccupancyIndex::canonical(int32_t fa, int32_t fb, F&& f) const {
  for (int32_t l = fa + leaves_, r = fb + leaves_; l < r; l /= 2, r /= 2) {
    if (l & 1) f(l++);
    if (r & 1) f(--r);
  }
}

void OccupancyIndex::add(int32_t a, int32_t b, int64_t lo, int64_t hi) {
  if (crossing_on_) crossing_.add(a, b, lo, hi);
  const int32_t fa = (a + block_ - 1) / block_, fb = b / block_;  // fully covered blocks
  ++now_;
  auto up = [&](int32_t node) {  // below() of node and its ancestors, each once
    for (; node >= 1 && stamp_[node] != now_; node /= 2) {
      stamp_[node] = now_;
      touch(node);
      insert_run(below_[node], lo, hi);
    }
  };
  if (fa < fb)
    canonical(fa, fb, [&](int32_t node) {
      touch(node);
      insert_run(here_[node], lo, hi);
      up(node);
    });
  auto partial = [&](int32_t block) {
    touch(2 * leaves_ + block);
    raw_[block].push_back({a, b, lo, hi});
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
    for (; node >= 1 && stamp_[node] != now_; node /= 2) {
      stamp_[node] = now_;
      add_set(here_[node]);
    }
  };
  if (fa < fb)
    canonical(fa, fb, [&](int32_t node) {
      add_set(below_[node]);
      path(node / 2);
    });
  auto partial = [&](int32_t block) {
    path(leaves_ + block);
    const size_t from = scratch.size();
    for (const Raw& r : raw_[block])
      if (r.a < b && a < r.b) scratch.push_back({r.lo, r.hi});
    if (scratch.size() == from) return;
    std::sort(scratch.begin() + from, scratch.end(), [](const Run& x, const Run& y) { return x.lo < y.lo; });
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

}  // namespace memplan
