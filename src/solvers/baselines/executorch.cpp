// ExecuTorch exir/memory_planning.py `greedy` (2024+): size-descending specs into shared
// buckets: reuse a bucket whose tenants are all time-disjoint (at offset 0), else stack on
// top of the overlapping tenants inside a bucket if it still fits, else open a new bucket;
// buckets are then laid out back-to-back (heuristics.md §6b).
#include <algorithm>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {

Objects executorch_greedy_buckets(const std::vector<Rec>& recs, std::vector<int64_t>* in_bucket,
                                  const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Objects o;
  o.ids.assign(n, -1);
  in_bucket->assign(n, 0);
  // bisect.insort (right of equals) + reverse: size desc, equal sizes in reverse order.
  std::vector<int32_t> order(n);
  for (int32_t i = 0; i < n; ++i) order[i] = n - 1 - i;
  if (!sort_or_give_up(order, dl, o, "executorch greedy",
                       [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; }))
    return o;
  // realign(alignment): the allocated size is the size rounded up to the alignment.
  auto asize = [&](int32_t i) { return round_up(recs[i].size, recs[i].align); };
  std::vector<std::vector<int32_t>> tenants;
  int64_t steps = 0;
  for (int32_t s : order) {
    if ((++steps & 63) == 0 && dl.expired()) {
      o.complete = false;
      o.detail = "time limit (executorch greedy)";
      return o;
    }
    int32_t chosen = -1;
    int64_t at = 0;
    // Pass 1: the first bucket none of whose tenants overlaps s in time.
    for (size_t k = 0; k < tenants.size() && chosen < 0; ++k) {
      bool clash = false;
      for (int32_t t : tenants[k])
        if (overlap(recs[t], recs[s])) {
          clash = true;
          break;
        }
      if (!clash) chosen = static_cast<int32_t>(k);
    }
    // Pass 2 (allow_overlapping_allocations): above the overlapping tenants, if it fits.
    for (size_t k = 0; k < tenants.size() && chosen < 0; ++k) {
      int64_t m = 0;
      for (int32_t t : tenants[k])
        if (overlap(recs[t], recs[s])) m = std::max(m, sat_add((*in_bucket)[t], asize(t)));
      m = round_up(m, recs[s].align);
      if (m > 0 && sat_add(m, asize(s)) <= o.sizes[k]) {
        chosen = static_cast<int32_t>(k);
        at = m;
      }
    }
    if (chosen < 0) {
      chosen = static_cast<int32_t>(o.sizes.size());
      o.sizes.push_back(asize(s));
      tenants.emplace_back();
    }
    o.ids[s] = chosen;
    (*in_bucket)[s] = at;
    tenants[chosen].push_back(s);
  }
  return o;
}

Plan executorch_greedy(const std::vector<Rec>& recs, const Deadline& dl) {
  std::vector<int64_t> in_bucket;
  const Objects o = executorch_greedy_buckets(recs, &in_bucket, dl);
  if (!o.complete) {
    Plan p;
    p.complete = false;
    p.detail = o.detail;
    return p;
  }
  Plan plan = objects_to_offsets(recs, o);  // bucket starts, aligned to their tenants
  plan.total = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    plan.offsets[i] = sat_add(plan.offsets[i], in_bucket[i]);
    plan.total = std::max(plan.total, sat_add(plan.offsets[i], recs[i].size));
  }
  return plan;
}

void register_executorch(std::vector<SolverInfo>& out) {
  add_solver(out, "executorch-greedy",
             "ExecuTorch memory_planning greedy: size desc into shared buckets, laid out",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return with_fixed_below(recs, [&](const std::vector<Rec>& r) {
                 return executorch_greedy(r, dl);
               });
             });
}

}  // namespace memplan::baselines
