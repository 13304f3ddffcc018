// Differential tests: the baselines whose source algorithms are quadratic run here on
// faster data structures (a kd-tree for Triton's interference graph, a bit table for
// TFLite's greedy-by-size distance table). Each must make exactly the decisions of the
// plain transcription of its source, kept below as the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <list>
#include <map>
#include <numeric>
#include <random>

#include "solvers/baselines/baselines.h"

namespace memplan {
namespace {

using baselines::Objects;
using baselines::Plan;
using baselines::Rec;
constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
const Deadline kNoDeadline;

// heuristics.md §1.1.5 with the full (unassigned x objects) distance table.
Objects reference_greedy_by_size_objects(const std::vector<Rec>& recs) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Objects o;
  o.ids.assign(n, -1);
  const std::vector<int64_t> pm = baselines::tflite_gpu_positional_maximums(recs);
  std::vector<int64_t> position(n);
  for (int32_t i = 0; i < n; ++i) {
    size_t p = 0;
    while (p < pm.size() && pm[p] >= recs[i].size) ++p;  // first p with PM[p] < size
    position[i] = static_cast<int64_t>(p) - 1;
  }
  // Temporal distance between disjoint intervals (inclusive source terms); kInf if they
  // overlap.
  auto dist = [&](int32_t a, int32_t b) -> int64_t {
    if (overlap(recs[a], recs[b])) return kInf;
    return recs[b].start > recs[a].last() ? recs[b].start - recs[a].last()
                                          : recs[a].start - recs[b].last();
  };
  std::vector<std::vector<int64_t>> d(n);  // d[q][obj]
  std::vector<int64_t> best_dist(n, kInf);
  std::vector<int32_t> best_obj(n, -1);
  std::vector<int32_t> unassigned(n);
  std::iota(unassigned.begin(), unassigned.end(), 0);
  for (int32_t step = 0; step < n; ++step) {
    // Highest priority: smaller position, then smaller best_dist, then larger size; the
    // first in index order wins ties (unassigned stays in index order).
    size_t pick = 0;
    for (size_t k = 1; k < unassigned.size(); ++k) {
      const int32_t a = unassigned[k], b = unassigned[pick];
      if (position[a] != position[b] ? position[a] < position[b]
          : best_dist[a] != best_dist[b] ? best_dist[a] < best_dist[b]
                                         : recs[a].size > recs[b].size)
        pick = k;
    }
    const int32_t r = unassigned[pick];
    unassigned.erase(unassigned.begin() + pick);
    int32_t obj;
    const bool fresh = best_dist[r] == kInf;
    if (fresh) {
      obj = static_cast<int32_t>(o.sizes.size());
      o.sizes.push_back(recs[r].size);
    } else {
      obj = best_obj[r];
      o.sizes[obj] = std::max(o.sizes[obj], recs[r].size);
    }
    o.ids[r] = obj;
    for (int32_t q : unassigned) {
      const int64_t dq = dist(q, r);
      if (fresh) {
        d[q].push_back(dq);
      } else {
        if (d[q][obj] == kInf) continue;
        if (dq == kInf) {
          d[q][obj] = kInf;
          if (best_obj[q] == obj) {  // rescan, first minimum in id order wins
            best_dist[q] = kInf;
            best_obj[q] = -1;
            for (int32_t k = 0; k < static_cast<int32_t>(d[q].size()); ++k)
              if (d[q][k] < best_dist[q]) {
                best_dist[q] = d[q][k];
                best_obj[q] = k;
              }
          }
          continue;
        }
        d[q][obj] = std::min(d[q][obj], dq);
      }
      if (dq < best_dist[q]) {
        best_dist[q] = dq;
        best_obj[q] = obj;
      }
    }
  }
  return o;
}


// heuristics.md §5: triple map, then colour and bump, rebuilding the interference graph
// from all pairs every round.
Plan reference_triton(const std::vector<Rec>& recs) {
  struct Range {
    int64_t lo, hi;
    bool intersects(const Range& o) const { return std::max(lo, o.lo) < std::min(hi, o.hi); }
  };
  const int32_t n = static_cast<int32_t>(recs.size());
  Plan plan;
  plan.offsets.assign(n, 0);
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; });
  std::multimap<int64_t, Range> triples;
  triples.insert({0, Range{std::numeric_limits<int64_t>::min(), kInf}});
  std::list<int32_t> remaining(order.begin(), order.end());
  while (!remaining.empty() && !triples.empty()) {
    const auto [slot, range] = *triples.begin();
    triples.erase(triples.begin());
    auto found = remaining.end();
    for (auto it = remaining.begin(); it != remaining.end() && found == remaining.end(); ++it) {
      const Range x{recs[*it].start, recs[*it].end};
      if (!x.intersects(range)) continue;
      bool clear = true;
      for (const auto& t : triples) clear = clear && !t.second.intersects(x);
      if (clear) found = it;
    }
    if (found == remaining.end()) continue;
    const int32_t b = *found;
    remaining.erase(found);
    const Range x{recs[b].start, recs[b].end};
    const int64_t off = baselines::round_up(slot, recs[b].align);
    plan.offsets[b] = off;
    triples.insert({off + recs[b].size, Range{std::max(range.lo, x.lo), std::min(range.hi, x.hi)}});
    if (range.lo < x.lo) triples.insert({slot, Range{range.lo, x.hi}});
    if (x.hi < range.hi) triples.insert({slot, Range{x.lo, range.hi}});
  }
  for (;;) {
    std::vector<std::vector<int32_t>> adj(n);
    bool any = false;
    for (int32_t x = 0; x < n; ++x)
      for (int32_t y = 0; y < n; ++y)
        if (x != y && baselines::overlap(recs[x], recs[y]) &&
            plan.offsets[y] < plan.offsets[x] + recs[x].size &&
            plan.offsets[x] < plan.offsets[y] + recs[y].size) {
          adj[x].push_back(y);
          any = true;
        }
    if (!any) break;
    std::vector<int32_t> colour(n, -1);
    for (int32_t x : order) {
      int32_t c = 0;
      while (std::any_of(adj[x].begin(), adj[x].end(), [&](int32_t y) { return colour[y] == c; }))
        ++c;
      colour[x] = c;
    }
    for (int32_t x : order) {
      if (colour[x] == 0) continue;
      int64_t top = 0;
      for (int32_t y : adj[x]) top = std::max(top, plan.offsets[y] + recs[y].size);
      plan.offsets[x] = baselines::round_up(top, recs[x].align);
    }
  }
  for (int32_t i = 0; i < n; ++i) plan.total = std::max(plan.total, plan.offsets[i] + recs[i].size);
  return plan;
}

// Small random instances with many ties (equal sizes, shared event times), where the
// tie-breaking rules decide.
std::vector<Rec> random_recs(std::mt19937_64& rng, int n, int64_t horizon, int64_t max_size,
                             bool align) {
  std::vector<Rec> recs(n);
  for (Rec& r : recs) {
    r.start = static_cast<int64_t>(rng() % horizon);
    r.end = r.start + 1 + static_cast<int64_t>(rng() % (horizon / 2 + 1));
    r.size = 1 + static_cast<int64_t>(rng() % max_size);
    if (align) r.align = int64_t{1} << (rng() % 4);
  }
  return recs;
}

TEST(BaselinesDifferential, GreedyBySizeObjectsMatchesFullDistanceTable) {
  std::mt19937_64 rng(11);
  for (int it = 0; it < 3000; ++it) {
    const auto recs = random_recs(rng, 1 + it % 60, 4 + it % 40, 1 + it % 9, false);
    const Objects want = reference_greedy_by_size_objects(recs);
    const Objects got = baselines::tflite_gpu_greedy_by_size_objects(recs, kNoDeadline);
    ASSERT_TRUE(got.complete);
    ASSERT_EQ(got.ids, want.ids) << "instance " << it;
    ASSERT_EQ(got.sizes, want.sizes) << "instance " << it;
  }
}

TEST(BaselinesDifferential, TritonMatchesAllPairsRebuild) {
  std::mt19937_64 rng(12);
  for (int it = 0; it < 3000; ++it) {
    const auto recs = random_recs(rng, 1 + it % 60, 4 + it % 40, 1 + it % 30, it % 2 == 1);
    const Plan want = reference_triton(recs);
    const Plan got = baselines::triton_shared_memory(recs, kNoDeadline);
    ASSERT_TRUE(got.complete);
    ASSERT_EQ(got.offsets, want.offsets) << "instance " << it;
    ASSERT_EQ(got.total, want.total) << "instance " << it;
  }
}

// The flow cost of a shared-objects answer: per object, its tenants in time order form a
// reuse chain costing the first size plus every growth (the source's edge costs). Also
// checks that tenants of one object never overlap.
int64_t chain_cost(const std::vector<Rec>& recs, const Objects& o) {
  std::vector<std::vector<int32_t>> tenants(o.sizes.size());
  for (size_t i = 0; i < recs.size(); ++i) tenants.at(o.ids[i]).push_back(static_cast<int32_t>(i));
  int64_t cost = 0;
  for (auto& t : tenants) {
    std::sort(t.begin(), t.end(), [&](int32_t a, int32_t b) { return recs[a].start < recs[b].start; });
    for (size_t k = 0; k < t.size(); ++k) {
      if (k == 0) {
        cost += recs[t[k]].size;
        continue;
      }
      EXPECT_LT(recs[t[k - 1]].last(), recs[t[k]].start) << "tenants overlap";
      cost += std::max<int64_t>(0, recs[t[k]].size - recs[t[k - 1]].size);
    }
  }
  return cost;
}

TEST(BaselinesDifferential, MinCostFlowAssignmentReachesTheSourceFlowCost) {
  std::mt19937_64 rng(13);
  int differing_layouts = 0;
  for (int it = 0; it < 1500; ++it) {
    const auto recs = random_recs(rng, 1 + it % 40, 4 + it % 30, 1 + it % 12, false);
    const Objects source = baselines::tflite_gpu_min_cost_flow(recs, kNoDeadline);  // small: source SSP
    const Objects fast = baselines::tflite_gpu_min_cost_flow_assignment(recs, kNoDeadline);
    ASSERT_TRUE(source.complete && fast.complete);
    ASSERT_EQ(chain_cost(recs, fast), chain_cost(recs, source)) << "instance " << it;
    differing_layouts += fast.ids != source.ids;
    // Limited candidates: still a valid answer, never cheaper than the optimum.
    const Objects near = baselines::tflite_gpu_min_cost_flow_assignment(recs, kNoDeadline, 4);
    ASSERT_TRUE(near.complete);
    ASSERT_GE(chain_cost(recs, near), chain_cost(recs, source)) << "instance " << it;
  }
  // Equal-cost ties do resolve differently sometimes (reported, not required).
  RecordProperty("differing_layouts", differing_layouts);
}

}  // namespace
}  // namespace memplan
