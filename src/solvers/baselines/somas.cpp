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

// Under explicit conflicts, whether records a and b may not share bytes: they are neighbours
// in the may-share graph (adjacency lists are increasing).
bool graph_conflict(const MayShare& share, int32_t a, int32_t b) {
  const ConflictGraph& g = *share.graph;
  const int32_t u = share.graph_id[a], v = share.graph_id[b];
  return std::binary_search(g.adj.begin() + g.begin[u], g.adj.begin() + g.begin[u + 1], v);
}

// One FastHeuristic::Eval run. SingleObject keeps everyone in footprint 0 and finds its
// conflicts through a time index instead of scanning the tenant list (same set).
// Compiled once per relation (kGraph: explicit conflicts), so the interval instance's inner
// loops test overlap alone, with no branch on the graph per pair. (Measured alone it did not
// change the CPU time on bert_nezha; the time went to the sort, see `enter` below.)
template <bool kGraph>
Plan footprint_run(const std::vector<Rec>& recs, const std::vector<int32_t>& order,
                   bool many_objects, bool best_fit, const Deadline& dl, const MayShare& share) {
  auto conflicts = [&](int32_t a, int32_t b) {
    if constexpr (kGraph) return graph_conflict(share, a, b);
    else return overlap(recs[a], recs[b]);
  };
  Plan plan;
  plan.offsets.assign(recs.size(), -1);
  std::vector<Footprint> fps(1);  // the last one is always the empty tail
  OverlapIndex placed(recs, &dl);
  if (!index_or_give_up(placed, plan, "somas")) return plan;
  // Explicit conflicts: record of each graph vertex (-1: not among the records).
  std::vector<int32_t> record_of;
  if constexpr (kGraph) {
    record_of.assign(share.graph->begin.size() - 1, -1);
    for (size_t k = 0; k < recs.size(); ++k) record_of[share.graph_id[k]] = static_cast<int32_t>(k);
  }
  using Range = std::pair<int64_t, int64_t>;
  auto range_of = [&](int32_t t) { return Range{plan.offsets[t], plan.offsets[t] + recs[t].size}; };
  // ManyObjects keeps each footprint's tenants sorted by byte range, so the ranges that
  // conflict with a block come out in the order the gap scan needs, without a sort per try
  // (the sort was 40 % of the CPU on bert_nezha). SingleObject reads its index instead.
  auto enter = [&](Footprint& fp, int32_t t) {
    if (!many_objects) return;
    const Range key = range_of(t);
    fp.tenants.insert(std::upper_bound(fp.tenants.begin(), fp.tenants.end(), key,
                                       [&](const Range& k, int32_t x) { return k < range_of(x); }),
                      t);
  };
  std::vector<Range> forbidden;
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
        enter(fp, b);
        placed.insert(b);
        fps.push_back(Footprint{sat_add(off, r.size), -1, {}});
        break;
      }
      const int64_t upper = many_objects ? fps[p + 1].base : kInf;
      // Pre-filter (ManyObjects): the anchor spans the whole slab.
      if (many_objects && conflicts(fp.anchor, b)) continue;
      forbidden.clear();
      auto add = [&](int32_t t) { forbidden.push_back(range_of(t)); };
      if (many_objects) {
        for (int32_t t : fp.tenants)  // sorted already
          if (conflicts(t, b)) add(t);
      } else {
        if constexpr (kGraph) {  // every placed neighbour (all are in footprint 0)
          const ConflictGraph& g = *share.graph;
          const int32_t u = share.graph_id[b];
          for (int64_t k = g.begin[u]; k < g.begin[u + 1]; ++k)
            if (const int32_t t = record_of[g.adj[k]]; t >= 0 && plan.offsets[t] >= 0) add(t);
        } else {
          placed.for_each(r.start, r.end, add);
        }
        // By start alone: ranges with one start leave the scan below the same whatever
        // their order (the first moves the cursor to at least that start).
        std::sort(forbidden.begin(), forbidden.end(),
                  [](const Range& x, const Range& y) { return x.first < y.first; });
      }
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
      enter(fp, b);
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

Plan somas(const std::vector<Rec>& recs, int64_t threshold, const Deadline& dl, const MayShare& share) {
  // kGreaterSizeSmallerIndex: size desc, index asc (no graph outputs among our buffers).
  std::vector<int32_t> order(recs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  Plan unsorted;
  if (!sort_or_give_up(order, dl, unsorted, "somas",
                       [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; }))
    return unsorted;
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
    plans[k] = share.graph ? footprint_run<true>(recs, order, runs[k].many, runs[k].best_fit, dl, share)
                           : footprint_run<false>(recs, order, runs[k].many, runs[k].best_fit, dl, share);
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

namespace {

// SOMAS behind `somas` and `somas-min`. Under explicit conflicts its may-share relation is
// the conflict graph of the timeline module (SOMAS's original safety rule: may share only
// when one is dead before the other is born on every interleaving), never overlap alone.
SolveResult run_somas(const Problem& p, const SolveOptions& opt, int64_t threshold) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const std::vector<Rec> recs = records_of(p, &deadline);
  if (deadline.expired()) {  // as add_solver's baselines (1M buffers: 0.2 s to copy)
    SolveResult r;
    r.detail = "time limit (records)";
    return r;
  }
  ConflictGraph own;
  MayShare share;
  if (!p.conflicts.empty()) {
    share.graph = conflict_graph_of(p, opt.conflict_graph.get(), own, 40'000'000, [&] { return deadline.expired(); });
    if (!share.graph) {
      SolveResult r;
      r.detail = "reason=\"conflict graph above 40M pairs or time limit\"";
      return r;
    }
    for (size_t i = 0; i < recs.size(); ++i)  // the records with_fixed_below passes on
      if (recs[i].fixed < 0) share.graph_id.push_back(static_cast<int32_t>(i));
  }
  return to_result(p, opt, with_fixed_below(recs, [&](const std::vector<Rec>& r) {
                     return somas(r, threshold, deadline, share);
                   }));
}

}  // namespace

void register_somas(std::vector<SolverInfo>& out) {
  constexpr int64_t kSolBytesThreshold = int64_t{100} << 20;  // 100 MiB
  out.push_back({"somas", "MindSpore SOMAS: 8 footprint solver runs, best kept (prefers shared objects by 100 MiB)",
                 [](const Problem& p, const SolveOptions& o) { return run_somas(p, o, kSolBytesThreshold); },
                 Supports{.explicit_conflicts = true}});
  out.push_back({"somas-min", "MindSpore SOMAS: 8 footprint solver runs, pure minimum (no 100 MiB preference)",
                 [](const Problem& p, const SolveOptions& o) { return run_somas(p, o, 0); },
                 Supports{.explicit_conflicts = true}});
}

}  // namespace memplan::baselines
