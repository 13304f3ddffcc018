// The canonical depth-first search. Every plan can be compacted so that each movable buffer
// sits at the lowest aligned offset that clears the movable buffers below it and the
// pre-placed ones (its "minimum offset"); listing those buffers by (offset, preorder rank)
// and placing them one by one at their minimum offsets rebuilds the plan. The search
// enumerates exactly such sequences (offsets non-decreasing, ties by rank), with:
//  - section inference: in each section, the unplaced buffers must stack above
//    max(current offset, their lowest minimum offset) and below the capacity;
//  - dominance: no buffer goes at or above the end of another unplaced buffer placed at
//    its minimum offset (that one could always be moved down first);
//  - hatless pruning: if the placed buffer overlaps no unplaced one, its position cannot
//    influence the rest, so the alternatives at this node are equivalent and skipped;
//  - symmetry breaking: identical buffers are placed in rank order;
//  - dynamic decomposition into independent time ranges (for_each_part in search.h);
//  - a memo of failed states (FailureMemo).
// With preorder keys given, it also re-ranks as MiniMalloc does on decomposition (its
// SubSolve): when a placement leaves a time point that no unplaced buffer crosses, the
// buffers of each part are ranked afresh by the keys, with T (the largest section total)
// read from the sizes still unplaced, and the part starts a new canonical sequence (offset
// 0, any rank). Still complete: in any compacted plan, the buffers left can be listed in
// (offset, new rank) order and placed at their minimum offsets, since buffers at equal
// offsets never overlap in time. The inference at that restart still uses the offset
// reached, which every continuation of the current sequence respects. This is what solves
// MiniMalloc's E and I: the tight tail of a part is ordered by where the pressure now is.
#include <algorithm>
#include <bit>
#include <climits>
#include <deque>
#include <stdexcept>

#include "core/arith.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/search.h"
#include "solvers/exact/stacking.h"

namespace memplan::exact {
namespace {

class Dfs {
 public:
  Dfs(const Instance& in, int64_t capacity, const std::vector<int32_t>& order, int64_t budget,
      const Deadline& deadline, const std::vector<int64_t>* target = nullptr,
      std::string keys = {}, FailureMemo* memo = nullptr)
      : in_(in), cap_(capacity), budget_(budget), deadline_(deadline),
        target_(target), keys_(std::move(keys)), own_memo_(memo ? 0 : budget),
        memo_(memo ? memo : &own_memo_) {
    const int32_t n = in.n;
    rank_.resize(n);
    for (int32_t k = 0; k < n; ++k) rank_[order[k]] = k;
    placed_.assign(n, 0);
    offset_.assign(n, 0);
    floor_.assign(n, 0);
    floor_of_.assign(n, -1);
    mo_.assign(n, 0);
    eff_.assign(n, 0);
    remaining_.assign(in.sections, 0);
    low_.assign(in.sections, 0);
    twin_prev_ = twins(in, order);  // identical buffers go in rank order
    for (int32_t i = 0; i < n; ++i) {
      if (in.fixed[i]) {
        placed_[i] = true;
        offset_[i] = in.fixed_offset[i];
        continue;
      }
      for (int32_t s = in.sec_lo[i]; s < in.sec_hi[i]; ++s) remaining_[s] += in.size[i];
    }
    block_max_.assign((in.sections >> kBlockBits) + 1, 0);
    refresh_blocks(0, in.sections);
    for (int32_t i = 0; i < n; ++i)
      if (!in.fixed[i]) mo_[i] = min_offset(i);
    hc_.resize(n);
    for (int32_t i = 0; i < n; ++i) rehash(i);
    cross_.assign(in.sections + 1, 0);
    for (int32_t i = 0; i < n; ++i)
      if (!in.fixed[i])
        for (int32_t s = in.sec_lo[i] + 1; s < in.sec_hi[i]; ++s) ++cross_[s];
    pressure_.assign(n, 0);
  }

  SearchResult run() {
    for (int32_t i = 0; i < in_.n; ++i)
      if (in_.fixed[i] && in_.fixed_offset[i] + in_.size[i] > cap_) return result_of(kFail, 0, {});
    const int status = solve(0, in_.n, 0, -1);  // before reading nodes_ and offset_
    return result_of(status, nodes_, offset_);
  }

 private:
  int64_t min_offset(int32_t i) const { return min_offset_above(in_, i, floor_[i]); }

  // Buffer i's share of a state's key: its floor, and its rank when ranks can change.
  void rehash(int32_t i) {
    FailureMemo::Key k;
    k.add(static_cast<uint64_t>(i), static_cast<uint64_t>(floor_[i]));
    if (!keys_.empty()) k.add(static_cast<uint64_t>(in_.n) + static_cast<uint64_t>(i), static_cast<uint64_t>(rank_[i]));
    hc_[i] = k;
  }

  // Dynamic decomposition: the parts of [a, b) (for_each_part), each solved on its own.
  // With several parts, every part's inference runs before any part is searched: a part
  // that fails at once then fails the node before its siblings' searches are paid for.
  // `restart`: a placement just left a time point no unplaced buffer crosses; each part is
  // re-ranked (rerank) and starts with the monotonic floor back at 0.
  // `split`: the last placement left a time point no unplaced buffer crosses (else the
  // part stays whole, and is not scanned for parts again).
  // `elems`: with no split, the part's unplaced buffers' key parts summed (see solve_single).
  int solve(int32_t a, int32_t b, int64_t x_cur, int32_t last_rank, bool restart = false, bool split = true,
            const FailureMemo::Key* elems = nullptr) {
    const size_t pbase = parts_.size();
    if (split)
      for_each_part(in_, placed_, a, b, [&](int32_t first, int32_t last) {
        parts_.push_back({first, last});
        return kSolved;
      });
    else
      parts_.push_back({a, b});
    const size_t pend = parts_.size();
    int status = kSolved;
    if (pend - pbase > 1)
      for (size_t p = pbase; p < pend && status == kSolved; ++p) {
        int64_t d1, d2;
        int32_t d1_of;
        if (infer(parts_[p].first, parts_[p].second, last_rank, x_cur, d1, d2, d1_of) == kFail) status = kFail;
      }
    for (size_t p = pbase; p < pend && status == kSolved; ++p) {
      const auto [first, last] = parts_[p];
      if (!restart) {
        status = solve_single(first, last, x_cur, last_rank, -1, split ? nullptr : elems);
        continue;
      }
      const size_t rbase = rerank_.size();
      rerank(first, last);
      status = solve_single(first, last, 0, -1, x_cur);
      if (status == kAbort) break;  // as in branch_on: nothing to restore
      for (size_t u = rbase; u < rerank_.size(); ++u) {
        rank_[rerank_[u].first] = rerank_[u].second;
        rehash(rerank_[u].first);
      }
      rerank_.resize(rbase);
    }
    parts_.resize(pbase);
    return status;
  }

  // Ranks the unplaced buffers of [first, last) afresh by the preorder keys, with T read
  // from the sizes still unplaced; the old ranks go on rerank_ to be restored.
  void rerank(int32_t first, int32_t last) {
    ids_.clear();
    for (int32_t k = first; k < last; ++k) {
      const int32_t i = in_.by_start[k];
      if (placed_[i]) continue;
      pressure_[i] = span_max(in_, i, remaining_);
      ids_.push_back(i);
      rerank_.push_back({i, rank_[i]});
    }
    sort_by_keys(in_, keys_, pressure_, ids_);
    for (size_t r = 0; r < ids_.size(); ++r) {
      rank_[ids_[r]] = static_cast<int32_t>(r);
      rehash(ids_[r]);
    }
  }

  // A sub-problem's state is its unplaced buffers with their floors (and ranks, when they
  // can change), the monotonic floor x_cur, the last rank placed and the inference base
  // (x_cur, or at a restart the offset reached before it); a state that failed once fails
  // again, under any node budget.
  // The buffers' key parts are summed over the part, or handed down by the parent when
  // the part did not split (the parent's sum, less the placed buffer, plus the changes of
  // its neighbours' floors: see branch_on).
  int solve_single(int32_t a, int32_t b, int64_t x_cur, int32_t last_rank, int64_t base = -1,
                   const FailureMemo::Key* known = nullptr) {
    // The clock every 16 nodes, or at every node of a large part (a node there costs ms).
    if (++nodes_ > budget_ || (((nodes_ & 15) == 0 || b - a > 4096) && deadline_.expired())) return kAbort;
    if (static_cast<int64_t>(stack_.size()) >= depth_limit_) return kAbort;  // the stack's end
    if (trail_.size() > kMaxTrail) return kAbort;  // memory: see kMaxTrail
    if (base < x_cur) base = x_cur;
    FailureMemo::Key elems;
    if (!known || check_keys) {
      for (int32_t k = a; k < b; ++k) {
        const int32_t i = in_.by_start[k];
        if (!placed_[i]) elems.add(hc_[i]);
      }
      if (known && (known->h1 != elems.h1 || known->h2 != elems.h2))
        throw std::logic_error("exact search: incremental memo key differs from the part's");
    }
    if (known) elems = *known;
    FailureMemo::Key key = elems;
    key.add(UINT64_MAX, static_cast<uint64_t>(x_cur));
    key.add(UINT64_MAX - 1, static_cast<uint64_t>(last_rank));
    key.add(UINT64_MAX - 2, static_cast<uint64_t>(base));
    if (memo_->failed(key)) return kFail;
    const int status = branch(a, b, x_cur, last_rank, base, elems);
    if (status == kFail) memo_->remember(key);
    return status;
  }

  int branch(int32_t a, int32_t b, int64_t x_cur, int32_t last_rank, int64_t base, const FailureMemo::Key& elems) {
    int64_t d1, d2;
    int32_t d1_of;
    const int inferred = infer(a, b, last_rank, base, d1, d2, d1_of);
    if (inferred != kAbort) return inferred;  // kAbort: inference passed, branch on
    return branch_on(a, b, x_cur, last_rank, d1, d2, d1_of, tightest_, elems);
  }

  // The largest total left in one section of the part [s_lo, s_hi) (see infer), and the
  // first section holding it.
  struct Tightest {
    int64_t total = 0;
    int32_t section = -1;
  };
  Tightest tightest(int32_t s_lo, int32_t s_hi, int64_t total) const {
    int32_t s = s_lo;
    const int32_t b_lo = (s_lo + (1 << kBlockBits) - 1) >> kBlockBits, b_hi = s_hi >> kBlockBits;
    if (b_lo < b_hi) {
      for (; s < (b_lo << kBlockBits); ++s)
        if (remaining_[s] == total) return {total, s};
      int32_t b = b_lo;
      while (b < b_hi && block_max_[b] != total) ++b;
      s = b << kBlockBits;
    }
    while (remaining_[s] != total) ++s;
    return {total, s};
  }

  // Inference for the unplaced buffers of [a, b): kSolved if there are none, kFail if
  // infeasible, kAbort (meaning: go on) otherwise; also the two smallest ends at minimum
  // offsets, for dominance.
  int infer(int32_t a, int32_t b, int32_t last_rank, int64_t base, int64_t& d1, int64_t& d2,
            int32_t& d1_of) {
    // Section inference. In each section the unplaced buffers are pairwise live together, so
    // they stack disjointly, each at or above its minimum offset and `base`. Stacking them
    // in increasing minimum offset gives the lowest possible top (the release-date rule for
    // one machine), so any section whose stack passes the capacity fails the node. This subsumes MiniMalloc's "floor + remaining <= capacity" test.
    const size_t ubase = unplaced_scratch_.size();
    int32_t s_lo = INT32_MAX, s_hi = 0;
    d1 = INT64_MAX, d2 = INT64_MAX, d1_of = -1;
    bool any = false;
    int64_t z1 = INT64_MAX, z2 = INT64_MAX;  // the two smallest sizes left (implicit mode)
    int32_t z1_of = -1;
    for (int32_t k = a; k < b; ++k) {
      const int32_t i = in_.by_start[k];
      if (placed_[i]) continue;
      any = true;
      if (in_.size[i] < z1) z2 = z1, z1 = in_.size[i], z1_of = i;
      else if (in_.size[i] < z2) z2 = in_.size[i];
      const int64_t e = mo_[i] + in_.size[i];
      if (e < d1) d2 = d1, d1 = e, d1_of = i;
      else if (e < d2) d2 = e;
      unplaced_scratch_.push_back(i);
      s_lo = std::min(s_lo, in_.sec_lo[i]);
      s_hi = std::max(s_hi, in_.sec_hi[i]);
    }
    if (!any) {
      unplaced_scratch_.resize(ubase);
      return kSolved;
    }
    // A buffer below the monotonic floor (or at it, but ranked before the last placed one)
    // cannot be placed until a buffer overlapping it lands at or above the floor and lifts
    // it: its effective minimum is floor + the smallest such neighbour; with no unplaced
    // neighbour it is stranded and the node fails.
    for (size_t u = ubase; u < unplaced_scratch_.size(); ++u) {
      const int32_t j = unplaced_scratch_[u];
      eff_[j] = mo_[j];
      if (mo_[j] > base || (mo_[j] == base && rank_[j] > last_rank)) continue;
      int64_t lift = INT64_MAX;
      if (in_.implicit) {
        // Without overlap lists: j has an unplaced neighbour only if one of its sections
        // holds more than j (the block maxima bound that from above), and any neighbour is
        // at least the smallest other buffer left. A weaker test than the lists give, and
        // a weaker lift, but both sound.
        if (remaining_bound(in_.sec_lo[j], in_.sec_hi[j]) > in_.size[j]) lift = j == z1_of ? z2 : z1;
      } else {
        for (int32_t k = in_.adj_begin[j]; k < in_.adj_begin[j + 1]; ++k)
          if (!placed_[in_.adj[k]]) {  // the list is by increasing size: the first is smallest
            lift = in_.size[in_.adj[k]];
            break;
          }
      }
      if (lift == INT64_MAX) {
        unplaced_scratch_.resize(ubase);
        return kFail;
      }
      eff_[j] = align_up(base + lift, in_.align[j]);
    }
    // Only a buffer released above cap - R (R: the largest total left in one of its
    // sections) can fail its stacking condition: released at r, it needs r + (sizes
    // released at or after r in each of its sections) <= cap, and that sum is at most R.
    // If it fails in section s, every buffer of s released at or after r fails the same
    // filter (r' + R' >= r + remaining[s] > cap), so the test on the filtered buffers alone
    // is exact, with base + (largest total) <= cap for the rest. On real models most of a
    // node's buffers drop out (sections far from the peak have room to spare).
    const int64_t r_max = remaining_max(s_lo, s_hi);
    if (base + r_max > cap_) {
      unplaced_scratch_.resize(ubase);
      return kFail;
    }
    tightest_ = tightest(s_lo, s_hi, r_max);
    size_t keep = ubase;
    int32_t h_lo = INT32_MAX, h_hi = 0;
    // Over many blocks, a sparse table of the block maxima answers each buffer's bound in
    // O(1) (large parts of real models: thousands of buffers spanning hundreds of blocks).
    const int32_t bl = s_lo >> kBlockBits, bh = ((s_hi - 1) >> kBlockBits) + 1;
    const bool table = bh - bl > 32 && unplaced_scratch_.size() - ubase > 256;
    if (table) build_sparse(bl, bh);
    for (size_t u = ubase; u < unplaced_scratch_.size(); ++u) {
      const int32_t i = unplaced_scratch_[u];
      if (eff_[i] + r_max <= cap_) continue;
      // Short spans (most buffers of real models) read their sections directly: exact,
      // and tighter than the blocks they touch.
      const int32_t lo = in_.sec_lo[i], hi = in_.sec_hi[i];
      const int64_t r_i = hi - lo <= (1 << kBlockBits) ? range_max(remaining_, lo, hi)
                          : table                     ? sparse_bound(bl, lo, hi)
                                                      : remaining_bound(lo, hi);
      if (eff_[i] + r_i <= cap_) continue;
      unplaced_scratch_[keep++] = i;
      h_lo = std::min(h_lo, in_.sec_lo[i]);
      h_hi = std::max(h_hi, in_.sec_hi[i]);
    }
    unplaced_scratch_.resize(keep);
    if (keep == ubase) return kAbort;
    sorter_.sort(unplaced_scratch_, ubase, eff_, cap_, in_.n);
    items_.clear();
    for (size_t u = ubase; u < unplaced_scratch_.size(); ++u) {
      const int32_t i = unplaced_scratch_[u];
      items_.push_back({in_.sec_lo[i], in_.sec_hi[i], eff_[i], in_.size[i], in_.align[i]});
    }
    unplaced_scratch_.resize(ubase);
    // Long lifetimes (bert_base: 2.5M section entries a node) take the segment tree.
    if (!stacks_fit(items_, h_lo, h_hi, base, cap_, low_, tree_)) return kFail;
    return gated_aligned_stacks_fit(padding_, in_.aligned, items_, h_lo, h_hi, base, cap_, rounded_, low_, tree_)
               ? kAbort : kFail;
  }

  // Tries the candidates in canonical order: by (minimum offset, rank), each above the
  // last placed, within the capacity, not dominated, not behind an identical unplaced
  // twin. They are taken in batches of kBatch (the next smallest, selected from a scan of
  // the part), so a level of the recursion holds kBatch of them, not all: a deep dive on a
  // large part (one level per placement) would otherwise hold the sum of the part sizes.
  int branch_on(int32_t a, int32_t b, int64_t x_cur, int32_t last_rank, int64_t d1, int64_t d2,
                int32_t d1_of, Tightest tight, const FailureMemo::Key& elems) {
    const size_t cbase = cands_.size();
    auto before = [&](int32_t x, int32_t y) { return mo_[x] != mo_[y] ? mo_[x] < mo_[y] : rank_[x] < rank_[y]; };
    int64_t after_m = INT64_MIN;  // the batch starts past (after_m, after_r)
    int32_t after_r = INT32_MIN;
    int result = kFail;
    for (bool more = true, stop = false; more && !stop;) {
      batch_.clear();
      for (int32_t k = a; k < b; ++k) {
        const int32_t i = in_.by_start[k];
        if (placed_[i]) continue;
        const int64_t m = mo_[i];
        if (m < x_cur || (m == x_cur && rank_[i] < last_rank)) continue;  // canonical order
        if (m < after_m || (m == after_m && rank_[i] <= after_r)) continue;  // tried before
        if (m + in_.size[i] > cap_) continue;
        if (m >= (i == d1_of ? d2 : d1)) continue;                       // dominated
        if (twin_prev_[i] >= 0 && !placed_[twin_prev_[i]]) continue;      // symmetry
        if (target_ && m != (*target_)[i]) continue;                       // testing aid
        batch_.push_back(i);
      }
      more = batch_.size() > kBatch;
      if (more) std::nth_element(batch_.begin(), batch_.begin() + kBatch, batch_.end(), before), batch_.resize(kBatch);
      std::sort(batch_.begin(), batch_.end(), before);
      if (batch_.empty()) break;
      after_m = mo_[batch_.back()], after_r = rank_[batch_.back()];
      cands_.insert(cands_.end(), batch_.begin(), batch_.end());  // batch_ is reused below
      for (size_t c = cbase; c < cands_.size() && !stop; ++c) {
        const int32_t i = cands_[c];
        const int64_t at = mo_[i];
        // The child's inference at a glance: every unplaced buffer live in one of i's
        // sections overlaps i, so it goes above i, and all of them must fit below the
        // capacity. Most children that fail, fail here, without the child's sort and
        // stacking. (Such an i has unplaced neighbours, so the hatless rule below does not
        // apply to it.)
        if (!fits_above(in_, i, at, remaining_, cap_)) continue;
        // Nor can the part's tightest section hold what it has left above `at` unless i
        // takes some of it: the child's inference would fail at once. (If i has no unplaced
        // neighbour, every alternative fails alike, as the hatless rule below says.)
        if (at + tight.total > cap_ && (tight.section < in_.sec_lo[i] || tight.section >= in_.sec_hi[i])) {
          stop = !has_unplaced_neighbour(i, a, b);
          continue;
        }
        const size_t trail_mark = trail_.size(), placed_mark = stack_.size();
        bool cut = false;
        FailureMemo::Key child = elems;
        child.remove(hc_[i]);
        const bool hat = place(i, at, cut, a, b, child);
        const int status = solve(a, b, at, rank_[i], cut && !keys_.empty(), cut, &child);
        if (status == kSolved) {
          result = kSolved;
          stop = true;
          break;
        }
        if (status == kAbort) {  // the search is over and its state dropped: no undoing
          result = kAbort;         // (on a deep dive that would take a while past the limit)
          stop = true;
          break;
        }
        undo_to(trail_mark, placed_mark);
        if (!hat) stop = true;  // hatless: every alternative is equivalent
      }
      cands_.resize(cbase);
    }
    return result;
  }

  // Block maxima of remaining_ (kBlockBits sections a block), for range maxima in
  // O(range / block + block): refreshed over the blocks [lo, hi) touches.
  void refresh_blocks(int32_t lo, int32_t hi) {
    if (lo >= hi) return;
    for (int32_t b = lo >> kBlockBits; b <= (hi - 1) >> kBlockBits; ++b) {
      const int32_t from = b << kBlockBits;
      block_max_[b] = range_max(remaining_, from, std::min(from + (1 << kBlockBits), in_.sections));
    }
  }
  // An upper bound on remaining_ over [lo, hi): the maxima of the blocks it touches.
  int64_t remaining_bound(int32_t lo, int32_t hi) const {
    if (lo >= hi) return 0;
    return range_max(block_max_, lo >> kBlockBits, ((hi - 1) >> kBlockBits) + 1);
  }
  // Sparse table over block_max_[bl, bh): level j holds the maxima of 2^j blocks.
  void build_sparse(int32_t bl, int32_t bh) {
    const int32_t m = bh - bl, levels = std::bit_width(static_cast<uint32_t>(m));
    sparse_width_ = m;
    sparse_.resize(static_cast<size_t>(levels) * m);
    std::copy(block_max_.begin() + bl, block_max_.begin() + bh, sparse_.begin());
    for (int32_t j = 1; j < levels; ++j) {
      const int64_t* prev = sparse_.data() + static_cast<size_t>(j - 1) * m;
      int64_t* cur = sparse_.data() + static_cast<size_t>(j) * m;
      for (int32_t x = 0; x + (1 << j) <= m; ++x) cur[x] = std::max(prev[x], prev[x + (1 << (j - 1))]);
    }
  }
  // remaining_bound(lo, hi) from the table built over blocks from bl (lo < hi).
  int64_t sparse_bound(int32_t bl, int32_t lo, int32_t hi) const {
    const int32_t x = (lo >> kBlockBits) - bl, y = ((hi - 1) >> kBlockBits) - bl + 1;
    const int j = std::bit_width(static_cast<uint32_t>(y - x)) - 1;
    const int64_t* row = sparse_.data() + static_cast<size_t>(j) * sparse_width_;
    return std::max(row[x], row[y - (1 << j)]);
  }

  // The exact maximum of remaining_ over [lo, hi): whole blocks, then the ends.
  int64_t remaining_max(int32_t lo, int32_t hi) const {
    const int32_t b_lo = (lo + (1 << kBlockBits) - 1) >> kBlockBits, b_hi = hi >> kBlockBits;
    if (b_lo >= b_hi) return range_max(remaining_, lo, hi);
    return std::max({range_max(block_max_, b_lo, b_hi), range_max(remaining_, lo, b_lo << kBlockBits),
                     range_max(remaining_, b_hi << kBlockBits, hi)});
  }

  // Calls f(j) for each unplaced buffer j overlapping i (i's own part is [a, b)) until f
  // returns false: from the overlap lists, or in implicit mode by scanning the part in
  // start order up to i's end.
  template <class F>
  void for_each_unplaced_neighbour(int32_t i, int32_t a, int32_t b, F&& f) const {
    if (!in_.implicit) {
      for (int32_t k = in_.adj_begin[i]; k < in_.adj_begin[i + 1]; ++k)
        if (!placed_[in_.adj[k]] && !f(in_.adj[k])) return;
      return;
    }
    for (int32_t k = a; k < b; ++k) {
      const int32_t j = in_.by_start[k];
      if (in_.start[j] >= in_.end[i]) return;
      if (!placed_[j] && j != i && in_.end[j] > in_.start[i] && !f(j)) return;
    }
  }

  bool has_unplaced_neighbour(int32_t i, int32_t a, int32_t b) const {
    bool any = false;
    for_each_unplaced_neighbour(i, a, b, [&](int32_t) { return !(any = true); });
    return any;
  }

  // Places i; `elems` follows the changes of the unplaced buffers' key parts.
  bool place(int32_t i, int64_t at, bool& cut, int32_t a, int32_t b, FailureMemo::Key& elems) {
    bool hat = false;
    stack_.push_back(i);
    placed_[i] = true;
    offset_[i] = at;
    for (int32_t s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) remaining_[s] -= in_.size[i];
    refresh_blocks(in_.sec_lo[i], in_.sec_hi[i]);
    for (int32_t s = in_.sec_lo[i] + 1; s < in_.sec_hi[i]; ++s) cut |= --cross_[s] == 0;
    const int64_t top = at + in_.size[i];
    for_each_unplaced_neighbour(i, a, b, [&](int32_t j) {
      hat = true;
      if (floor_[j] < top) {
        trail_.push_back({j, floor_of_[j]});
        floor_[j] = top;
        floor_of_[j] = i;
        mo_[j] = min_offset(j);
        elems.remove(hc_[j]);
        rehash(j);
        elems.add(hc_[j]);
      }
      return true;
    });
    return hat;
  }

  // Undoes every placement (and minimum-offset change) made after the marks.
  void undo_to(size_t trail_mark, size_t placed_mark) {
    while (trail_.size() > trail_mark) {
      const Undo& u = trail_.back();
      floor_of_[u.buffer] = u.floor_of;  // still placed: it was placed before the raise
      floor_[u.buffer] = u.floor_of < 0 ? 0 : offset_[u.floor_of] + in_.size[u.floor_of];
      mo_[u.buffer] = min_offset(u.buffer);  // both follow from the floor (and rank, which
      rehash(u.buffer);                      // is as it was when the entry was made)
      trail_.pop_back();
    }
    while (stack_.size() > placed_mark) {
      const int32_t i = stack_.back();
      stack_.pop_back();
      for (int32_t s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) remaining_[s] += in_.size[i];
      refresh_blocks(in_.sec_lo[i], in_.sec_hi[i]);
      for (int32_t s = in_.sec_lo[i] + 1; s < in_.sec_hi[i]; ++s) ++cross_[s];
      placed_[i] = false;
    }
  }

  // A floor raised by a placement: 8 bytes (the buffer, and the placed buffer whose top
  // was its floor before), as a path holds up to one per overlapping pair of buffers.
  struct Undo {
    int32_t buffer, floor_of;
  };
  const Instance& in_;
  const int64_t cap_;
  const int64_t budget_;
  const Deadline& deadline_;
  const std::vector<int64_t>* target_;
  const std::string keys_;  // preorder keys: re-rank parts after new cuts (empty: never)
  std::vector<int32_t> rank_, twin_prev_, cross_;
  std::vector<int64_t> pressure_;
  std::vector<FailureMemo::Key> hc_;  // per buffer: its share of the memo key (rehash)
  std::vector<std::pair<int32_t, int32_t>> rerank_, parts_;
  std::vector<int32_t> ids_;
  std::vector<char> placed_;  // char, not bool: read in every inner loop
  static constexpr int kBlockBits = 6;
  std::vector<int64_t> offset_, floor_, mo_, eff_, remaining_, low_;
  std::vector<int32_t> floor_of_;  // the placed buffer whose top is floor_ (-1: floor 0)
  std::vector<int64_t> block_max_;  // per block of sections: the largest remaining_
  std::vector<int64_t> sparse_;     // build_sparse's table (scratch of one infer)
  int32_t sparse_width_ = 0;
  Tightest tightest_;               // set by infer, for the branching that follows it
  std::deque<Undo> trail_;
  static constexpr size_t kBatch = 64;
  // A path holds one trail entry per floor a placement raised, up to one per overlapping
  // pair: a long dive on a dense input holds many (Y_1's dive to LOAD: more than 33M of
  // its 180M pairs). Past this many entries (512 MB; a deque, so never twice that while
  // growing) the probe stops as "budget spent".
  static constexpr size_t kMaxTrail = size_t{1} << 26;
  std::vector<int32_t> stack_, cands_, batch_, unplaced_scratch_;
  ReleaseSorter sorter_;
  std::vector<StackItem> items_, rounded_;
  std::vector<int64_t> tree_;
  PaddingGate padding_;
  FailureMemo own_memo_;
  FailureMemo* memo_;
  int64_t nodes_ = 0;
  const int64_t depth_limit_ = depth_limit();  // recursion levels this thread's stack holds
};

}  // namespace

SearchResult search(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                    int64_t node_budget, const Deadline& deadline, const std::string& keys,
                    FailureMemo* memo) {
  Dfs dfs(in, capacity, order, node_budget, deadline, nullptr, keys, memo);
  return dfs.run();
}

SearchResult search_following(const Instance& in, int64_t capacity,
                              const std::vector<int32_t>& order,
                              const std::vector<int64_t>& target, const Deadline& deadline,
                              const std::string& keys) {
  Dfs dfs(in, capacity, order, INT64_MAX, deadline, &target, keys);
  return dfs.run();
}

}  // namespace memplan::exact
