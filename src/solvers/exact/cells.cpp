// The lowest-cell search: a second complete search for "is there a plan with peak <= C?",
// built for tight instances (capacity at or near LOAD, where most sections may waste no
// byte). It keeps, per section (elementary time interval), a floor: everything below it is
// decided. At each node it takes the lowest floor h of the current sub-problem and one
// section s* at that height, and branches on what occupies the cell (s*, h):
//  - an unplaced buffer live in s* whose every section is at height h, placed at h
//    (in preorder rank); or
//  - nothing: the cell is wasted, and s*'s floor rises to the lowest offset any of its
//    unplaced buffers could still take.
// This is the "fill the lowest empty cell" branching of perfect rectangle packing (Korf's
// and Simonis & O'Sullivan's searches), on MiniMalloc's sections. Complete: follow any plan
// compacted so every buffer sits at the lowest aligned offset clearing those below it.
// Invariant: every floor stays at or below the plan's offsets of the unplaced buffers live in
// its section. h is the lowest floor, so a buffer the plan puts at (s*, h) has all its floors
// at exactly h and is a branch; otherwise every unplaced buffer in s* sits above h in the
// plan, at or above the raised floor. Each plan is reached once, so there is no symmetry
// to break beyond identical buffers (placed in rank order). A placement never wastes space:
// only the explicit waste branch does, and section inference bounds the waste a section can
// afford (zero in a section at the capacity), so tight sections branch on buffers only.
// (CellChoice::kWells branches on a cell at a local minimum of the floors instead, not only
// at the lowest: complete as well, see choose_well_cell.)
// Conflict-directed backjumping (conflicts.h): every failure carries a reason (a set of
// sections, why_), and a node whose child failed for a reason its own decision cannot
// have caused fails at once with it (proof in conflicts.h).
// Pre-placed buffers are not supported here (the canonical search handles them).
#include <algorithm>
#include <climits>
#include <stdexcept>

#include "core/arith.h"
#include "solvers/exact/aligned_cells.h"
#include "solvers/exact/conflicts.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/search.h"
#include "solvers/exact/section_parts.h"
#include "solvers/exact/stacking.h"

namespace memplan::exact {
namespace {

// The buffers grouped by one section each (CSR): items[begin[s], begin[s + 1]) are the
// buffers i with section_of(i) == s, in increasing i.
template <class SectionOf>
void group_by_section(int32_t n, int32_t sections, SectionOf section_of, std::vector<int32_t>& begin,
                      std::vector<int32_t>& items) {
  begin.assign(sections + 1, 0);
  for (int32_t i = 0; i < n; ++i) ++begin[section_of(i) + 1];
  for (int32_t s = 0; s < sections; ++s) begin[s + 1] += begin[s];
  items.resize(n);
  std::vector<int32_t> fill(begin.begin(), begin.end() - 1);
  for (int32_t i = 0; i < n; ++i) items[fill[section_of(i)]++] = i;
}

// Section inference's tests: stacking by release (stacking.h, stacks_fit), the padded
// alignment test (aligned_stacks_fit), or the padded test behind the search's gate.
enum class Test { kPlain, kPadded, kPaddedGated };

class CellDfs {
 public:
  CellDfs(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
          CellChoice choice, int64_t budget, const Deadline& deadline, FailureMemo* memo,
          std::vector<uint32_t>* weights, int64_t root_first)
      : in_(in), cap_(capacity), choice_(choice), budget_(budget), deadline_(deadline), root_first_(root_first),
        own_memo_(memo ? 0 : budget), memo_(memo ? memo : &own_memo_),
        weighted_(choice == CellChoice::kWells && weigh_dead_ends),
        weights_(weights ? weights : &own_weights_), parts_(in.sections), keys_(in.sections) {
    if (weighted_ && weights_->size() != static_cast<size_t>(in.sections)) weights_->assign(in.sections, 0);
    const int32_t n = in.n;
    placed_.assign(n, 0);
    offset_.assign(n, 0);
    mo_.assign(n, 0);  // every floor is 0, and so every minimum offset
    floor_.assign(in.sections, 0);
    // The memo key's parts (state_key): one per buffer, one per section and floor.
    hb_.resize(n);
    for (int32_t i = 0; i < n; ++i) {
      hb_[i].add(static_cast<uint64_t>(i), 0);
      keys_.add(in.sec_lo[i], hb_[i]);
      parts_.add(in.sec_lo[i], in.sec_hi[i]);
    }
    hs_.resize(in.sections);
    for (int32_t s = 0; s < in.sections; ++s) rehash(s);
    // Each section's first buffer in start order (a part's buffers, listed when needed).
    sec_first_.assign(in.sections + 1, n);
    for (int32_t k = n - 1; k >= 0; --k) sec_first_[in.sec_lo[in.by_start[k]]] = k;
    for (int32_t s = in.sections - 1; s >= 0; --s) sec_first_[s] = std::min(sec_first_[s], sec_first_[s + 1]);
    remaining_.assign(in.sections, 0);
    low_.assign(in.sections, 0);
    reach_.assign(in.sections + 1, 0);
    dirty_.push_back({0, in.sections});
    twin_prev_ = twins(in, order);
    for (int32_t i = 0; i < n; ++i)
      for (int32_t s = in.sec_lo[i]; s < in.sec_hi[i]; ++s) remaining_[s] += in.size[i];
    // Backjumping where it pays (conflicts.h, Backjump): every section's total at the capacity.
    const Backjump mode = backjump_cells;
    backjump_ = mode == Backjump::kAlways ||
                (mode == Backjump::kPerfect &&
                 std::all_of(remaining_.begin(), remaining_.end(), [&](int64_t r) { return r == capacity; }));
    if (backjump_) reasons_.reserve(budget, std::min<size_t>(size_t{1} << 20, 64 * static_cast<size_t>(in.n) + 1024));
    // Buffers live in each section (CSR), in rank order: the branching order of a cell.
    live_begin_.assign(in.sections + 1, 0);
    for (int32_t i = 0; i < n; ++i)
      for (int32_t s = in.sec_lo[i]; s < in.sec_hi[i]; ++s) ++live_begin_[s + 1];
    for (int32_t s = 0; s < in.sections; ++s) live_begin_[s + 1] += live_begin_[s];
    live_.resize(live_begin_[in.sections]);
    std::vector<int32_t> fill(live_begin_.begin(), live_begin_.end() - 1);
    for (int32_t i : order)
      for (int32_t s = in.sec_lo[i]; s < in.sec_hi[i]; ++s) live_[fill[s]++] = i;
    // Buffers by first section: with live_, the buffers overlapping a span, each once.
    group_by_section(n, in.sections, [&](int32_t i) { return in.sec_lo[i]; }, starts_begin_, starts_);
    // Buffers by last section: the candidates of a well's last cell (choose_well_cell).
    group_by_section(n, in.sections, [&](int32_t i) { return in.sec_hi[i] - 1; }, ends_begin_, ends_);
  }

  SearchResult run() {
    const int status = solve(0, in_.sections);  // before reading nodes_ and offset_
    SearchResult r = result_of(status, nodes_, offset_);
    if (status != kSolved) r.deepest = std::move(deepest_);
    return r;
  }

 private:
  // Dynamic decomposition of the sub-problem over sections [lo, hi) (section_parts.h: the
  // parts of for_each_part, kept incrementally), then each part on its own.
  int solve(int32_t lo, int32_t hi) {
    if (check_inference) check_parts(lo, hi);
    return parts_.for_each(lo, hi, [&](int32_t p_lo, int32_t p_hi) { return solve_single(p_lo, p_hi); });
  }

  // check_inference: the parts of [lo, hi) as for_each_part's scan of the buffers in start
  // order finds them (each the span of its unplaced buffers) equal the incremental ones.
  void check_parts(int32_t lo, int32_t hi) {
    std::vector<std::pair<int32_t, int32_t>> scanned, kept;
    for_each_part(in_, placed_, sec_first_[lo], sec_first_[hi], [&](int32_t first, int32_t last) {
      int32_t p_lo = INT32_MAX, p_hi = 0;
      for (int32_t k = first; k < last; ++k)
        if (const int32_t i = in_.by_start[k]; !placed_[i])
          p_lo = std::min(p_lo, in_.sec_lo[i]), p_hi = std::max(p_hi, in_.sec_hi[i]);
      scanned.emplace_back(p_lo, p_hi);
      return kSolved;
    });
    parts_.for_each(lo, hi, [&](int32_t p_lo, int32_t p_hi) { return kept.emplace_back(p_lo, p_hi), kSolved; });
    if (scanned != kept) throw std::logic_error("cell search: incremental parts differ from the scan");
  }

  // The unplaced buffers of the part over sections [s_lo, s_hi), appended to scratch_.
  void list_part(int32_t s_lo, int32_t s_hi) {
    for (int32_t k = sec_first_[s_lo]; k < sec_first_[s_hi]; ++k)
      if (const int32_t i = in_.by_start[k]; !placed_[i]) scratch_.push_back(i);
  }

  int solve_single(int32_t s_lo, int32_t s_hi) {
    if (++nodes_ > budget_ || ((nodes_ & 15) == 0 && deadline_.expired())) return kAbort;
    if (depth_ >= depth_limit_) return kAbort;  // the thread's stack ends here
    if (cell_depth_trace) cell_depth_trace->push_back(static_cast<int32_t>(stack_.size()));
    if (stack_.size() >= next_snapshot_) snapshot();
    ++depth_;
    const int status = solve_checked(s_lo, s_hi);
    --depth_;
    return status;
  }

  // A part: sections [s_lo, s_hi), the span of its unplaced buffers (at least one).
  int solve_checked(int32_t s_lo, int32_t s_hi) {
    const size_t ubase = scratch_.size();
    // Its buffers are listed only for the tests that read them (from scratch, padded).
    if (check_inference || (in_.aligned && aligned_inference)) list_part(s_lo, s_hi);
    // A sub-problem is its unplaced buffers and its sections' floors: if that state already
    // failed (reached before through other decisions elsewhere), it fails again.
    const FailureMemo::Key key = keys_.sum(s_lo, s_hi);
    if (check_inference) {
      const FailureMemo::Key k = state_key(ubase, s_lo, s_hi);
      if (k.h1 != key.h1 || k.h2 != key.h2) throw std::logic_error("cell search: incremental memo key differs");
    }
    why_ = Conflict(s_lo, s_hi);  // the padded test's reason (infer narrows it when it refutes)
    const bool remembered = memo_->failed(key);
    if (remembered) why_ = reasons_.get(key, why_);
    const bool feasible = !remembered && infer(ubase, s_lo, s_hi);
    scratch_.resize(ubase);
    if (!feasible) return kFail;
    const int status = branch(s_lo, s_hi);
    if (status == kFail) memo_->remember(key), reasons_.put(key, why_);
    return status;
  }

  // Branches on a cell of the part over sections [s_lo, s_hi) (choose_cell).
  int branch(int32_t s_lo, int32_t s_hi) {
    const int32_t cell = choose_cell(s_lo, s_hi);
    const int64_t before = nodes_;
    const int status = branch_on(cell, s_lo, s_hi);
    // A dead end: the cell's every branch failed at its own node (inference or the tests
    // below), or it had none. Weighs the cell's section (search.h, weigh_dead_ends).
    if (weighted_ && status == kFail && nodes_ - before <= kDeadEndNodes) ++(*weights_)[cell];
    return status;
  }

  int branch_on(int32_t cell, int32_t s_lo, int32_t s_hi) {
    const int64_t h = floor_[cell];
    if (well_tiling && !well_can_fill(cell, s_lo, s_hi)) return kFail;  // why_: the well

    int result = kFail;
    Conflict why(cell, cell + 1);  // the node's reason if every alternative fails
    // On aligned instances the cell's buffers are tried in the order of aligned_cells.h.
    const size_t cbase = cands_.size();
    // The candidates are listed (in cands_) to be reordered: by the valuation of their top on
    // aligned instances, and by guide_plan (a bench hook) on any instance.
    const bool by_valuation = in_.aligned && order_aligned_cells;
    const bool by_top = by_valuation || guide_plan;
    if (by_top) {
      for (int32_t k = live_begin_[cell]; k < live_begin_[cell + 1]; ++k)
        if (const int32_t i = live_[k]; !placed_[i] && mo_[i] == h) cands_.push_back(i);
      if (by_valuation) order_by_top_valuation(in_, h, cap_, cands_, cbase);
      if (guide_plan && static_cast<int64_t>(stack_.size()) < guide_placements)
        std::stable_partition(cands_.begin() + static_cast<ptrdiff_t>(cbase), cands_.end(),
                              [&](int32_t i) { return (*guide_plan)[i] == h; });
      // The root's cell (nothing placed yet): candidate root_first_ (mod count) first.
      if (root_first_ > 0 && stack_.empty() && cands_.size() > cbase) {
        const size_t j = cbase + static_cast<size_t>(root_first_) % (cands_.size() - cbase);
        std::rotate(cands_.begin() + static_cast<ptrdiff_t>(cbase), cands_.begin() + static_cast<ptrdiff_t>(j),
                    cands_.begin() + static_cast<ptrdiff_t>(j + 1));
      }
    }
    const std::vector<int32_t>& tries = by_top ? cands_ : live_;
    const size_t t_lo = by_top ? cbase : live_begin_[cell], t_hi = by_top ? cands_.size() : live_begin_[cell + 1];
    for (size_t k = t_lo; k < t_hi && result == kFail; ++k) {
      const int32_t i = tries[k];
      if (placed_[i] || mo_[i] != h || h + in_.size[i] > cap_) continue;
      if (twin_prev_[i] >= 0 && !placed_[twin_prev_[i]]) continue;
      // The child's first test at a glance: each of i's sections, its floor raised to
      // h + size and its total left lowered by size, must keep h + (total left) <= cap.
      if (!fits_above(in_, i, h, remaining_, cap_)) {
        why.add(in_.sec_lo[i], in_.sec_hi[i]);  // read the totals left over i's lifetime
        continue;
      }
      const size_t mark = trail_.size(), placed_mark = stack_.size();
      place(i, h);
      const size_t decided = trail_.size();  // the trail of the placement itself ends here
      result = solve(s_lo, s_hi);
      const bool jump = result == kFail && jumps_over(i, mark, decided);
      if (result != kSolved) undo_to(mark, placed_mark, s_lo, s_hi);
      if (jump) {
        // Statistics: the alternatives skipped (at most: the buffers left that could be
        // tried, and the waste branch).
        ++backjump_counts.skipped;
        for (size_t u = k + 1; u < t_hi; ++u)
          backjump_counts.skipped += !placed_[tries[u]] && mo_[tries[u]] == h;
        cands_.resize(cbase);
        return kFail;  // why_: the child's reason, which placing i did not cause
      }
      if (result == kFail) why.add(why_);
    }
    cands_.resize(cbase);
    if (result != kFail) return result;
    why_ = why;

    // Waste the cell: raise the floor to the lowest offset an unplaced buffer of the
    // section could take with this cell empty: align_up(max(h + granularity, its other
    // floors)), which is max(align_up(h + granularity), mo_) (align_up commutes with max,
    // and mo_ is align_up of the largest of its floors, wherever the cell is). The floor
    // rises by a granularity at least, so a
    // section without that much room to waste fails at once.
    if (h + in_.granularity + remaining_[cell] > cap_) return kFail;
    int64_t next = INT64_MAX;
    for (int32_t k = live_begin_[cell]; k < live_begin_[cell + 1]; ++k) {
      const int32_t i = live_[k];
      if (!placed_[i]) next = std::min(next, std::max(align_up(h + in_.granularity, in_.align[i]), mo_[i]));
    }
    if (next == INT64_MAX) return why_ = Conflict::all(), kFail;  // no buffer live here (not met)
    if (next + remaining_[cell] > cap_) return kFail;
    const size_t mark = trail_.size(), placed_mark = stack_.size();
    trail_.push_back({cell, h});
    floor_[cell] = next;
    rehash(cell);
    touch(cell, cell + 1);
    raise_min_offsets(cell, cell + 1, next);
    const size_t decided = trail_.size();
    result = solve(s_lo, s_hi);
    // The waste child's reason, if raising floor c cannot have caused it, is the node's;
    // else the node's is the union.
    const bool jump = result == kFail && jumps_over(-1, mark, decided);
    if (result != kSolved) undo_to(mark, placed_mark, s_lo, s_hi);
    if (result == kFail && !jump) why_.add(why);
    return result;
  }

  // After a child's failure with reason why_ (before undoing it): whether the node's
  // decision (placing buffer i, or wasting the cell if i < 0), whose own changes are
  // trail_[mark, decided), is irrelevant to it, so the node fails with why_ at once
  // (conflicts.h). Relevant: i is live in the reason's sections, or the decision raised the
  // minimum offset of a buffer live there (the trail's entries -(j + 1)).
  bool jumps_over(int32_t i, size_t mark, size_t decided) {
    if (!backjump_ || why_.is_all()) return false;
    const auto meets = [&](int32_t j) { return why_.meets(in_.sec_lo[j], in_.sec_hi[j]); };
    if (i >= 0 && meets(i)) return false;
    for (size_t t = mark; t < decided; ++t)
      if (trail_[t].first < 0 && meets(-trail_[t].first - 1)) return false;
    ++backjump_counts.jumps;
    return true;
  }

  // The well around the cell: the run of sections at the cell's floor h that holds it,
  // bounded by higher floors or the ends of the sub-problem (h is the lowest floor, or with
  // kWells a local minimum). Every cell of the well's
  // bottom row is either filled by a buffer placed at h or wasted. A buffer placed at h has
  // all its floors at h (they only rise), so it lies within the well, and the buffers at h
  // are pairwise apart in time: their lifetimes partition the well's sections, except for
  // sections that can afford to waste a granule. If no chain of candidate lifetimes (and
  // such wastable sections) leads from one end of the well to the other, no completion
  // exists: a refutation (1D exact cover, as in perfect rectangle packing's bottom-row
  // reasoning). Candidates: unplaced, minimum offset h, within the well (identical buffers'
  // order ignored: a relaxation).
  bool well_can_fill(int32_t cell, int32_t s_lo, int32_t s_hi) {
    const int64_t h = floor_[cell];
    int32_t w_lo = cell, w_hi = cell + 1;
    while (w_lo > s_lo && floor_[w_lo - 1] == h) --w_lo;
    while (w_hi < s_hi && floor_[w_hi] == h) ++w_hi;
    std::fill(reach_.begin() + w_lo, reach_.begin() + w_hi + 1, 0);
    reach_[w_lo] = 1;
    for (int32_t s = w_lo; s < w_hi; ++s) {
      if (!reach_[s]) continue;
      if (h + in_.granularity + remaining_[s] <= cap_) reach_[s + 1] = 1;  // s can waste
      for (int32_t k = starts_begin_[s]; k < starts_begin_[s + 1]; ++k) {
        const int32_t i = starts_[k];
        if (!placed_[i] && mo_[i] == h && in_.sec_hi[i] <= w_hi) reach_[in_.sec_hi[i]] = 1;
      }
    }
    why_ = Conflict(w_lo, w_hi);  // the reason if it fails (conflicts.h)
    return reach_[w_hi];
  }

  // A sub-problem's state: its unplaced buffers and its sections' floors. Summed from the
  // parts kept per buffer and per section (rehash), not hashed afresh at every node.
  FailureMemo::Key state_key(size_t ubase, int32_t s_lo, int32_t s_hi) const {
    FailureMemo::Key k;
    for (size_t u = ubase; u < scratch_.size(); ++u) k.add(hb_[scratch_[u]]);
    for (int32_t s = s_lo; s < s_hi; ++s) k.add(hs_[s]);
    return k;
  }

  void rehash(int32_t s) {
    FailureMemo::Key k;
    k.add(static_cast<uint64_t>(in_.n) + static_cast<uint64_t>(s), static_cast<uint64_t>(floor_[s]));
    keys_.remove(s, hs_[s]);
    keys_.add(s, k);
    hs_[s] = k;
  }

  // The cell to branch on: a section at the lowest floor h (kWells: at a local minimum);
  // which one is free, and decides the search's shape. kLeastSlack takes the one with the
  // least room to waste; kFewestBranches the one with the fewest branches (buffers that fit
  // at h, plus waste when the section can afford it). Ties: the earliest section.
  int32_t choose_cell(int32_t s_lo, int32_t s_hi) const {
    if (choice_ == CellChoice::kWells) return choose_well_cell(s_lo, s_hi);
    int64_t h = INT64_MAX;
    for (int32_t s = s_lo; s < s_hi; ++s) h = std::min(h, floor_[s]);
    int32_t cell = -1;
    int64_t best = INT64_MAX;
    for (int32_t s = s_lo; s < s_hi; ++s) {
      if (floor_[s] != h) continue;
      const int64_t slack = cap_ - floor_[s] - remaining_[s];  // >= 0 after inference
      int64_t key = slack;
      if (choice_ == CellChoice::kFewestBranches) {
        // Counting stops once the count alone puts the key at or above the best so far (the
        // section cannot win): the same cell, without reading every buffer live in every
        // section at the floor (under perf, a fifth of a tiling's time at 3,200 buffers).
        int64_t branches = slack > 0;
        for (int32_t k = live_begin_[s]; k < live_begin_[s + 1] && (branches << 42) < best; ++k) {
          const int32_t i = live_[k];
          branches += !placed_[i] && mo_[i] == h && (twin_prev_[i] < 0 || placed_[twin_prev_[i]]);
        }
        key = std::min<int64_t>(branches, 1 << 20) << 42 | std::min<int64_t>(slack, (int64_t{1} << 42) - 1);
      }
      if (key < best) best = key, cell = s;
      // One branch and no slack: only key 0 (no branch at all, a dead cell) is lower, and
      // inference has refuted any node with a dead cell (its section's lowest release lies
      // above the floor with no room to waste), so no later section can win (and any
      // section at floor h keeps the search complete either way).
      if (choice_ == CellChoice::kFewestBranches && best <= int64_t{1} << 42) break;
    }
    return cell;
  }

  // kWells: among the runs of equal floors that are local minima (both neighbours higher,
  // or the sub-problem's ends), not only those at the lowest floor, the end cell (a run's
  // first or last section: the corners of the skyline's steps) with the fewest branches;
  // ties: the lowest floor, then the earliest. A buffer at a local minimum h has every floor
  // at h, so it lies within the run: the first cell's candidates are the buffers starting
  // there with minimum offset h, the last cell's those ending there (short lists, where a
  // section's live list is long: counting every section of every run took 4x the CPU on
  // tilings of 6,400 buffers for the same packings found).
  // Complete too: the branching on cell (s, f) is exhaustive for any section s at its floor
  // f. Every unplaced buffer live in s sits at or above f in the plan (the invariant), so
  // the plan either leaves the cell empty (the waste branch) or puts there a buffer at
  // exactly f, whose floors are then all at most f, so its minimum offset is f (a branch).
  // A local minimum keeps the well test sound (a buffer at f lies within the run).
  // Why: on pinwheel packings the lowest-floor choice filled one region while a forced
  // chain higher up elsewhere (wells with one candidate each) was already doomed, and
  // every failure there undid unrelated decisions below (pinwheel 800 seed 109: the same
  // 15-placement chain failing at depth 340-355 again and again). Choosing forced cells
  // wherever they are propagates them at once (unit propagation): pinwheel 1,600, tuning
  // seeds 100-109, restarts of 2n nodes: 13 of 20 found, 6 of 20 with the lowest floor only.
  int32_t choose_well_cell(int32_t s_lo, int32_t s_hi) const {
    int32_t cell = -1;
    int64_t best = INT64_MAX;
    uint64_t best_b = 0, best_w = 1;  // weighted_: the best cell's branches and weight + 1
    int64_t best_h = 0;
    for (int32_t w_lo = s_lo, w_hi; w_lo < s_hi; w_lo = w_hi) {
      const int64_t h = floor_[w_lo];
      for (w_hi = w_lo + 1; w_hi < s_hi && floor_[w_hi] == h;) ++w_hi;
      if ((w_lo > s_lo && floor_[w_lo - 1] < h) || (w_hi < s_hi && floor_[w_hi] < h)) continue;
      for (const bool first : {true, false}) {
        const int32_t s = first ? w_lo : w_hi - 1;
        const int32_t* at = first ? starts_.data() + starts_begin_[s] : ends_.data() + ends_begin_[s];
        const int32_t* end = first ? starts_.data() + starts_begin_[s + 1] : ends_.data() + ends_begin_[s + 1];
        uint64_t branches = cap_ - h - remaining_[s] > 0;
        for (; at != end; ++at)
          branches += !placed_[*at] && mo_[*at] == h && (twin_prev_[*at] < 0 || placed_[twin_prev_[*at]]);
        if (weighted_) {
          // Fewest branches per dead end found there (dom/wdeg), then the lowest floor.
          const uint64_t w = (*weights_)[s] + 1;
          if (cell < 0 || branches * best_w < best_b * w || (branches * best_w == best_b * w && h < best_h))
            cell = s, best_b = branches, best_w = w, best_h = h;
          continue;
        }
        const int64_t key = std::min<int64_t>(static_cast<int64_t>(branches), 1 << 20) << 42 | std::min<int64_t>(h, (int64_t{1} << 42) - 1);
        if (key < best) best = key, cell = s;
        // One branch and no slack: only a dead cell could win, and inference refuted those.
        if (best <= int64_t{1} << 42) return cell;
      }
    }
    return cell;
  }

  // Section inference: in each section the unplaced buffers are pairwise live together, so
  // they stack disjointly above the floor, each at or above its minimum offset; stacking in
  // increasing minimum offset gives the lowest top (one machine with release dates).
  // As in the canonical search, only buffers with minimum offset above cap - (largest
  // total left) can fail their stacking condition, and the test on them alone is exact.
  //
  // Incremental: the test is one per section, and a section's verdict is a function of its
  // own state (floor, total left, the minimum offsets of its unplaced buffers). A section
  // is clean once it passed in its current state; a decision that changes that state marks
  // it dirty (touch; undoing returns to a state that passed, see undo_to). A node tests only
  // the span of its dirty sections (the clean ones in range pass), and cleans them when
  // they pass: after a placement, the placed buffer's sections and those of the buffers
  // whose minimum offset it raised, not the whole sub-problem. (check_inference compares
  // each answer with the test from scratch.)
  bool infer(size_t ubase, int32_t s_lo, int32_t s_hi) {
    int32_t d_lo = INT32_MAX, d_hi = 0;
    for (const auto& [lo, hi] : dirty_)
      if (lo < s_hi && hi > s_lo) d_lo = std::min(d_lo, std::max(lo, s_lo)), d_hi = std::max(d_hi, std::min(hi, s_hi));
    // With backjumping, the failing section itself (the reason) in the same pass.
    const int32_t bad = d_lo >= d_hi ? d_hi : backjump_ ? first_failing(d_lo, d_hi) : range_fits(d_lo, d_hi) ? d_hi : d_lo;
    const bool fits = bad == d_hi;
    if (check_inference && fits != infer_from_scratch(ubase, s_lo, s_hi, false))
      throw std::logic_error("cell search: incremental section inference differs from scratch");
    if (fits && d_lo < d_hi) clean(s_lo, s_hi);  // the dirty sections in range passed
    if (!fits) {
      why_ = backjump_ ? Conflict(bad, bad + 1) : Conflict(d_lo, d_hi);
      return false;
    }
    if (!in_.aligned || !aligned_inference) return true;
    // The padded test (gated) on the sub-problem's filtered buffers, as from scratch.
    if (infer_from_scratch(ubase, s_lo, s_hi, true)) return true;
    if (backjump_) why_ = failing_range(s_lo, s_hi, Test::kPadded);
    return false;
  }

  // The leftmost section of [lo, hi) that fails the plain test on its own (a reason: the
  // test on it is a relaxation of its problem), or hi if none does (range_fits(lo, hi) is
  // then true). Each section's verdict is its own: the filter of range_fits keeps it exact
  // on any range (a buffer it leaves out has mo + (the section's total left) <= cap, so
  // meets its own condition, and is released before every buffer kept, so is counted in
  // none of theirs). So this is the section a bisection with range_fits narrows to, going
  // left whenever the left half fails, as the search did before: the same reasons, at
  // the cost of one test. The totals come first, as in range_fits: stacking is needed only
  // left of the first section whose floor plus total left exceeds the capacity.
  int32_t first_failing(int32_t lo, int32_t hi) {
    int64_t r_max = 0;
    for (int32_t s = lo; s < hi; ++s) {
      if (floor_[s] + remaining_[s] > cap_) {
        hi = s;
        break;
      }
      r_max = std::max(r_max, remaining_[s]);
    }
    if (lo == hi) return hi;
    const size_t end = scratch_.size();
    collect_overlapping(lo, hi, r_max);
    int32_t bad = hi;
    if (scratch_.size() > end) {
      build_items(end, lo, hi);
      bad = first_unstackable(items_, lo, hi, 0, cap_, low_, tree_);
    }
    scratch_.resize(end);
    return bad;
  }

  // A short part of [lo, hi) that fails the padded `test` (the range does), by bisection: a
  // half that fails is a reason. The padded test's verdicts can depend on the range (its
  // exact program has a budget per call), so it stops where neither half fails, the range
  // before still a valid reason.
  Conflict failing_range(int32_t lo, int32_t hi, Test test) {
    while (hi - lo > 1) {
      const int32_t mid = lo + (hi - lo) / 2;
      if (!range_fits(lo, mid, test)) hi = mid;
      else if (!range_fits(mid, hi, test)) lo = mid;
      else break;
    }
    return Conflict(lo, hi);
  }

  // Sections [s_lo, s_hi) pass in the current state: no longer dirty (the spans keep their
  // parts outside the range).
  void clean(int32_t s_lo, int32_t s_hi) {
    size_t keep = 0;
    const size_t end = dirty_.size();
    for (size_t u = 0; u < end; ++u) {
      const auto [lo, hi] = dirty_[u];
      if (hi <= s_lo || lo >= s_hi) {
        dirty_[keep++] = dirty_[u];
        continue;
      }
      if (lo < s_lo) dirty_[keep++] = {lo, s_lo};
      if (hi > s_hi) dirty_.push_back({s_hi, hi});  // after `end`: not read in this loop
    }
    // The right-hand pieces appended after `end` move down behind the kept ones.
    dirty_.erase(dirty_.begin() + static_cast<ptrdiff_t>(keep), dirty_.begin() + static_cast<ptrdiff_t>(end));
  }

  // Sections [lo, hi) become dirty: one entry, not one per section (a raised buffer's whole
  // span is dirty; marking it section by section was about half of raise_min_offsets).
  void touch(int32_t lo, int32_t hi) { dirty_.push_back({lo, hi}); }

  // The test on sections [lo, hi) alone: the unplaced buffers overlapping them (enumerated
  // as in raise_min_offsets), their spans clipped to the range.
  bool range_fits(int32_t lo, int32_t hi, Test test = Test::kPlain) {
    int64_t r_max = 0;
    for (int32_t s = lo; s < hi; ++s) {
      if (floor_[s] + remaining_[s] > cap_) return false;
      r_max = std::max(r_max, remaining_[s]);
    }
    const size_t end = scratch_.size();
    collect_overlapping(lo, hi, r_max);
    const bool fits = stack_filtered(end, lo, hi, test);
    scratch_.resize(end);
    return fits;
  }

  // Appends to scratch_ the unplaced buffers overlapping sections [lo, hi) (enumerated as in
  // raise_min_offsets) that can fail their stacking condition: mo + r_max > cap.
  void collect_overlapping(int32_t lo, int32_t hi, int64_t r_max) {
    auto consider = [&](int32_t j) {
      if (!placed_[j] && mo_[j] + r_max > cap_) scratch_.push_back(j);
    };
    for (int32_t k = live_begin_[lo]; k < live_begin_[lo + 1]; ++k) consider(live_[k]);
    for (int32_t k = starts_begin_[lo + 1]; k < starts_begin_[hi]; ++k) consider(starts_[k]);
  }

  // The same test over the whole sub-problem (the search before it was incremental): the
  // sub-problem's unplaced buffers are scratch_[ubase, end). With `padded`, the gated
  // alignment test instead, on the same buffers.
  bool infer_from_scratch(size_t ubase, int32_t s_lo, int32_t s_hi, bool padded) {
    const size_t end = scratch_.size();
    int64_t r_max = 0;
    for (int32_t s = s_lo; s < s_hi; ++s) {
      if (floor_[s] + remaining_[s] > cap_) return false;
      r_max = std::max(r_max, remaining_[s]);
    }
    for (size_t u = ubase; u < end; ++u)
      if (mo_[scratch_[u]] + r_max > cap_) scratch_.push_back(scratch_[u]);
    const bool fits = stack_filtered(end, s_lo, s_hi, padded ? Test::kPaddedGated : Test::kPlain);
    scratch_.resize(end);
    return fits;
  }

  // Stacks the buffers scratch_[from, end()) over sections [lo, hi) (spans clipped to it).
  bool stack_filtered(size_t from, int32_t lo, int32_t hi, Test test) {
    if (scratch_.size() == from) return true;
    if (test == Test::kPaddedGated && !padded_test_due(padding_, in_.aligned)) return true;  // the gate first: no sort
    build_items(from, lo, hi);
    if (test == Test::kPlain) return stacks_fit(items_, lo, hi, 0, cap_, low_, tree_);
    if (test == Test::kPadded) return aligned_stacks_fit(items_, lo, hi, 0, cap_, rounded_, low_, tree_);
    return recorded_aligned_stacks_fit(padding_, items_, lo, hi, 0, cap_, rounded_, low_, tree_);
  }

  // items_: the buffers scratch_[from, end()) by increasing minimum offset (sorted in place),
  // their spans clipped to sections [lo, hi). Every minimum offset is at or above the floors
  // of its buffer's sections, so stacking from 0 gives the same tops as from the floors.
  void build_items(size_t from, int32_t lo, int32_t hi) {
    sorter_.sort(scratch_, from, mo_, cap_, in_.n);
    items_.clear();
    for (size_t u = from; u < scratch_.size(); ++u) {
      const int32_t i = scratch_[u];
      items_.push_back({std::max(in_.sec_lo[i], lo), std::min(in_.sec_hi[i], hi), mo_[i], in_.size[i], in_.align[i]});
    }
  }

  // The deepest partial placement so far (SearchResult::deepest), taken every
  // max(1, n / kSnapshots) placements deeper: at most kSnapshots + 1 copies of n offsets
  // a search, so the snapshots cost O(n) per node at worst over the first n nodes and
  // nothing later.
  static constexpr int32_t kSnapshots = 256;
  void snapshot() {
    deepest_.assign(in_.n, -1);
    for (int32_t i : stack_) deepest_[i] = offset_[i];
    next_snapshot_ = stack_.size() + static_cast<size_t>(std::max(1, in_.n / kSnapshots));
  }

  void place(int32_t i, int64_t at) {
    stack_.push_back(i);
    placed_[i] = 1;
    parts_.remove(in_.sec_lo[i], in_.sec_hi[i]);
    keys_.remove(in_.sec_lo[i], hb_[i]);
    offset_[i] = at;
    const int64_t top = at + in_.size[i];
    for (int32_t s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) {
      trail_.push_back({s, floor_[s]});
      floor_[s] = top;
      rehash(s);
      remaining_[s] -= in_.size[i];
    }
    touch(in_.sec_lo[i], in_.sec_hi[i]);
    raise_min_offsets(in_.sec_lo[i], in_.sec_hi[i], top);
  }

  // mo_ is kept exact for every unplaced buffer (not recomputed per node over the whole
  // part, which on 3,200 buffers was about a fifth of the search's time). Floors only rise
  // going down the tree, and every floor of sections [lo, hi) was raised to `to` (at most:
  // a floor is never lowered here), so an overlapping buffer's minimum offset becomes
  // max(old, align_up(to)) (align_up is monotone and commutes with max): O(1) per buffer,
  // not a maximum over its span. The old values go on the trail (as entries -(j + 1)), so
  // undoing restores them without recomputing. The overlapping buffers are enumerated once
  // each: those live in section lo, then those starting in (lo, hi).
  void raise_min_offsets(int32_t lo, int32_t hi, int64_t to) {
    auto raise = [&](int32_t j) {
      if (placed_[j]) return;
      const int64_t m = align_up(to, in_.align[j]);
      if (m <= mo_[j]) return;
      trail_.push_back({-(j + 1), mo_[j]});
      mo_[j] = m;
      touch(in_.sec_lo[j], in_.sec_hi[j]);
    };
    for (int32_t k = live_begin_[lo]; k < live_begin_[lo + 1]; ++k) raise(live_[k]);
    for (int32_t k = starts_begin_[lo + 1]; k < starts_begin_[hi]; ++k) raise(starts_[k]);
  }

  // Undoes every floor change and placement made after the marks (a failed node also
  // undoes the sub-problems its decomposition had already solved), back to the state in
  // which the branching node, over sections [s_lo, s_hi), passed inference. Everything
  // undone lies in that range (a decision changes only the sections of the sub-problem's
  // buffers: those overlapping a placed one are in its part), and every section there
  // passed in that state: its dirty marks are dropped, and undoing marks nothing.
  void undo_to(size_t mark, size_t placed_mark, int32_t s_lo, int32_t s_hi) {
    while (trail_.size() > mark) {
      const auto [what, before] = trail_.back();
      trail_.pop_back();
      if (what < 0) {
        mo_[-what - 1] = before;
        continue;
      }
      floor_[what] = before;
      rehash(what);
    }
    while (stack_.size() > placed_mark) {
      const int32_t i = stack_.back();
      stack_.pop_back();
      placed_[i] = 0;
      parts_.add(in_.sec_lo[i], in_.sec_hi[i]);
      keys_.add(in_.sec_lo[i], hb_[i]);
      for (int32_t s = in_.sec_lo[i]; s < in_.sec_hi[i]; ++s) remaining_[s] += in_.size[i];
    }
    clean(s_lo, s_hi);
  }

  const Instance& in_;
  const int64_t cap_;
  const CellChoice choice_;
  const int64_t budget_;
  const Deadline& deadline_;
  const int64_t root_first_;  // > 0: the root cell's candidate tried first (rotate_root_cells)
  std::vector<int32_t> twin_prev_, live_begin_, live_, starts_begin_, starts_, ends_begin_, ends_, scratch_, stack_;
  std::vector<int32_t> cands_;  // per node on the path: its cell's buffers in trial order (aligned)
  ReleaseSorter sorter_;
  std::vector<char> placed_;
  std::vector<int64_t> offset_, mo_, floor_, remaining_, low_;
  // (section, floor before), or (-(buffer + 1), minimum offset before)
  std::vector<std::pair<int32_t, int64_t>> trail_;
  std::vector<StackItem> items_, rounded_;
  std::vector<int64_t> tree_;
  // Spans of sections (they may overlap) whose union is the sections not known to pass in
  // their current state.
  std::vector<std::pair<int32_t, int32_t>> dirty_;
  std::vector<char> reach_;         // scratch of well_can_fill
  PaddingGate padding_;
  std::vector<FailureMemo::Key> hb_, hs_;  // memo key parts per buffer and per section
  FailureMemo own_memo_;
  FailureMemo* memo_;
  ReasonTable reasons_;  // the reasons of the failures remembered in memo_
  const bool weighted_;             // kWells: dead-end weights guide the choice (weigh_dead_ends)
  std::vector<uint32_t> own_weights_;
  std::vector<uint32_t>* weights_;  // per section: dead ends found there
  SectionParts parts_;              // the decomposition (section_parts.h)
  KeySums keys_;                    // hs_ and the unplaced buffers' hb_, summed over sections
  std::vector<int32_t> sec_first_;  // per section: its first buffer's position in by_start
  bool backjump_ = false;  // conflicts.h: backjump_cells, set in the constructor
  Conflict why_;  // the reason of the last failure returned (conflicts.h)
  int64_t nodes_ = 0;
  int64_t depth_ = 0;
  std::vector<int64_t> deepest_;  // snapshot(): offsets of the deepest placement, -1 unplaced
  size_t next_snapshot_ = 1;      // the depth at which the next snapshot is taken
  const int64_t depth_limit_ = depth_limit();  // recursion levels this thread's stack holds
};

}  // namespace

SearchResult search_cells(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                          CellChoice choice, int64_t node_budget, const Deadline& deadline,
                          FailureMemo* memo, std::vector<uint32_t>* weights, int64_t root_first) {
  for (int32_t i = 0; i < in.n; ++i)
    if (in.fixed[i]) return {};  // kBudget: not for pre-placed buffers
  CellDfs dfs(in, capacity, order, choice, node_budget, deadline, memo, weights, root_first);
  return dfs.run();
}

}  // namespace memplan::exact
