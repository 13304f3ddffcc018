// XLA heap simulator: GlobalDecreasingSizeBestFitHeap with the spatial, temporal and
// spatial x temporal orders, best fit or lowest offset, and ChooseBestHeapAlgorithm
// (heuristics.md §3.2-3.4). No colocations (our problems have none); one unlimited heap.
#include <algorithm>
#include <limits>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {

Plan xla_best_fit(const std::vector<Rec>& recs, XlaOrder sort, XlaFit fit,
                  int64_t heap_alignment, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Plan plan;
  plan.offsets.assign(n, -1);
  OverlapIndex placed(recs, &dl);
  if (!index_or_give_up(placed, plan, "xla")) return plan;
  auto commit = [&](int32_t i, int64_t off) {
    plan.offsets[i] = off;
    placed.insert(i);
    plan.total = std::max(plan.total, sat_add(off, recs[i].size));
  };
  std::vector<int32_t> order;
  for (int32_t i = 0; i < n; ++i) {
    if (recs[i].fixed >= 0) commit(i, recs[i].fixed);  // pre-placed: committed chunks
    else order.push_back(i);
  }
  auto length = [&](int32_t i) { return recs[i].end - recs[i].start; };
  const auto less = [&](int32_t a, int32_t b) {
    switch (sort) {
      case XlaOrder::kSpatial:  // size desc, duration desc, id asc
        if (recs[a].size != recs[b].size) return recs[a].size > recs[b].size;
        return length(a) > length(b);
      case XlaOrder::kTemporal:  // duration desc, size desc, id asc
        if (length(a) != length(b)) return length(a) > length(b);
        return recs[a].size > recs[b].size;
      case XlaOrder::kSpatialTemporal: {  // size x duration desc (uint128 in the source)
        const __int128 x = static_cast<__int128>(recs[a].size) * length(a);
        const __int128 y = static_cast<__int128>(recs[b].size) * length(b);
        return x > y;
      }
    }
    return false;
  };
  if (!sort_or_give_up(order, dl, plan, "xla best fit", less)) return plan;
  std::vector<int32_t> hits;
  std::vector<std::pair<int64_t, int64_t>> used;
  int64_t steps = 0;
  for (int32_t i : order) {
    if (out_of_time(dl, steps, plan, "xla best fit")) return plan;
    const Rec& r = recs[i];
    const int64_t align = std::max(heap_alignment, r.align);
    hits = placed.query(r.start, r.end);
    used.clear();
    for (int32_t t : hits) used.push_back({plan.offsets[t], sat_add(plan.offsets[t], recs[t].size)});
    std::sort(used.begin(), used.end());
    // MakeFreeChunksList: free chunks [free_start, u0) of length >= size, then [x, inf).
    int64_t free_start = 0, best = -1, best_len = std::numeric_limits<int64_t>::max();
    bool done = false;
    for (const auto& [u0, u1] : used) {
      if (u0 - free_start >= r.size) {
        const int64_t start = round_up(free_start, align);
        if (u0 - r.size >= start) {
          if (fit == XlaFit::kLowestOffset) {
            best = start;
            done = true;
            break;
          }
          if (u0 - free_start < best_len) {  // smallest raw chunk; lowest offset on ties
            best_len = u0 - free_start;
            best = start;
          }
        }
      }
      free_start = std::max(free_start, round_up(u1, align));
    }
    if (!done && best < 0) best = round_up(free_start, align);
    commit(i, best);
  }
  return plan;
}

void register_xla(std::vector<SolverInfo>& out) {
  struct V {
    const char* name;
    XlaOrder order;
    const char* what;
  };
  for (const V& v : {V{"xla-spatial", XlaOrder::kSpatial, "spatial (size desc)"},
                     V{"xla-temporal", XlaOrder::kTemporal, "temporal (live range desc)"},
                     V{"xla-spatial-temporal", XlaOrder::kSpatialTemporal,
                       "spatial x temporal (area desc)"}}) {
    const XlaOrder order = v.order;
    add_solver(out, v.name,
               std::string("XLA GlobalDecreasingSizeBestFitHeap, ") + v.what + ", best fit",
               [order](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
                 return xla_best_fit(recs, order, XlaFit::kBestFit, 1, dl);
               });
  }
  add_solver(out, "xla-choose-best",
             "XLA buffer assignment: ChooseBestHeapAlgorithm over {spatial, temporal} best fit",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               Plan s = xla_best_fit(recs, XlaOrder::kSpatial, XlaFit::kBestFit, 1, dl);
               Plan t = xla_best_fit(recs, XlaOrder::kTemporal, XlaFit::kBestFit, 1, dl);
               if (!s.complete || !t.complete) return s.complete ? t : s;
               if (t.total < s.total) {
                 t.detail = "chose=temporal";
                 return t;
               }
               s.detail = "chose=spatial";
               return s;
             });
  add_solver(out, "xla-packing-search",
             "XLA CreateHeapWithPackingSearch: {best fit, lowest offset} x 3 orders, best kept",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               // Each run is complete; past the deadline the remaining runs are skipped.
               Plan best;
               best.complete = false;
               const char* names[] = {"spatial", "temporal", "spatial-temporal"};
               for (XlaFit fit : {XlaFit::kBestFit, XlaFit::kLowestOffset})
                 for (int o = 0; o < 3; ++o) {
                   if (best.complete && dl.expired()) return best;
                   Plan p = xla_best_fit(recs, static_cast<XlaOrder>(o), fit, 1, dl);
                   if (!p.complete) return best.complete ? best : p;
                   if (!best.complete || p.total < best.total) {
                     best = std::move(p);
                     best.detail = std::string("chose=") +
                                   (fit == XlaFit::kBestFit ? "best-fit-" : "lowest-offset-") +
                                   names[o];
                   }
                 }
               return best;
             });
}

}  // namespace memplan::baselines
