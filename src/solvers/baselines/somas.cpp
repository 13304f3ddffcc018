// MindSpore SOMAS solver core: footprint engine (ManyObjects / SingleObject), two sort
// orders, BestFit / SmallestFit, all 8 combinations with the FindBest rule
// (heuristics.md §4). The may-share matrix is derived from lifetimes (disjoint = may share);
// every tensor is its own block (no contiguous lists) and none is lifelong.
#include <algorithm>
#include <limits>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {
namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max();

struct Footprint {
  int64_t base = 0;
  int32_t anchor = -1;
  std::vector<int32_t> tenants;
};

// One FastHeuristic::Eval run. SingleObject keeps everyone in footprint 0 and finds its
// conflicts through a time index instead of scanning the tenant list (same set).
Plan footprint_run(const std::vector<Rec>& recs, const std::vector<int32_t>& order,
                   bool many_objects, bool best_fit, const Deadline& dl) {
  Plan plan;
  plan.offsets.assign(recs.size(), -1);
  std::vector<Footprint> fps(1);  // the last one is always the empty tail
  OverlapIndex placed(recs);
  std::vector<std::pair<int64_t, int64_t>> forbidden;
  int64_t steps = 0;
  for (int32_t b : order) {
    if ((++steps & 255) == 0 && dl.expired()) {
      plan.complete = false;
      plan.detail = "time limit (somas)";
      return plan;
    }
    const Rec& r = recs[b];
    for (size_t p = 0; p < fps.size(); ++p) {
      Footprint& fp = fps[p];
      if (p + 1 == fps.size()) {  // empty tail: the block becomes its anchor
        const int64_t off = round_up(fp.base, r.align);
        plan.offsets[b] = off;
        fp.anchor = b;
        fp.tenants.push_back(b);
        placed.insert(b);
        fps.push_back(Footprint{sat_add(off, r.size), -1, {}});
        break;
      }
      const int64_t upper = many_objects ? fps[p + 1].base : kInf;
      // Pre-filter (ManyObjects): the anchor spans the whole slab.
      if (many_objects && overlap(recs[fp.anchor], r)) continue;
      forbidden.clear();
      auto add = [&](int32_t t) { forbidden.push_back({plan.offsets[t], plan.offsets[t] + recs[t].size}); };
      if (many_objects) {
        for (int32_t t : fp.tenants)
          if (overlap(recs[t], r)) add(t);
      } else {
        placed.for_each(r.start, r.end, add);
      }
      std::sort(forbidden.begin(), forbidden.end());
      // Candidate gaps between merged forbidden intervals, then [top, upper).
      int64_t best_off = -1, best_waste = kInf;
      auto consider = [&](int64_t a, int64_t bnd) {
        const int64_t off = round_up(a, r.align);
        if (bnd < off || bnd - off < r.size || sat_add(off, r.size) > upper) return;
        const int64_t waste = bnd == kInf ? kInf - 1 : bnd - off - r.size;
        const bool better = best_off < 0 ||
                            (best_fit ? (waste < best_waste || (waste == best_waste && off < best_off))
                                      : (off < best_off || (off == best_off && waste < best_waste)));
        if (better) {
          best_off = off;
          best_waste = waste;
        }
      };
      int64_t cursor = fp.base;
      for (const auto& [lo, hi] : forbidden) {
        if (lo > cursor) consider(cursor, lo);
        cursor = std::max(cursor, hi);
      }
      consider(cursor, upper);
      if (best_off < 0) continue;
      plan.offsets[b] = best_off;
      fp.tenants.push_back(b);
      placed.insert(b);
      fps[p + 1].base = std::max(fps[p + 1].base, sat_add(best_off, r.size));
      break;
    }
  }
  plan.total = fps.back().base;  // the tail base: sum of anchors, or the peak
  for (size_t i = 0; i < recs.size(); ++i)
    plan.total = std::max(plan.total, sat_add(plan.offsets[i], recs[i].size));
  return plan;
}

}  // namespace

Plan somas(const std::vector<Rec>& recs, int64_t threshold, const Deadline& dl) {
  // kGreaterSizeSmallerIndex: size desc, index asc (no graph outputs among our buffers).
  std::vector<int32_t> order(recs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; });
  // kSmallerReusePeakMemGreaterSizeSmallerIndex sorts by can_reuse_peak_mem_ first, which
  // is 0 for every tensor unless set by newer SOMAS passes, so it yields the same order:
  // its two runs per algorithm repeat the first sort's results (kept in the 8-way list).
  struct Run {
    bool many;
    int sort;
    bool best_fit;
  };
  std::vector<Run> runs;
  for (bool many : {true, false})
    for (int sort : {0, 1})
      for (bool bf : {true, false}) runs.push_back({many, sort, bf});
  std::vector<Plan> plans(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    if (runs[k].sort == 1) {
      plans[k] = plans[k - 2];  // same order as sort 0, same fit
      continue;
    }
    plans[k] = footprint_run(recs, order, runs[k].many, runs[k].best_fit, dl);
  }
  // FindBest: smallest total, ties keep the earlier; a SingleObject challenger replaces a
  // ManyObjects best only if it saves more than `threshold` bytes.
  int best = -1;
  for (size_t k = 0; k < runs.size(); ++k) {
    if (!plans[k].complete) continue;
    if (best < 0) {
      best = static_cast<int>(k);
      continue;
    }
    const int64_t saving = plans[best].total - plans[k].total;
    const bool needs_margin = runs[best].many && !runs[k].many;
    if (needs_margin ? saving > threshold : saving > 0) best = static_cast<int>(k);
  }
  if (best < 0) {
    Plan p;
    p.complete = false;
    p.detail = "time limit (somas: no run finished)";
    return p;
  }
  Plan out = plans[best];
  out.detail = std::string("chose=") + (runs[best].many ? "many-objects" : "single-object") +
               (runs[best].sort ? "/reuse-peak" : "/size") +
               (runs[best].best_fit ? "/best-fit" : "/smallest-fit");
  return out;
}

void register_somas(std::vector<SolverInfo>& out) {
  constexpr int64_t kSolBytesThreshold = int64_t{100} << 20;  // 100 MiB
  add_solver(out, "somas",
             "MindSpore SOMAS: 8 footprint solver runs, best kept (prefers shared objects by 100 MiB)",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return with_fixed_below(recs, [&](const std::vector<Rec>& r) {
                 return somas(r, kSolBytesThreshold, dl);
               });
             });
  add_solver(out, "somas-min",
             "MindSpore SOMAS: 8 footprint solver runs, pure minimum (no 100 MiB preference)",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return with_fixed_below(recs, [&](const std::vector<Rec>& r) {
                 return somas(r, 0, dl);
               });
             });
}

}  // namespace memplan::baselines
