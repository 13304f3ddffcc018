// The lowest-cell search (src/solvers/exact/cells.cpp) on its own: against brute force on
// tiny instances (with alignment), on perfect tilings, and on a benchmark where a wrong undo
// once returned an overlapping plan.
#include <gtest/gtest.h>

#include <random>

#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/validate.h"
#include "solvers/exact/search.h"
#include "solvers/exact/stacking.h"
#include "exact_testing.h"
#include "testing.h"

namespace memplan {
namespace {

constexpr exact::CellChoice kChoices[] = {exact::CellChoice::kLeastSlack, exact::CellChoice::kFewestBranches,
                                          exact::CellChoice::kWells};

TEST(ExactCells, DecidesTinyInstancesLikeBruteForce) {
  std::mt19937_64 rng(909);
  int found = 0, refuted = 0;
  const int trials = static_cast<int>(testing::sanitizer_scaled(1500, 300));  // instrumented: fewer
  for (int trial = 0; trial < trials; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 6;
    spec.horizon = 6;
    spec.max_size = 4;
    spec.alignment = trial % 3 == 0;
    const Problem p = testing::random_problem(rng, spec);
    const int64_t opt = testing::brute_force_optimum(p);
    const exact::Instance in = testing::exact_instance(p);
    for (const char* keys : {"WAT", "TAW", "ZWA"}) {
      const std::vector<int32_t> order = exact::preorder(in, keys);
      for (exact::CellChoice choice : kChoices) {
        const exact::SearchResult yes =
            exact::search_cells(in, opt, order, choice, INT64_MAX, Deadline());
        ASSERT_EQ(yes.outcome, exact::Outcome::kFound) << "trial " << trial << " " << keys;
        ASSERT_TRUE(testing::brute_force_valid(p, yes.offsets, opt)) << "trial " << trial;
        ++found;
        const exact::SearchResult no =
            exact::search_cells(in, opt - 1, order, choice, INT64_MAX, Deadline());
        ASSERT_EQ(no.outcome, exact::Outcome::kInfeasible) << "trial " << trial << " " << keys;
        ++refuted;
      }
    }
  }
  EXPECT_EQ(found, refuted);
  EXPECT_GT(found, 8000 * trials / 1500);
}

TEST(ExactCells, PlansOnPerfectTilingsAreValid) {
  // Guillotine tilings fit their capacity exactly; whatever the search returns must be a
  // valid plan within it, and an exhausted search would be a wrong proof.
  int solved = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    GenerateOptions g;
    g.kind = "tiling";
    g.buffers = 12 + static_cast<int>(seed % 30);
    g.capacity = 64;
    g.horizon = 40;
    g.seed = seed;
    const Problem p = generate(g);
    const exact::Instance in = testing::exact_instance(p);
    const std::vector<int32_t> order = exact::preorder(in, "WAT");
    for (exact::CellChoice choice : kChoices) {
      const exact::SearchResult r = exact::search_cells(in, 64, order, choice, 200000, Deadline());
      ASSERT_NE(r.outcome, exact::Outcome::kInfeasible) << "seed " << seed;
      if (r.outcome != exact::Outcome::kFound) continue;
      ASSERT_TRUE(validate(p, r.offsets).ok) << "seed " << seed;
      ASSERT_LE(peak_of(p, r.offsets), 64) << "seed " << seed;
      ++solved;
    }
  }
  EXPECT_GT(solved, 40);
}

TEST(ExactCells, DepthTraceRecordsEveryNode) {
  // cell_depth_bench's hook: one entry per node (r.nodes), each the buffers placed there;
  // the root places none, and a found packing's last node has all but the last buffer.
  GenerateOptions g;
  g.kind = "tiling";
  g.buffers = 30;
  g.capacity = 64;
  g.horizon = 40;
  g.seed = 3;
  const Problem p = generate(g);
  const exact::Instance in = testing::exact_instance(p);
  std::vector<int32_t> trace;
  exact::cell_depth_trace = &trace;
  const exact::SearchResult r =
      exact::search_cells(in, 64, exact::preorder(in, "WAT"), exact::CellChoice::kWells, 200000, Deadline());
  exact::cell_depth_trace = nullptr;
  ASSERT_EQ(r.outcome, exact::Outcome::kFound);
  ASSERT_EQ(static_cast<int64_t>(trace.size()), r.nodes);
  EXPECT_EQ(trace.front(), 0);
  EXPECT_EQ(*std::max_element(trace.begin(), trace.end()), in.n - 1);
}

TEST(ExactCells, BenchmarkHPlanIsValid) {
  // H at 1 MiB is solved within a few thousand nodes. A failed node must also undo the
  // sub-problems its decomposition had already solved; forgetting that once returned a
  // plan with overlapping buffers here.
  const Problem p = read_csv_file(testing::source_path("benchmarks/minimalloc/H.1048576.csv")).problem;
  const exact::Instance in = testing::exact_instance(p);
  const exact::SearchResult r = exact::search_cells(in, 1048576, exact::preorder(in, "TWA"),
                                                    exact::CellChoice::kLeastSlack, 1000000, Deadline());
  ASSERT_EQ(r.outcome, exact::Outcome::kFound);
  EXPECT_TRUE(validate(p, r.offsets).ok);
  EXPECT_LE(peak_of(p, r.offsets), 1048576);
}

// A generated packing of capacity 256 over 80 time steps.
Problem small_packing(const char* kind, int buffers, uint64_t seed) {
  GenerateOptions g;
  g.kind = kind;
  g.buffers = buffers;
  g.capacity = 256;
  g.horizon = 80;
  g.seed = seed;
  return generate(g);
}

TEST(ExactCells, IncrementalInferenceAgreesWithScratch) {
  // The cell search tests again only the sections a decision changed (cells.cpp, infer),
  // and keeps its decomposition and memo keys up to date by each placement (section_parts.h);
  // with check_inference it compares the verdict with the test over the whole sub-problem,
  // and the parts and keys with those of a scan of the buffers, at every node, and throws on
  // a difference. Random search paths: generated packings (tiling, pinwheel, aligned) at,
  // below and above their capacity, under random orders, every cell choice, short budgets
  // (so the searches go deep and backtrack). Every fourth instance is two packings one
  // after the other in time, and a third overlapping both for seeds 8 and 16: parts from
  // the root on, or once the bridge is placed.
  exact::check_inference = true;
  int found = 0, refuted = 0, nodes = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    Problem p = small_packing(seed % 3 == 0 ? "tiling" : seed % 3 == 1 ? "pinwheel" : "aligned",
                              20 + static_cast<int>(seed * 7 % 60), seed);
    if (seed % 4 == 0) {
      const Problem q = small_packing(seed % 8 == 0 ? "pinwheel" : "tiling", 15 + static_cast<int>(seed % 20), seed + 100);
      int64_t shift = 0;
      for (const Buffer& b : p.buffers) shift = std::max(shift, b.end);
      for (Buffer b : q.buffers) {
        b.id += "_q", b.start += shift, b.end += shift;
        p.buffers.push_back(b);
      }
      if (seed % 8 == 0) p.buffers.push_back(Buffer{.id = "bridge", .start = shift - 1, .end = shift + 1, .size = 16});
    }
    const exact::Instance in = testing::exact_instance(p);
    for (int64_t cap : {int64_t{256}, int64_t{255}, int64_t{240}, int64_t{270}})
      for (exact::CellChoice choice : kChoices) {
        exact::SearchResult r;
        ASSERT_NO_THROW(r = exact::search_cells(in, cap, exact::random_order(in.n, seed * 4 + static_cast<uint64_t>(cap)),
                                                choice, 3000, Deadline()))
            << "seed " << seed << " cap " << cap;
        found += r.outcome == exact::Outcome::kFound;
        refuted += r.outcome == exact::Outcome::kInfeasible;
        nodes += static_cast<int>(r.nodes);
        if (r.outcome == exact::Outcome::kFound) ASSERT_TRUE(validate(p, r.offsets).ok);
      }
  }
  exact::check_inference = false;
  EXPECT_GT(found, 20);
  EXPECT_GT(refuted, 20);
  EXPECT_GT(nodes, 20000);
}

TEST(ExactCells, WellTestIsSoundAndPrunes) {
  // The well test (cells.cpp, well_can_fill) refutes a node when the run of sections at the
  // lowest floor cannot be covered by candidate lifetimes and wastable sections. Against
  // brute force it is on in DecidesTinyInstancesLikeBruteForce (the default). Here, on
  // generated perfect packings at their capacity (zero slack everywhere, where it bites):
  // never a refutation, and fewer nodes in total than without it.
  int64_t nodes_on = 0, nodes_off = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const Problem p = small_packing(seed % 2 ? "pinwheel" : "tiling", 30 + static_cast<int>(seed * 5 % 50), seed);
    const exact::Instance in = testing::exact_instance(p);
    for (bool on : {true, false}) {
      exact::well_tiling = on;
      const exact::SearchResult r = exact::search_cells(in, 256, exact::random_order(in.n, seed),
                                                        exact::CellChoice::kFewestBranches, 20000, Deadline());
      exact::well_tiling = true;
      ASSERT_NE(r.outcome, exact::Outcome::kInfeasible) << "seed " << seed << " on " << on;
      if (r.outcome == exact::Outcome::kFound) ASSERT_TRUE(validate(p, r.offsets).ok);
      (on ? nodes_on : nodes_off) += r.nodes;
    }
  }
  EXPECT_LT(nodes_on, nodes_off);
}

TEST(ExactCells, DeclinesPreplacedBuffers) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 4, 2), testing::make_buffer("b", 2, 6, 3)};
  p.buffers[0].offset = 3;
  const exact::Instance in = testing::exact_instance(p);
  const exact::SearchResult r = exact::search_cells(in, 100, exact::preorder(in, "WAT"),
                                                    exact::CellChoice::kLeastSlack, 1000, Deadline());
  EXPECT_EQ(r.outcome, exact::Outcome::kBudget);
  EXPECT_EQ(r.nodes, 0);
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// `count` items over sections [s_lo, s_hi), sorted by release as the searches hand them over.
std::vector<exact::StackItem> random_items(std::mt19937_64& rng, int32_t s_lo, int32_t s_hi, size_t count) {
  std::vector<exact::StackItem> items(count);
  for (auto& it : items) {
    it.lo = s_lo + static_cast<int32_t>(rng() % (s_hi - s_lo));
    it.hi = it.lo + 1 + static_cast<int32_t>(rng() % (s_hi - it.lo));
    it.release = static_cast<int64_t>(rng() % 40);
    it.size = 1 + static_cast<int64_t>(rng() % 12);
  }
  std::sort(items.begin(), items.end(),
            [](const exact::StackItem& a, const exact::StackItem& b) { return a.release < b.release; });
  return items;
}

TEST(ExactStacking, TreeAgreesWithDirectStacking) {
  // The segment-tree form of section inference must give the direct stacking's answer.
  std::mt19937_64 rng(4242);
  int fits = 0, fails = 0;
  std::vector<int64_t> low(64), tree;
  for (int trial = 0; trial < 20000; ++trial) {
    const int32_t s_lo = static_cast<int32_t>(rng() % 8), s_hi = s_lo + 1 + static_cast<int32_t>(rng() % 40);
    const std::vector<exact::StackItem> items = random_items(rng, s_lo, s_hi, 1 + rng() % 30);
    const int64_t base = static_cast<int64_t>(rng() % 20), cap = 20 + static_cast<int64_t>(rng() % 80);
    const bool direct = exact::stacks_fit_direct(items, s_lo, s_hi, base, cap, low);
    ASSERT_EQ(exact::stacks_fit_tree(items, s_lo, s_hi, base, cap, tree), direct) << "trial " << trial;
    (direct ? fits : fails)++;
  }
  EXPECT_GT(fits, 2000);
  EXPECT_GT(fails, 2000);
}

TEST(ExactStacking, CompressedWideRangesAgreeWithDirectStacking) {
  // A few items over a wide range of sections: stacks_fit compresses the range to the
  // items' ends, which must not change the answer.
  std::mt19937_64 rng(77);
  int fits = 0, fails = 0;
  std::vector<int64_t> low(5000), low2(5000), tree;
  for (int trial = 0; trial < 5000; ++trial) {
    const int32_t s_lo = static_cast<int32_t>(rng() % 100), s_hi = s_lo + 200 + static_cast<int32_t>(rng() % 4000);
    const std::vector<exact::StackItem> items = random_items(rng, s_lo, s_hi, 1 + rng() % 20);
    const int64_t base = static_cast<int64_t>(rng() % 20), cap = 20 + static_cast<int64_t>(rng() % 80);
    const bool direct = exact::stacks_fit_direct(items, s_lo, s_hi, base, cap, low);
    ASSERT_EQ(exact::stacks_fit(items, s_lo, s_hi, base, cap, low2, tree), direct) << "trial " << trial;
    (direct ? fits : fails)++;
  }
  EXPECT_GT(fits, 500);
  EXPECT_GT(fails, 500);
}

// The leftmost section whose items alone do not stack (stacks_fit on that one section), or
// s_hi: what first_unstackable must return.
int32_t first_unstackable_brute(const std::vector<exact::StackItem>& items, int32_t s_lo, int32_t s_hi, int64_t base,
                                int64_t cap) {
  std::vector<int64_t> low(s_hi + 1), tree;
  for (int32_t s = s_lo; s < s_hi; ++s) {
    std::vector<exact::StackItem> here;
    for (const exact::StackItem& it : items)
      if (it.lo <= s && s < it.hi) here.push_back({s, s + 1, it.release, it.size});
    if (!exact::stacks_fit_tree(here, s, s + 1, base, cap, tree)) return s;
  }
  return s_hi;
}

TEST(ExactStacking, FirstUnstackableIsTheLeftmostFailingSection) {
  // Narrow ranges (the direct and the tree form, by cost) and wide ones with few items (the
  // compressed form): the section the cell search's reason names (cells.cpp, first_failing),
  // which must be the leftmost failing one, as the bisection it replaces found, and s_hi
  // exactly when stacks_fit passes.
  std::mt19937_64 rng(9001);
  int fits = 0, fails = 0, inner = 0;
  std::vector<int64_t> low(5000), tree;
  for (int trial = 0; trial < 6000; ++trial) {
    const bool wide = trial % 3 == 0;
    const int32_t s_lo = static_cast<int32_t>(rng() % 8);
    const int32_t s_hi = s_lo + 1 + static_cast<int32_t>(rng() % (wide ? 3000 : 40));
    const size_t count = 1 + rng() % (wide ? 12 : 30);
    std::vector<exact::StackItem> items = random_items(rng, s_lo, s_hi, count);
    if (trial % 2 == 0)  // long spans, so that the tree form is chosen
      for (auto& it : items) it.lo = s_lo + (it.lo - s_lo) / 4, it.hi = s_hi - (s_hi - it.hi) / 4;
    const int64_t base = static_cast<int64_t>(rng() % 20), cap = 20 + static_cast<int64_t>(rng() % 80);
    const int32_t expect = first_unstackable_brute(items, s_lo, s_hi, base, cap);
    ASSERT_EQ(exact::first_unstackable(items, s_lo, s_hi, base, cap, low, tree), expect) << "trial " << trial;
    ASSERT_EQ(exact::stacks_fit(items, s_lo, s_hi, base, cap, low, tree), expect == s_hi) << "trial " << trial;
    (expect == s_hi ? fits : fails)++;
    inner += expect > s_lo && expect < s_hi;
  }
  EXPECT_GT(fits, 1000);
  EXPECT_GT(fails, 1000);
  EXPECT_GT(inner, 500);  // not only the first section
}

}  // namespace
}  // namespace memplan
