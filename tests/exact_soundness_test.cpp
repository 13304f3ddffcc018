// Soundness of the exact search's pruning on instances far beyond brute force: take a known
// plan, compact it until no buffer can move down (then it is canonical for any preorder
// and no other buffer could fill a gap below one, so dominance does not apply to it), and
// check that the search, restricted to placing each buffer at that plan's offset, reaches
// it with every pruning rule on. A rule that cut a feasible canonical path would fail here.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

#include "core/arith.h"
#include "memplan/io.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/exact/search.h"
#include "testing.h"

namespace memplan {
namespace {

// Moves every buffer to its lowest feasible aligned offset given all the others, until
// nothing moves (offsets only decrease, so this terminates).
void compact(const Problem& p, std::vector<int64_t>& off) {
  const size_t n = p.buffers.size();
  std::vector<std::vector<size_t>> adj(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j && lifetimes_overlap(p.buffers[i], p.buffers[j])) adj[i].push_back(j);
  for (bool moved = true; moved;) {
    moved = false;
    std::vector<size_t> by_offset(n);
    std::iota(by_offset.begin(), by_offset.end(), 0);
    std::sort(by_offset.begin(), by_offset.end(), [&](size_t a, size_t b) { return off[a] < off[b]; });
    for (size_t i : by_offset) {
      std::vector<std::pair<int64_t, int64_t>> taken;
      for (size_t j : adj[i]) taken.push_back({off[j], off[j] + p.buffers[j].size});
      std::sort(taken.begin(), taken.end());
      int64_t x = 0;
      for (const auto& [lo, hi] : taken) {
        if (x + p.buffers[i].size <= lo) break;
        if (x < hi) x = align_up(hi, p.buffers[i].alignment);
      }
      if (x < off[i]) {
        off[i] = x;
        moved = true;
      }
    }
  }
}

// Compacts `plan` and checks the search reaches it under preorder `keys`.
void expect_reached(const Problem& p, std::vector<int64_t> off, const std::string& keys,
                    const std::string& what) {
  compact(p, off);
  ASSERT_TRUE(validate(p, off).ok) << what;
  std::optional<exact::Instance> in = exact::prepare(p, 1 << 30, Deadline());
  ASSERT_TRUE(in) << what;
  const std::vector<int32_t> order = exact::preorder(*in, keys);
  // Identical buffers are placed in preorder rank: give them their offsets in that order.
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, std::vector<int32_t>> twins;
  for (int32_t i : order) {
    const Buffer& b = p.buffers[size_t(i)];
    twins[{b.start, b.end, b.size, b.alignment}].push_back(i);
  }
  for (const auto& [key, group] : twins) {
    std::vector<int64_t> o;
    for (int32_t i : group) o.push_back(off[size_t(i)]);
    std::sort(o.begin(), o.end());
    for (size_t k = 0; k < group.size(); ++k) off[size_t(group[k])] = o[k];
  }
  const int64_t cap = peak_of(p, off);
  const exact::SearchResult r = exact::search_following(*in, cap, order, off, Deadline(60));
  ASSERT_EQ(r.outcome, exact::Outcome::kFound) << what << " (a pruning rule cut the path)";
  EXPECT_EQ(r.offsets, off) << what;
  // The same with re-ranking on decomposition (MiniMalloc's sub-problem preorders). The
  // new ranks may order identical buffers differently only if their keys differ, which
  // they do not, so the twin assignment above still holds.
  const exact::SearchResult rr = exact::search_following(*in, cap, order, off, Deadline(60), keys);
  ASSERT_EQ(rr.outcome, exact::Outcome::kFound) << what << " (re-ranking search cut the path)";
  EXPECT_EQ(rr.offsets, off) << what;
}

// A capacity x horizon rectangle cut by random guillotine cuts into n buffers: a plan at
// peak = capacity with no free space at all.
std::pair<Problem, std::vector<int64_t>> tiling(std::mt19937_64& rng, int n, int64_t horizon,
                                                int64_t capacity, int64_t unit) {
  struct Rect {
    int64_t t0, t1, a0, a1;
  };
  std::vector<Rect> rects = {{0, horizon, 0, capacity}};
  for (int tries = 0; int(rects.size()) < n && tries < 100 * n; ++tries) {
    const size_t k = rng() % rects.size();
    const Rect r = rects[k];
    const bool time = rng() % 2;
    if (time && r.t1 - r.t0 >= 2) {
      const int64_t c = r.t0 + 1 + int64_t(rng() % uint64_t(r.t1 - r.t0 - 1));
      rects[k].t1 = c;
      rects.push_back({c, r.t1, r.a0, r.a1});
    } else if (!time && (r.a1 - r.a0) / unit >= 2) {
      const int64_t c = r.a0 + unit * (1 + int64_t(rng() % uint64_t((r.a1 - r.a0) / unit - 1)));
      rects[k].a1 = c;
      rects.push_back({r.t0, r.t1, c, r.a1});
    }
  }
  Problem p;
  std::vector<int64_t> off;
  for (size_t k = 0; k < rects.size(); ++k) {
    p.buffers.push_back(testing::make_buffer("t" + std::to_string(k), rects[k].t0, rects[k].t1,
                                             rects[k].a1 - rects[k].a0));
    off.push_back(rects[k].a0);
  }
  return {p, off};
}

TEST(ExactSoundness, ReachesCompactedTilings) {
  std::mt19937_64 rng(21);
  for (int it = 0; it < 60; ++it) {
    const int n = 20 + int(rng() % 230);
    const int64_t unit = it % 2 ? 1024 : 1;
    auto [p, off] = tiling(rng, n, 40 + int64_t(rng() % 160), unit * (64 + int64_t(rng() % 1000)), unit);
    for (const char* keys : {"WAT", "TAW", "TWA"})
      expect_reached(p, off, keys, "tiling " + std::to_string(it) + " " + keys);
  }
}

TEST(ExactSoundness, ReachesCompactedFirstFitPlans) {
  std::mt19937_64 rng(22);
  for (int it = 0; it < 150; ++it) {
    testing::RandomSpec spec;
    spec.buffers = 10 + int(rng() % 120);
    spec.horizon = 8 + int64_t(rng() % 60);
    spec.max_size = 1 + int64_t(rng() % 50);
    spec.alignment = it % 2 == 1;
    const Problem p = testing::random_problem(rng, spec);
    std::vector<int32_t> order(p.buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const GreedyResult g = place_in_order(p, order, Fit::kFirst);
    ASSERT_TRUE(g.complete);
    expect_reached(p, g.solution.offsets, it % 3 == 0 ? "WAT" : it % 3 == 1 ? "TAW" : "TWA",
                   "random " + std::to_string(it));
  }
}

TEST(ExactSoundness, ReachesCompactedPlansOfMiniMallocBenchmarks) {
  for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}) {
    const Problem p =
        read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") + name + ".1048576.csv")).problem;
    std::vector<int32_t> order(p.buffers.size());
    std::iota(order.begin(), order.end(), 0);
    const GreedyResult g = place_in_order(p, order, Fit::kBest);
    ASSERT_TRUE(g.complete);
    expect_reached(p, g.solution.offsets, "WAT", name);
  }
}

TEST(Exact, SamePlanOnOneAndTwoThreads) {
  // Probes of one round run on several threads, but the first deciding probe in list order
  // wins, so a run that ends by itself (not by the clock) does not depend on the threads.
  // Tilings: the optimum is the tiled width, which the search must find and prove; runs cut
  // by the clock are counted and excluded from the comparison. One buffer is a byte short,
  // so the tiling is not perfect: a perfect one takes the fewest-branches search first
  // (exact.cpp) and is then mostly found by the first probe, which leaves the second thread
  // nothing to do; the tiled plan still fits the width, which stays LOAD.
  std::mt19937_64 rng(31);
  int searched = 0, timed_out = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Problem p = tiling(rng, 40 + trial % 40, 100, 1000 + int64_t(rng() % 1000), 1).first;
    if (p.buffers[0].size > 1) --p.buffers[0].size;
    SolveResult r[2];
    for (int t = 0; t < 2; ++t) {
      SolveOptions o;
      o.time_limit_seconds = 5;
      o.threads = t + 1;
      r[t] = solve(p, "exact", o);
    }
    if (r[0].status != Status::kOptimal || r[1].status != Status::kOptimal) {
      ++timed_out;
      continue;
    }
    ASSERT_EQ(r[0].solution->offsets, r[1].solution->offsets) << "trial " << trial;
    searched += r[0].iterations >= 2;  // probes ran side by side on the two threads
  }
  RecordProperty("timed_out", timed_out);
  RecordProperty("searched", searched);
  EXPECT_LE(timed_out, 5);
  // Not vacuous: enough runs needed more than one probe (16 of the 300 here; the perfect
  // tilings this test used before gave 15 of 200, and 14 under ASan+UBSan, issue 20). The
  // floor leaves room for a few hard trials cut by the clock on a loaded machine.
  EXPECT_GE(searched, testing::sanitizer_scaled(12, 10));
}

}  // namespace
}  // namespace memplan
