// Alignment-aware section inference (aligned_stacks_fit, stacking.h): sound against brute
// force on one section, blind to nothing the unaligned test sees, and the exact searches
// with it still decide small aligned instances (sizes not multiples of their alignment)
// like brute force, in fewer nodes than without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "exact_testing.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/exact/search.h"
#include "solvers/exact/stacking.h"
#include "testing.h"

namespace memplan {
namespace {

// The lowest top of items stacked disjointly in one section, each at a multiple of its
// alignment, at or above its release and `base`: every order, each item at the lowest
// aligned offset above the previous one's top (any stacking, listed by offset, is at or
// above that greedy one, item by item).
int64_t brute_top(const std::vector<exact::StackItem>& items, int64_t base) {
  std::vector<size_t> perm(items.size());
  std::iota(perm.begin(), perm.end(), 0);
  int64_t best = INT64_MAX;
  do {
    int64_t top = base;
    for (size_t k : perm) {
      const exact::StackItem& it = items[k];
      const int64_t x = (std::max(top, it.release) + it.align - 1) / it.align * it.align;
      top = x + it.size;
    }
    best = std::min(best, top);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

// A random item of section 0: alignment 2^(0..levels-1), size 1..max_size, release
// 0..releases-1 (rounded down to its alignment when `aligned`).
exact::StackItem one_section_item(std::mt19937_64& rng, int levels, int64_t max_size, int64_t releases,
                                  bool aligned) {
  exact::StackItem it{0, 1, 0, 0};
  it.align = int64_t{1} << (rng() % static_cast<uint64_t>(levels));
  it.size = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_size));
  it.release = static_cast<int64_t>(rng() % static_cast<uint64_t>(releases));
  if (aligned) it.release = it.release / it.align * it.align;
  return it;
}

TEST(ExactAligned, PaddedStackingIsSoundAndSeesPadding) {
  std::mt19937_64 rng(2101);
  std::vector<int64_t> low(4), tree;
  std::vector<exact::StackItem> rounded;
  int feasible = 0, caught = 0, missed = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::vector<exact::StackItem> items(1 + trial % 6);
    for (auto& it : items) it = one_section_item(rng, 4, 12, 10, true);
    std::sort(items.begin(), items.end(),
              [](const auto& a, const auto& b) { return a.release < b.release; });
    const int64_t base = static_cast<int64_t>(rng() % 4);
    const int64_t top = brute_top(items, base);
    for (int64_t cap = top - 3; cap <= top + 1; ++cap) {
      const bool plain = exact::stacks_fit(items, 0, 1, base, cap, low, tree);
      const bool padded = exact::aligned_stacks_fit(items, 0, 1, base, cap, rounded, low, tree);
      if (cap >= top) {
        ++feasible;
        ASSERT_TRUE(plain) << "trial " << trial;
        ASSERT_TRUE(padded) << "trial " << trial << " cap " << cap << " top " << top;  // sound
      } else if (plain) {
        (padded ? missed : caught) += 1;  // the padding the unaligned test cannot see
      }
    }
  }
  RecordProperty("caught", caught);
  RecordProperty("missed", missed);
  EXPECT_GT(feasible, 4000);
  // Refutes nearly all the unaligned test lets through (the rounded levels alone: 1,815 of
  // 6,206; with the per-section subset program: 6,185).
  EXPECT_GT(caught, 5000);
}

// Over several sections (items spanning ranges of them): the per-section subset program
// refutes exactly when some section whose live items have mixed alignments cannot stack
// them under cap (brute force over orders, section by section).
TEST(ExactAligned, SectionsFitExactlyAgreesWithBruteForcePerSection) {
  std::mt19937_64 rng(2103);
  int refuted = 0, passed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<exact::StackItem> items(2 + trial % 6);
    for (auto& it : items) {
      it.lo = static_cast<int32_t>(rng() % 5);
      it.hi = it.lo + 1 + static_cast<int32_t>(rng() % 3);
      it.align = int64_t{1} << (rng() % 4);
      it.size = 1 + static_cast<int64_t>(rng() % 12);
      it.release = static_cast<int64_t>(rng() % 10) / it.align * it.align;
    }
    const int32_t s_lo = static_cast<int32_t>(rng() % 2), s_hi = 5 + static_cast<int32_t>(rng() % 3);
    const int64_t base = static_cast<int64_t>(rng() % 4);
    const int64_t cap = 12 + static_cast<int64_t>(rng() % 30);
    bool expected = true;
    for (int32_t s = s_lo; s < s_hi; ++s) {
      std::vector<exact::StackItem> live;
      for (const auto& it : items)
        if (it.lo <= s && s < it.hi) live.push_back(it);
      const bool mixed = std::any_of(live.begin(), live.end(), [&](const auto& it) { return it.align != live[0].align; });
      if (live.size() >= 2 && mixed && brute_top(live, base) > cap) expected = false;
    }
    ASSERT_EQ(exact::sections_fit_exactly(items, s_lo, s_hi, base, cap), expected) << "trial " << trial;
    (expected ? passed : refuted) += 1;
  }
  EXPECT_GT(refuted, 300);  // both verdicts are exercised
  EXPECT_GT(passed, 300);
}

// One section of up to 8 items: the search over stacking orders, the subset program it falls
// back on (no expansions allowed), and the default (2 x 2^k expansions) all answer as brute
// force does, releases aligned or not, and the search decides most sections on its own.
TEST(ExactAligned, SectionFitsAgreesWithBruteForceByEitherMethod) {
  std::mt19937_64 rng(2104);
  int fits = 0, not_fits = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<exact::StackItem> items(2 + trial % 7);
    for (auto& it : items) it = one_section_item(rng, 5, 20, 24, trial % 2 == 1);
    std::vector<const exact::StackItem*> live;
    for (const auto& it : items) live.push_back(&it);
    const int64_t base = static_cast<int64_t>(rng() % 6);
    const int64_t top = brute_top(items, base);
    for (int64_t cap : {top - 1, top}) {
      const bool expected = cap >= top;
      ASSERT_EQ(exact::section_fits(live, base, cap, INT64_MAX), expected) << "trial " << trial;
      ASSERT_EQ(exact::section_fits(live, base, cap, 0), expected) << "trial " << trial;
      ASSERT_EQ(exact::section_fits(live, base, cap), expected) << "trial " << trial;
      (expected ? fits : not_fits) += 1;
    }
  }
  EXPECT_EQ(fits, 3000);
  EXPECT_EQ(not_fits, 3000);
}

// The gate that decides when a search calls the padded inference: on every call while it
// refutes often, on one call in kSample once it stops refuting, and on every call again once
// the sampled calls refute often. The same calls whatever the clock (counts only).
TEST(ExactAligned, PaddingGateFollowsTheRefutationRate) {
  using G = exact::PaddingGate;
  exact::PaddingGate always, never;
  int64_t ran_always = 0, ran_never = 0;
  for (int call = 0; call < 8192; ++call) {
    if (always.open()) ++ran_always, always.record(true);
    if (never.open()) ++ran_never, never.record(false);
  }
  EXPECT_EQ(ran_always, 8192);
  EXPECT_LE(ran_never, G::kWarm + 8192 / G::kSample + 1);
  EXPECT_GE(ran_never, 8192 / G::kSample);
  // Refuting again: back to every call within a window of sampled runs.
  int64_t closed_after = 0;
  for (int call = 0; call < 8192 * G::kSample; ++call)
    if (never.open()) never.record(true);
    else closed_after = call;
  EXPECT_LT(closed_after, 2 * G::kWindow * G::kSample);
  for (int call = 0; call < 100; ++call) EXPECT_TRUE(never.open());
}

// Random instances like the (alignments up to 8, sizes 1-12, not multiples).
Problem aligned_problem(std::mt19937_64& rng, int buffers) {
  testing::RandomSpec spec;
  spec.buffers = buffers;
  spec.horizon = 5;
  spec.max_size = 12;
  spec.alignment = true;
  return testing::random_problem(rng, spec);
}

TEST(ExactAligned, SearchesDecideAlignedInstancesLikeBruteForceInFewerNodes) {
  std::mt19937_64 rng(2102);
  int64_t nodes_on = 0, nodes_off = 0;
  const int trials = static_cast<int>(testing::sanitizer_scaled(150, 40));
  for (int trial = 0; trial < trials; ++trial) {
    const Problem p = aligned_problem(rng, 3 + trial % 4);
    const int64_t opt = testing::brute_force_optimum(p);
    const exact::Instance in = testing::exact_instance(p);
    for (const char* keys : {"WAT", "TAW"}) {
      const std::vector<int32_t> order = exact::preorder(in, keys);
      testing::expect_decides_like_brute_force(p, in, order, keys, opt, trial);
      for (exact::CellChoice choice : {exact::CellChoice::kLeastSlack, exact::CellChoice::kFewestBranches}) {
        const exact::SearchResult yes = exact::search_cells(in, opt, order, choice, INT64_MAX, Deadline());
        ASSERT_EQ(yes.outcome, exact::Outcome::kFound) << "trial " << trial;
        ASSERT_TRUE(testing::brute_force_valid(p, yes.offsets, opt)) << "trial " << trial;
        ASSERT_EQ(exact::search_cells(in, opt - 1, order, choice, INT64_MAX, Deadline()).outcome,
                  exact::Outcome::kInfeasible)
            << "trial " << trial;
      }
      // The proof at opt - 1, with and without the padded inference.
      for (bool on : {true, false}) {
        exact::aligned_inference = on;
        const exact::SearchResult no = exact::search(in, opt - 1, order, INT64_MAX, Deadline(), keys);
        exact::aligned_inference = true;
        ASSERT_EQ(no.outcome, exact::Outcome::kInfeasible) << "trial " << trial;
        (on ? nodes_on : nodes_off) += no.nodes;
      }
    }
  }
  RecordProperty("nodes_on", static_cast<int>(nodes_on));
  RecordProperty("nodes_off", static_cast<int>(nodes_off));
  EXPECT_LT(nodes_on, nodes_off);
}

TEST(ExactAligned, SolverProvesAlignedOptimaOfBruteForce) {
  std::mt19937_64 rng(2103);
  const int trials = static_cast<int>(testing::sanitizer_scaled(40, 10));
  for (int trial = 0; trial < trials; ++trial) {
    const Problem p = aligned_problem(rng, 5 + trial % 3);
    const int64_t opt = testing::brute_force_optimum(p);
    SolveOptions o;
    o.time_limit_seconds = 20;
    o.threads = 1;
    const SolveResult r = solve(p, "exact", o);
    ASSERT_TRUE(r.solution) << "trial " << trial;
    EXPECT_EQ(r.status, Status::kOptimal) << "trial " << trial << " " << r.detail;
    EXPECT_EQ(r.solution->peak, opt) << "trial " << trial;
    EXPECT_EQ(r.lower_bound, opt) << "trial " << trial;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << "trial " << trial;
  }
}

}  // namespace
}  // namespace memplan
