// One descent of the canonical search without backtracking (dive.h), in O(log n) a step
// instead of the search's scan of its part: three trees over the buffers in start order
// hold the candidates by (minimum offset, rank), the ends at minimum offsets (dominance)
// and the ends of lifetimes (overlaps). A placement raises the floors of its unplaced
// neighbours (found in the third tree in O(log n) each) and fixes the first two trees once
// above all of them (MinTree::rebuild_at), not once per neighbour.
#include "solvers/exact/dive.h"

#include <algorithm>

#include "core/arith.h"
#include "solvers/exact/dive_trees.h"

namespace memplan::exact {
namespace {

// The descent runs on positions in start order (the instance's by_start): a part is a
// range of positions, and the scans of a part and the overlap walks read memory in order.
class Diver {
 public:
  Diver(const Instance& in, int64_t cap, const std::vector<int32_t>& order, std::string keys, const Deadline& deadline)
      : in_(in), cap_(cap), keys_(std::move(keys)), deadline_(deadline), n_(in.n), buf_(in.by_start),
        pos_(n_), size_(n_), align_(n_), start_(n_), end_(n_), slo_(n_), shi_(n_), rank_(n_), twin_(n_, -1),
        mo_(n_, 0), floor_(n_, 0), offset_(n_, 0), placed_(n_, 0), pressure_(n_, 0),
        remaining_(totals(in)), cand_(n_), ends_(n_), live_(std::bit_ceil(static_cast<uint32_t>(std::max(n_, 1)))) {
    for (int32_t p = 0; p < n_; ++p) {
      const int32_t i = buf_[p];
      pos_[i] = p, size_[p] = in.size[i], align_[p] = in.align[i], start_[p] = in.start[i], end_[p] = in.end[i];
      slo_[p] = in.sec_lo[i], shi_[p] = in.sec_hi[i];
    }
    for (int32_t k = 0; k < n_; ++k) rank_[pos_[order[k]]] = k;
    const std::vector<int32_t> twin = twins(in, order, &deadline_);
    if (twin.size() != static_cast<size_t>(n_)) {  // the limit passed in it
      stopped_ = true;
      return;
    }
    for (int32_t i = 0; i < n_; ++i)
      if (twin[i] >= 0) twin_[pos_[i]] = pos_[twin[i]];
    reach_.assign(2 * static_cast<size_t>(live_), INT64_MIN);
    std::vector<int64_t> cross(in.sections + 1, 0);  // per section boundary, by differences
    for (int32_t p = 0; p < n_; ++p) {
      // The set-up is O(n log n) (1M buffers: ~0.5 s); a passed limit leaves the dive empty.
      if ((p & 4095) == 4095 && deadline_.expired()) {
        stopped_ = true;
        return;
      }
      if (in.fixed[buf_[p]]) {
        placed_[p] = 1, offset_[p] = in.fixed_offset[buf_[p]];
        continue;
      }
      if (slo_[p] + 1 < shi_[p]) ++cross[slo_[p] + 1], --cross[shi_[p]];  // differences (see totals)
      mo_[p] = min_offset(p);
      cand_.assign(p, mo_[p], rank_[p]), ends_.assign(p, sat_add(mo_[p], size_[p]), 0);
      reach_[live_ + p] = end_[p];
    }
    for (size_t s = 1; s < cross.size(); ++s) cross[s] += cross[s - 1];
    for (int64_t& c : cross) c = -c;
    crossing_ = LazyMax(cross);
    cand_.rebuild(0, n_), ends_.rebuild(0, n_);
    for (int32_t k = live_ - 1; k >= 1; --k) reach_[k] = std::max(reach_[2 * k], reach_[2 * k + 1]);
  }

  std::optional<std::vector<int64_t>> run() {
    if (stopped_) return std::nullopt;
    for (int32_t p = 0; p < n_; ++p)
      if (placed_[p] && offset_[p] + size_[p] > cap_) return std::nullopt;
    split(0, n_, 0, -1, false);  // the search's root: parts, ranks as given
    if (stopped_) return std::nullopt;  // its parts are incomplete
    int64_t steps = 0;
    while (!parts_.empty()) {
      if ((++steps & 255) == 0 && deadline_.expired()) return std::nullopt;
      Part& part = parts_.back();
      if (part.unplaced == 0) {
        parts_.pop_back();
        continue;
      }
      const int32_t p = next(part);
      if (p < 0) return std::nullopt;  // buffers left that no placement can lift: stranded
      if (place(p, part)) {            // a time point no unplaced buffer crosses
        const Part done = part;
        parts_.pop_back();
        split(done.first, done.last, done.x_cur, done.last_rank, !keys_.empty());
        // A split scans its part (up to n positions) and re-ranks it: 256 steps with one
        // each can take most of a second on 1M buffers, so the deadline is read after each.
        if (stopped_ || deadline_.expired()) return std::nullopt;
      }
    }
    std::vector<int64_t> offsets(n_);
    for (int32_t p = 0; p < n_; ++p) offsets[buf_[p]] = offset_[p];
    return offsets;
  }

 private:
  struct Part {
    int32_t first, last;  // positions
    int64_t x_cur;        // the canonical sequence's last offset and rank
    int32_t last_rank;
    int32_t s_lo, s_hi;   // sections its unplaced buffers span
    int64_t unplaced;
  };

  // Section totals of the free buffers, by differences and one prefix sum: O(n + sections).
  // (Adding each buffer over its sections is O(sum of spans): on training traces, where
  // activations live until their backward step, 10 s of unpolled set-up at 1M buffers.)
  static std::vector<int64_t> totals(const Instance& in) {
    std::vector<int64_t> t(in.sections + 1, 0);
    for (int32_t i = 0; i < in.n; ++i)
      if (!in.fixed[i]) t[in.sec_lo[i]] += in.size[i], t[in.sec_hi[i]] -= in.size[i];
    for (int32_t s = 1; s < in.sections; ++s) t[s] += t[s - 1];
    t.pop_back();
    return t;
  }

  int64_t min_offset(int32_t p) const { return min_offset_above(in_, buf_[p], floor_[p]); }

  // The search's next candidate of the part: the least (minimum offset, rank) above the
  // canonical floor that passes its tests (within the capacity, not dominated, after its
  // twin, room above it, the tightest section). A candidate that fails leaves the tree
  // until a placement raises its floor: in the search it would fall below the canonical
  // floor once a later candidate is placed.
  int32_t next(const Part& part) {
    // Everything left goes at or above x_cur: a section with more left than fits there
    // fails the descent now (the first test of the search's inference), not at its end.
    const int64_t tight = remaining_.max(part.s_lo, part.s_hi);
    if (sat_add(part.x_cur, tight) > cap_) return -1;
    int32_t tight_at = -1;
    for (;;) {
      const int32_t p = cand_.best(part.first, part.last).pos;
      if (p < 0) return -1;
      const int64_t at = mo_[p];
      if (sat_add(at, size_[p]) > cap_) return -1;  // minimum offsets only rise: it never fits
      bool ok = !(twin_[p] >= 0 && !placed_[twin_[p]]) && !dominated(p, at, part) &&
                sat_add(at, remaining_.max(slo_[p], shi_[p])) <= cap_;
      if (ok && sat_add(at, tight) > cap_) {
        if (tight_at < 0) tight_at = remaining_.first(part.s_lo, part.s_hi, tight);
        ok = tight_at >= slo_[p] && tight_at < shi_[p];
      }
      if (ok) return p;
      cand_.remove(p);
    }
  }

  // Whether another unplaced buffer of the part, at its minimum offset, ends at or below
  // `at` (the search's dominance rule).
  bool dominated(int32_t p, int64_t at, const Part& part) const {
    return std::min(ends_.best(part.first, p), ends_.best(p + 1, part.last)).key <= at;
  }

  // Places the buffer at position p at its minimum offset; returns whether that leaves a
  // time point inside the part that no unplaced buffer crosses.
  bool place(int32_t p, Part& part) {
    const int64_t at = mo_[p], top = at + size_[p];
    placed_[p] = 1, offset_[p] = at;
    part.x_cur = at, part.last_rank = rank_[p], --part.unplaced;
    cand_.remove(p), ends_.remove(p);
    set_reach(p, INT64_MIN);
    remaining_.add(slo_[p], shi_[p], -size_[p]);
    // One unplaced buffer fewer across each boundary it crosses; a count that reaches 0 is a cut.
    bool cut = false;
    if (slo_[p] + 1 < shi_[p]) {
      crossing_.add(slo_[p] + 1, shi_[p], 1);
      cut = crossing_.max(slo_[p] + 1, shi_[p]) == 0;
    }
    // Unplaced neighbours: positions before the first start at or after p's end, whose
    // lifetime reaches past p's start. A raised one is a candidate again if it was not (it
    // is above the canonical floor: mo > at). The trees are fixed once above them all.
    const int32_t r = static_cast<int32_t>(
        std::lower_bound(start_.begin() + part.first, start_.begin() + part.last, end_[p]) - start_.begin());
    raised_.clear();
    for_each_reaching(1, 0, live_, part.first, r, start_[p], [&](int32_t q) {
      if (floor_[q] >= top) return;
      floor_[q] = top;
      mo_[q] = min_offset(q);
      cand_.assign(q, mo_[q], rank_[q]);
      ends_.assign(q, sat_add(mo_[q], size_[q]), 0);
      raised_.push_back(q);
    });
    scratch_ = raised_;
    cand_.rebuild_at(raised_);
    ends_.rebuild_at(scratch_);
    return cut;
  }

  void set_reach(int32_t p, int64_t v) {
    size_t k = live_ + static_cast<size_t>(p);
    reach_[k] = v;
    for (k >>= 1; k >= 1; k >>= 1) reach_[k] = std::max(reach_[2 * k], reach_[2 * k + 1]);
  }
  // Calls f(q) for each unplaced position q in [l, r) whose end is past `after`.
  template <class F>
  void for_each_reaching(size_t k, int32_t lo, int32_t hi, int32_t l, int32_t r, int64_t after, F&& f) {
    if (hi <= l || r <= lo || reach_[k] <= after) return;
    if (hi - lo == 1) return f(lo);
    const int32_t mid = lo + (hi - lo) / 2;
    for_each_reaching(2 * k, lo, mid, l, r, after, f);
    for_each_reaching(2 * k + 1, mid, hi, l, r, after, f);
  }

  // Splits [first, last) into its parts (as for_each_part does), pushed so that the
  // earliest is solved first. `restart`: each part is ranked afresh by the keys and starts
  // a new canonical sequence (the search's re-ranking).
  void split(int32_t first, int32_t last, int64_t x_cur, int32_t last_rank, bool restart) {
    const size_t base = parts_.size();
    int32_t from = -1, s_lo = 0, s_hi = 0;
    int64_t reach = INT64_MIN, count = 0;
    auto close = [&](int32_t to) {
      parts_.push_back({from, to, restart ? 0 : x_cur, restart ? -1 : last_rank, s_lo, s_hi, count});
      if (restart) rerank(parts_.back());
    };
    for (int32_t k = first; k < last; ++k) {
      // A split of 1M positions, each part re-ranked, takes ~0.4 s: the limit is read here too
      // (a stopped split leaves the dive to return nothing).
      if ((k & 4095) == 4095 && (stopped_ || deadline_.expired())) {
        stopped_ = true;
        return;
      }
      if (placed_[k]) continue;
      if (from >= 0 && start_[k] >= reach) close(k), from = -1;
      if (from < 0) from = k, s_lo = slo_[k], s_hi = 0, count = 0;
      reach = std::max(reach, end_[k]);
      s_hi = std::max(s_hi, shi_[k]);
      ++count;
    }
    if (from >= 0) close(last);
    std::reverse(parts_.begin() + static_cast<ptrdiff_t>(base), parts_.end());
  }

  // Ranks the part's unplaced buffers by the keys, with T read from the sizes still
  // unplaced, and puts them all back as candidates (a new sequence starts at offset 0).
  void rerank(const Part& part) {
    if (stopped_) return;
    ids_.clear();
    for (int32_t k = part.first; k < part.last; ++k) {
      // Its pressures cost ~0.3 s on a part of 1M buffers: polled as the split is.
      if ((k & 4095) == 4095 && deadline_.expired()) {
        stopped_ = true;
        return;
      }
      if (placed_[k]) continue;
      pressure_[buf_[k]] = remaining_.max(slo_[k], shi_[k]);
      ids_.push_back(buf_[k]);
    }
    // Buffer ids, as the search ranks them; a passed deadline stops the dive.
    if (!sort_by_keys(in_, keys_, pressure_, ids_, &deadline_)) {
      stopped_ = true;
      return;
    }
    for (size_t r = 0; r < ids_.size(); ++r) {
      const int32_t p = pos_[ids_[r]];
      rank_[p] = static_cast<int32_t>(r);
      cand_.assign(p, mo_[p], rank_[p]);
    }
    cand_.rebuild(part.first, part.last);
  }

  const Instance& in_;
  const int64_t cap_;
  const std::string keys_;
  const Deadline& deadline_;
  const int32_t n_;
  // Per position unless said otherwise.
  const std::vector<int32_t>& buf_;  // the buffer
  std::vector<int32_t> pos_;         // per buffer: its position
  std::vector<int64_t> size_, align_, start_, end_;
  std::vector<int32_t> slo_, shi_, rank_;
  std::vector<int32_t> twin_;        // the identical buffer placed before it, or -1
  std::vector<int64_t> mo_, floor_, offset_;
  std::vector<char> placed_;
  LazyMax crossing_;                 // per section boundary: minus the unplaced buffers across it
  bool stopped_ = false;             // the limit passed during the set-up
  std::vector<int64_t> pressure_;    // per buffer: rerank's T key
  SectionMax remaining_;             // per section: the sizes still unplaced
  // As long as unplaced: (minimum offset, rank) while a candidate, and the end at the
  // minimum offset.
  MinTree cand_, ends_;
  int32_t live_;                     // leaves of reach_
  std::vector<int64_t> reach_;       // the latest end of the unplaced buffers below each node
  std::vector<Part> parts_;
  std::vector<int32_t> ids_, raised_, scratch_;
};

}  // namespace

std::optional<std::vector<int64_t>> dive(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                                         const std::string& keys, const Deadline& deadline) {
  Diver d(in, capacity, order, keys, deadline);
  return d.run();
}

}  // namespace memplan::exact
