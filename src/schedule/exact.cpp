// The exact block scheduler: dynamic programming over the sets S of scheduled operators
// (Serenity, note §5.1). The live bytes after S depend on S alone, so one value per set,
// the lowest peak of an order reaching it, is enough; sets grow level by level (|S| = k).
#include <algorithm>
#include <bit>

#include "schedule/heuristics.h"

namespace memplan::sched {

namespace {

struct Fam {
  int64_t bytes;
  bool pinned;
  int32_t remaining;  // uses left at the block's start
  uint64_t uses;      // the block's operators reading it
};

struct Node {
  uint64_t preds = 0;              // in-block predecessors
  int64_t alloc = 0, scratch = 0;  // bytes born, scratch
  int64_t born_dead = 0;           // bytes born that nobody reads (dead after the step)
  std::vector<int32_t> reads;      // local family indices
  std::vector<int32_t> inplace;    // local family indices
};

struct State {
  uint64_t set;
  int64_t peak;
  int64_t live;
  int32_t last;  // the operator added last on the best path
};

}  // namespace

ExactResult exact_block(const BlockView& b, const BlockStart& start, int64_t incumbent,
                        int64_t max_states, const Clock& clock) {
  const Model& m = *b.m;
  const int32_t n = b.size();
  std::vector<Fam> fams;
  for (size_t k = 0; k < start.families.size(); ++k) {
    const int32_t f = start.families[k];
    fams.push_back({m.bytes[f], m.pinned[f] != 0, start.remaining[k], 0});
  }
  auto local_fam = [&](int32_t f) {
    return static_cast<int32_t>(std::find(start.families.begin(), start.families.end(), f) -
                                start.families.begin());
  };
  std::vector<Node> nodes(n);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t v = b.node(i);
    Node& x = nodes[i];
    for (const int32_t* u = m.preds.begin(v); u != m.preds.end(v); ++u)
      if (b.pred_inside(*u)) x.preds |= uint64_t{1} << b.local(*u);
    x.alloc = m.alloc[v];
    x.scratch = m.scratch[v];
    for (const int32_t* f = m.born.begin(v); f != m.born.end(v); ++f)
      if (m.uses[*f] == 0 && !m.pinned[*f]) x.born_dead += m.bytes[*f];
    for (const int32_t* f = m.reads.begin(v); f != m.reads.end(v); ++f) {
      x.reads.push_back(local_fam(*f));
      fams[x.reads.back()].uses |= uint64_t{1} << i;
    }
    for (const int32_t* f = m.inplace.begin(v); f != m.inplace.end(v); ++f) x.inplace.push_back(local_fam(*f));
  }
  const int64_t initial_unused = start.step == 0 ? m.initial_unused : 0;

  ExactResult res;
  std::vector<std::vector<State>> levels(1, {{0, 0, start.live, -1}});
  std::vector<State> next;
  for (int32_t k = 0; k < n; ++k) {
    const bool last_step = start.step + k == m.n - 1;
    next.clear();
    int64_t work = 0;
    for (const State& st : levels[k]) {
      if ((work++ & 1023) == 0 && clock.expired()) {  // at every level's start, then every 1024
        res.status = ExactResult::kTimeout;
        return res;
      }
      // Uses left of family f once S has run.
      auto left = [&](const Fam& f) { return f.remaining - std::popcount(f.uses & st.set); };
      for (int32_t i = 0; i < n; ++i) {
        const uint64_t bit = uint64_t{1} << i;
        if ((st.set & bit) || (nodes[i].preds & ~st.set)) continue;
        const Node& x = nodes[i];
        int64_t here = st.live + x.alloc + x.scratch;
        for (int32_t f : x.inplace)
          if (fams[f].pinned ? last_step : left(fams[f]) == 1) here -= fams[f].bytes;
        const int64_t peak = std::max(st.peak, here);
        if (peak >= incumbent) continue;
        int64_t live = st.live + x.alloc - x.born_dead - (k == 0 ? initial_unused : 0);
        for (int32_t f : x.reads)
          if (!fams[f].pinned && left(fams[f]) == 1) live -= fams[f].bytes;
        next.push_back({st.set | bit, peak, live, i});
      }
    }
    std::sort(next.begin(), next.end(), [](const State& a, const State& c) {
      return a.set != c.set ? a.set < c.set : a.peak < c.peak;
    });
    next.erase(std::unique(next.begin(), next.end(),
                           [](const State& a, const State& c) { return a.set == c.set; }),
               next.end());
    res.states += static_cast<int64_t>(next.size());
    if (res.states > max_states) {
      res.status = ExactResult::kTooManyStates;
      return res;
    }
    if (next.empty()) {  // no order stays below the incumbent: it is optimal
      res.peak = incumbent;
      return res;
    }
    levels.push_back(next);
  }
  // One full set; walk back through the levels by the operator added last.
  const State& full = levels[n].front();
  res.peak = full.peak;
  res.order.assign(n, -1);
  uint64_t set = full.set;
  int32_t last = full.last;
  for (int32_t k = n; k > 0; --k) {
    res.order[k - 1] = b.node(last);
    set &= ~(uint64_t{1} << last);
    if (k == 1) break;
    const auto& lv = levels[k - 1];
    const auto it = std::lower_bound(lv.begin(), lv.end(), set,
                                     [](const State& s, uint64_t x) { return s.set < x; });
    last = it->last;
  }
  return res;
}

}  // namespace memplan::sched
