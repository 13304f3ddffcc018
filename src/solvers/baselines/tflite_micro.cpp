// TFLite Micro GreedyMemoryPlanner: offline-planned buffers first, stable size-descending
// order, first fit (the lowest gap that fits) among time-overlapping buffers
// (heuristics.md §1.3).
#include <algorithm>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {

Plan tflite_micro_greedy(const std::vector<Rec>& recs, const Deadline& dl) {
  Plan plan;
  InsertionList list(recs, plan, dl, "tflite-micro");
  if (!plan.complete) return plan;
  std::vector<int32_t> order = list.commit_fixed();  // offline offsets, insertion order
  auto commit = [&](int32_t i, int64_t off) { list.commit(i, off); };
  // ReverseSortInPlace is a stable bubble sort: equal sizes keep insertion order.
  if (!sort_or_give_up(order, dl, plan, "tflite-micro greedy",
                       [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; }))
    return plan;
  std::vector<Hit> hits;
  int64_t steps = 0;
  for (int32_t i : order) {
    if (out_of_time(dl, steps, plan, "tflite-micro greedy")) return plan;
    const Rec& r = recs[i];
    list.hits(r.start, r.end, hits);
    // Walk the overlapping entries in offset order: candidate = highest top of those passed
    // (the planner ignores alignment; we round the candidate up to the buffer's own).
    int64_t candidate = 0;
    for (size_t k = 0;; ++k) {
      if (k > 0)
        candidate = std::max(candidate, sat_add(hits[k - 1].offset, recs[hits[k - 1].idx].size));
      candidate = round_up(candidate, r.align);
      if (k == hits.size()) break;
      if (hits[k].offset - candidate >= r.size) break;
    }
    commit(i, candidate);
  }
  return plan;
}

void register_tflite_micro(std::vector<SolverInfo>& out) {
  add_solver(out, "tflite-micro-greedy",
             "TFLite Micro GreedyMemoryPlanner: size desc (stable), first fit",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return tflite_micro_greedy(recs, dl);
             });
}

}  // namespace memplan::baselines
