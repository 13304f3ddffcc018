// The validator against a brute force that knows every feature (brute_force.h), each rule
// on a violation of its own, and LOAD as a sound lower bound under in-place reuse.
#include <gtest/gtest.h>

#include <random>

#include "brute_force.h"
#include "memplan/bounds.h"
#include "memplan/validate.h"
#include "testing.h"

namespace memplan {
namespace {

using testing::make_buffer;

int64_t uni(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A tiny problem with a random mix of alignment, gaps with windows, fixed offsets, in-place
// chains (and now and then a malformed relation), groups, two ends and a capacity.
Problem random_featured(std::mt19937_64& rng, bool capacity, bool malformed) {
  Problem p;
  const int n = static_cast<int>(uni(rng, 1, 5));
  for (int i = 0; i < n; ++i) {
    Buffer b = make_buffer("b" + std::to_string(i), uni(rng, 0, 4), 0, uni(rng, 1, 5));
    b.end = uni(rng, b.start + 1, 7);
    if (uni(rng, 0, 3) == 0) b.alignment = int64_t{1} << uni(rng, 1, 2);
    if (b.end - b.start >= 3 && uni(rng, 0, 3) == 0) {
      Gap g;
      g.start = uni(rng, b.start + 1, b.end - 2);
      g.end = uni(rng, g.start + 1, b.end - 1);
      if (uni(rng, 0, 1) && b.size >= 2) {
        g.has_window = true;
        g.window_lo = uni(rng, 0, b.size - 1);
        g.window_hi = uni(rng, g.window_lo + 1, b.size);
      }
      b.gaps.push_back(g);
    }
    if (uni(rng, 0, 7) == 0) b.offset = uni(rng, 0, 3) * b.alignment;
    if (i > 0 && uni(rng, 0, 2) == 0) b.inplace_of = "b" + std::to_string(i - 1);
    if (uni(rng, 0, 4) == 0) {
      b.group = "g";
      b.group_index = uni(rng, 0, 3);
    }
    if (uni(rng, 0, 5) == 0) b.from_top = true;
    p.buffers.push_back(b);
  }
  if (malformed && n >= 2) {
    switch (uni(rng, 0, 2)) {
      case 0: p.buffers[0].inplace_of = "nobody"; break;
      case 1: p.buffers[0].inplace_of = p.buffers[n - 1].id; break;  // a cycle if a chain leads there
      default: p.buffers[n - 1].inplace_of = p.buffers[0].id; break;  // may reuse b0 twice
    }
  }
  if (capacity) p.capacity = uni(rng, 4, 20);
  return p;
}

// Offsets that often satisfy the constraints: shared in place, back to back, fixed.
std::vector<int64_t> random_offsets(std::mt19937_64& rng, const Problem& p) {
  std::vector<int64_t> off(p.buffers.size());
  for (size_t i = 0; i < off.size(); ++i) {
    const Buffer& b = p.buffers[i];
    off[i] = uni(rng, 0, 14);
    if (uni(rng, 0, 4) != 0) off[i] = off[i] / b.alignment * b.alignment;
    if (b.offset && uni(rng, 0, 4) != 0) off[i] = *b.offset;
    if (i > 0 && !b.inplace_of.empty() && b.inplace_of == p.buffers[i - 1].id && uni(rng, 0, 2) != 0)
      off[i] = off[i - 1];
    if (uni(rng, 0, 9) == 0) off[i] = -uni(rng, 1, 3);
  }
  // Groups back to back (in input order, which is often but not always the index order).
  int64_t next = -1;
  for (size_t i = 0; i < off.size(); ++i)
    if (!p.buffers[i].group.empty() && uni(rng, 0, 3) != 0) {
      if (next >= 0) off[i] = next;
      next = off[i] + p.buffers[i].size;
    }
  return off;
}

TEST(ValidateBrute, VerdictEqualsBruteForceOnRandomFeaturedPlans) {
  std::mt19937_64 rng(20);
  int valid = 0, invalid = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Problem p = random_featured(rng, trial % 3 == 0, trial % 17 == 0);
    const std::vector<int64_t> off = random_offsets(rng, p);
    const bool expect = brute::valid(p, off);
    const Validation v = validate(p, off);
    ASSERT_EQ(v.ok, expect) << "trial " << trial << (v.errors.empty() ? "" : ": " + v.errors[0]);
    ASSERT_EQ(v.ok, v.errors.empty());
    (expect ? valid : invalid)++;
  }
  // Both verdicts are common, so neither side of the comparison is vacuous.
  EXPECT_GT(valid, 2000);
  EXPECT_GT(invalid, 2000);
}

// Above 4,096 events the sweep's events are sorted as packed integer keys (a radix sort):
// the verdict must not change. The featured problem is padded with a chain of buffers that
// touch in time at offset 0 (each ends when the next starts: ends must come before starts),
// far before it in time; every other trial spans more than the keys can pack (the comparison
// sort). Trials with a two-ended pool are not padded (the padding would be a low-end buffer).
TEST(ValidateBrute, VerdictUnchangedWhenTheSweepSortsPackedKeys) {
  std::mt19937_64 rng(21);
  int valid = 0, invalid = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Problem p = random_featured(rng, trial % 3 == 0, trial % 17 == 0);
    std::vector<int64_t> off = random_offsets(rng, p);
    bool two_ends = false;
    for (const Buffer& b : p.buffers) two_ends = two_ends || b.from_top;
    if (two_ends) continue;
    const bool expect = brute::valid(p, off);
    Problem big = p;
    const int64_t base = trial % 2 == 0 ? -(int64_t{1} << 40) : -(int64_t{1} << 62);
    for (int i = 0; i < 3000; ++i) {
      big.buffers.push_back(make_buffer("pad" + std::to_string(i), base + i, base + i + 1, 1));
      off.push_back(0);
    }
    const Validation v = validate(big, off);
    ASSERT_EQ(v.ok, expect) << "trial " << trial << (v.errors.empty() ? "" : ": " + v.errors[0]);
    (expect ? valid : invalid)++;
  }
  EXPECT_GT(valid, 30);
  EXPECT_GT(invalid, 30);
  // Times from INT64_MIN to INT64_MAX (their span overflows 64 bits): the comparison sort.
  Problem wide;
  std::vector<int64_t> off;
  for (int i = 0; i < 3000; ++i) {
    wide.buffers.push_back(make_buffer("w" + std::to_string(i), INT64_MIN + i, INT64_MIN + i + 1, 1));
    off.push_back(0);
  }
  wide.buffers.push_back(make_buffer("last", INT64_MAX - 2, INT64_MAX - 1, 1));
  off.push_back(0);
  EXPECT_TRUE(validate(wide, off).ok);
  wide.buffers.back().start = INT64_MIN + 5;  // now live with w5 at the same byte
  wide.buffers.back().end = INT64_MIN + 6;
  EXPECT_FALSE(validate(wide, off).ok);
}

TEST(ValidateBrute, CapacityArgumentOverridesTheProblems) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 3000; ++trial) {
    const Problem p = random_featured(rng, true, false);
    const std::vector<int64_t> off = random_offsets(rng, p);
    const int64_t cap = uni(rng, 4, 20);
    ASSERT_EQ(validate(p, off, cap).ok, brute::valid(p, off, cap)) << "trial " << trial;
  }
}

// ---- each rule on its own ----

bool ok(const Problem& p, const std::vector<int64_t>& off, std::optional<int64_t> cap = std::nullopt) {
  const bool v = validate(p, off, cap).ok;
  EXPECT_EQ(v, brute::valid(p, off, cap));  // the brute force agrees on every case below
  return v;
}

TEST(ValidateRules, OffsetsAlignmentFixedAndCapacity) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 2, 4), make_buffer("b", 3, 5, 4)};
  p.buffers[1].alignment = 4;
  EXPECT_TRUE(ok(p, {0, 4}));
  EXPECT_FALSE(ok(p, {0, 2}));       // misaligned
  EXPECT_FALSE(ok(p, {-1, 0}));      // negative
  EXPECT_FALSE(ok(p, {0}));          // one offset short
  EXPECT_TRUE(ok(p, {0, 4}, 8));
  EXPECT_FALSE(ok(p, {0, 4}, 7));    // ends above the capacity
  p.buffers[0].offset = 4;
  EXPECT_FALSE(ok(p, {0, 0}));       // not where it was pre-placed
  EXPECT_TRUE(ok(p, {4, 0}));
  EXPECT_FALSE(validate(p, {INT64_MAX - 1, 0}).ok);  // offset + size overflows
}

TEST(ValidateRules, OverlapInTimeAndBytesHalfOpen) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 4, 4), make_buffer("b", 3, 6, 4), make_buffer("c", 4, 6, 4)};
  EXPECT_FALSE(ok(p, {0, 2, 8}));  // a and b live at 3, bytes [2,4) shared
  EXPECT_TRUE(ok(p, {0, 4, 0}));   // c starts when a ends: it may reuse a's bytes
  EXPECT_FALSE(ok(p, {0, 4, 6}));  // c and b
  // A gap frees a's bytes during [1,3) except its window [0,1).
  p.buffers[0].gaps = {{1, 3, true, 0, 1}};
  Buffer d = make_buffer("d", 1, 3, 3);
  p.buffers.push_back(d);
  EXPECT_TRUE(ok(p, {0, 4, 8, 1}));
  EXPECT_FALSE(ok(p, {0, 4, 8, 0}));  // d's byte 0 meets the window
  p.buffers[0].gaps = {{1, 3, false, 0, 0}};
  EXPECT_TRUE(ok(p, {0, 4, 8, 0}));   // absent: anything fits
}

TEST(ValidateRules, InPlacePairsShareOnlyAtOneOffset) {
  Problem p;
  p.buffers = {make_buffer("x", 0, 4, 8), make_buffer("y", 2, 6, 4), make_buffer("z", 0, 6, 4)};
  p.buffers[1].inplace_of = "x";
  EXPECT_TRUE(ok(p, {0, 0, 8}));
  EXPECT_FALSE(ok(p, {0, 4, 8}));   // elsewhere it is an ordinary buffer
  EXPECT_TRUE(ok(p, {4, 0, 12}));   // apart and disjoint: fine too
  // Sizes may differ: y larger than x at the same offset.
  p.buffers[1].size = 12;
  EXPECT_TRUE(ok(p, {0, 0, 12}));
  // A third buffer must avoid the union: z at 8 meets y's bytes [8,12) during [2,6).
  EXPECT_FALSE(ok(p, {0, 0, 8}));
  // The pair is not symmetric in names but sharing is: x in place of y works the same.
  p.buffers[1].inplace_of.clear();
  p.buffers[0].inplace_of = "y";
  EXPECT_TRUE(ok(p, {0, 0, 12}));
  p.buffers[0].inplace_of.clear();
  EXPECT_FALSE(ok(p, {0, 0, 12}));  // no in-place relation: an ordinary overlap
}

TEST(ValidateRules, InPlaceChainsShareThroughEveryMember) {
  // a <- b <- c, all live during [1,3).
  Problem p;
  p.buffers = {make_buffer("a", 0, 3, 4), make_buffer("b", 1, 4, 4), make_buffer("c", 1, 5, 4)};
  p.buffers[1].inplace_of = "a";
  p.buffers[2].inplace_of = "b";
  EXPECT_TRUE(ok(p, {0, 0, 0}));
  EXPECT_FALSE(ok(p, {0, 4, 0}));  // a and c at 0, but b elsewhere: a and c do not share
  EXPECT_TRUE(ok(p, {0, 0, 4}));   // a, b share; c apart
  EXPECT_TRUE(ok(p, {8, 0, 0}));   // b, c share; a apart
  EXPECT_FALSE(ok(p, {2, 0, 0}));  // a apart from b but overlapping its bytes
}

TEST(ValidateRules, MalformedInPlaceRelationsAreRejected) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 3, 4), make_buffer("b", 1, 4, 4), make_buffer("c", 5, 6, 4)};
  p.buffers[1].inplace_of = "nobody";
  EXPECT_FALSE(ok(p, {0, 4, 0}));
  p.buffers[1].inplace_of = "b";
  EXPECT_FALSE(ok(p, {0, 4, 0}));
  p.buffers[1].inplace_of = "a";
  p.buffers[2].inplace_of = "a";  // a reused twice
  EXPECT_FALSE(ok(p, {0, 4, 0}));
  p.buffers[2].inplace_of.clear();
  p.buffers[0].inplace_of = "b";  // a <- b <- a
  EXPECT_FALSE(ok(p, {0, 4, 0}));
  p.buffers[0].inplace_of.clear();
  EXPECT_TRUE(ok(p, {0, 4, 0}));
}

TEST(ValidateRules, GroupsBackToBackInIndexOrder) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 2, 4), make_buffer("b", 5, 6, 8), make_buffer("c", 0, 6, 2)};
  p.buffers[0].group = p.buffers[1].group = "cat";
  p.buffers[0].group_index = 1;
  p.buffers[1].group_index = 0;
  EXPECT_TRUE(ok(p, {8, 0, 12}));    // b then a, even though they never live together
  EXPECT_FALSE(ok(p, {0, 4, 12}));   // a then b: wrong order
  EXPECT_FALSE(ok(p, {9, 0, 14}));   // a hole between them
  EXPECT_FALSE(ok(p, {8, 0, 10}));   // back to back, but c overlaps a
  p.buffers[1].group_index = 1;      // a tie: input order
  EXPECT_TRUE(ok(p, {0, 4, 12}));
}

TEST(ValidateRules, TwoEndedPoolSides) {
  Problem p;
  p.buffers = {make_buffer("lo", 0, 2, 4), make_buffer("hi", 4, 6, 4), make_buffer("hi2", 0, 6, 2)};
  p.buffers[1].from_top = p.buffers[2].from_top = true;
  p.buffers[2].alignment = 2;
  EXPECT_TRUE(ok(p, {0, 4, 8}));
  // The high end may not reach below a low buffer, even at another time.
  EXPECT_FALSE(ok(p, {0, 2, 8}));
  EXPECT_FALSE(ok(p, {6, 8, 12}));  // low above the high end
  EXPECT_TRUE(ok(p, {0, 0 + 6, 4}));
  // With a capacity, the top is the capacity rounded down to the high end's alignment 2.
  EXPECT_TRUE(ok(p, {0, 6, 4}, 11));
  EXPECT_TRUE(ok(p, {0, 4, 8}, 11));
  EXPECT_FALSE(ok(p, {0, 7, 4}, 11));  // ends at 11 = capacity, above the top 10
  EXPECT_TRUE(ok(p, {0, 7, 4}, 12));
  // Without high buffers nothing is asked of the sides.
  p.buffers[1].from_top = p.buffers[2].from_top = false;
  EXPECT_TRUE(ok(p, {4, 0, 8}));
}

TEST(ValidateRules, MalformedProblemsAreRejected) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 2, 4)};
  p.buffers[0].alignment = 3;
  EXPECT_FALSE(validate(p, {0}).ok);
  p.buffers[0].alignment = 0;
  EXPECT_FALSE(validate(p, {0}).ok);
  p.buffers[0].alignment = 1;
  p.buffers[0].size = -5;
  EXPECT_FALSE(validate(p, {0}).ok);
  p.buffers[0].size = 4;
  p.buffers[0].end = 0;
  EXPECT_FALSE(validate(p, {0}).ok);
  p.buffers[0].end = 2;
  p.buffers[0].gaps = {{1, 3, false, 0, 0}};
  EXPECT_FALSE(validate(p, {0}).ok);
  p.buffers[0].gaps = {{1, 2, true, 0, 5}};
  EXPECT_FALSE(validate(p, {0}).ok);
  p.buffers[0].gaps = {{1, 2, true, 0, 4}};
  EXPECT_TRUE(validate(p, {0}).ok);
}

TEST(ValidateRules, PeakAndErrorMessages) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 4, 4), make_buffer("b", 3, 6, 4)};
  const Validation v = validate(p, {0, 2});
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.peak, 6);
  ASSERT_EQ(v.errors.size(), 1u);
  EXPECT_NE(v.errors[0].find("'a'"), std::string::npos) << v.errors[0];
  EXPECT_NE(v.errors[0].find("'b'"), std::string::npos) << v.errors[0];
  EXPECT_NE(v.errors[0].find("time 3"), std::string::npos) << v.errors[0];
}

// ---- LOAD with in-place reuse ----

// max over t of the sum, per in-place chain, of the widest live member (brute force).
int64_t merged_load(const Problem& p) {
  const auto target = brute::inplace_targets(p);
  int64_t best = 0;
  for (int64_t t = 0; t < 10; ++t) {
    std::map<int, int64_t> widest;
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      int k = static_cast<int>(i);
      while ((*target)[k] >= 0) k = (*target)[k];
      const auto [lo, hi] = brute::extent_at(p.buffers[i], t);
      widest[k] = std::max(widest[k], hi - lo);
    }
    int64_t sum = 0;
    for (const auto& [k, w] : widest) sum += w;
    best = std::max(best, sum);
  }
  return best;
}

TEST(LoadBrute, InPlaceLoadIsALowerBoundOnEveryFeaturedOptimum) {
  std::mt19937_64 rng(22);
  int checked = 0, plain_load_unsound = 0, tight = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    Problem p = random_featured(rng, false, false);
    if (p.buffers.size() > 4) p.buffers.resize(4);
    for (Buffer& b : p.buffers) b.offset.reset();
    if (!brute::inplace_targets(p)) continue;
    const int64_t load = compute_load(p);
    ASSERT_EQ(load, merged_load(p)) << "trial " << trial;
    int64_t limit = 0;
    for (const Buffer& b : p.buffers) limit += b.size + b.alignment;
    const auto opt = brute::optimum(p, limit);
    if (!opt) continue;  // e.g. a group whose members cannot be aligned back to back
    ++checked;
    ASSERT_LE(load, *opt) << "trial " << trial;
    tight += load == *opt;
    Problem plain = p;
    for (Buffer& b : plain.buffers) b.inplace_of.clear();
    plain_load_unsound += compute_load(plain) > *opt;
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(tight, 100);               // the bound is often reached
  EXPECT_GT(plain_load_unsound, 20);   // LOAD without the merge would have failed these
}

TEST(LoadBrute, InPlacePairCountsOnceAndTheReportedLoadIsReachable) {
  Problem p;
  p.buffers = {make_buffer("x", 0, 4, 8192), make_buffer("y", 2, 6, 8192)};
  EXPECT_EQ(compute_load(p), 16384);
  p.buffers[1].inplace_of = "x";
  EXPECT_EQ(compute_load(p), 8192);
  EXPECT_TRUE(validate(p, {0, 0}).ok);  // a plan at that LOAD
  // A larger member: the pair contributes its widest live member at each instant.
  p.buffers.push_back(make_buffer("z", 3, 5, 100));
  p.buffers[1].size = 9000;
  EXPECT_EQ(compute_load(p), 9100);
}

}  // namespace
}  // namespace memplan
