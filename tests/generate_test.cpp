// Generator determinism and instance statistics.
#include <gtest/gtest.h>

#include <sstream>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

std::string csv(const Problem& p) {
  std::ostringstream out;
  write_csv(out, p, nullptr);
  return out.str();
}

TEST(Generate, SameSeedSameInstanceOtherSeedOther) {
  for (const auto& [kind, description] : generator_kinds()) {
    GenerateOptions o;
    o.kind = kind;
    o.buffers = 300;
    o.seed = 42;
    const Problem a = generate(o), b = generate(o);
    EXPECT_EQ(csv(a), csv(b)) << kind;
    o.seed = 43;
    EXPECT_NE(csv(generate(o)), csv(a)) << kind;
  }
}

TEST(Generate, RequestedCountAndWellFormed) {
  for (const auto& [kind, description] : generator_kinds()) {
    for (int64_t n : {0, 1, 7, 1000}) {
      GenerateOptions o;
      o.kind = kind;
      o.buffers = n;
      o.seed = static_cast<uint64_t>(n) + 1;
      const Problem p = generate(o);
      EXPECT_EQ(static_cast<int64_t>(p.buffers.size()), n) << kind;
      EXPECT_NO_THROW(check_problem(p, kind));  // unique ids, sizes > 0, end > start
    }
  }
}

TEST(Generate, TilingLoadEqualsCapacity) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    GenerateOptions o;
    o.kind = "tiling";
    o.buffers = 5 + static_cast<int64_t>(seed) * 37;
    o.seed = seed;
    o.capacity = 1000 + static_cast<int64_t>(seed);
    o.horizon = 5000;
    const Problem p = generate(o);
    EXPECT_EQ(compute_load(p), o.capacity) << seed;
  }
}

// The perfect-packing kinds: the generator's own plan validates (independent validator) at
// peak = capacity, and LOAD = capacity, so the optimum is known. The aligned kind's buffers
// carry alignments above 1, each dividing its size and planned offset (the validator checks
// the offset); the pinwheel kind is not guillotine (no straight cut separates it).
bool guillotine(const Packing& g, std::vector<int32_t> ids) {
  if (ids.size() <= 1) return true;
  const auto& b = g.problem.buffers;
  // A cut at time t (or address a) separates ids iff no buffer straddles it; try every
  // boundary of the group's pieces.
  for (int axis = 0; axis < 2; ++axis) {
    auto lo = [&](int32_t i) { return axis == 0 ? b[i].start : g.offsets[i]; };
    auto hi = [&](int32_t i) { return axis == 0 ? b[i].end : g.offsets[i] + b[i].size; };
    for (int32_t c : ids) {
      const int64_t cut = hi(c);
      std::vector<int32_t> below, above;
      bool straddles = false;
      for (int32_t i : ids) {
        if (hi(i) <= cut) below.push_back(i);
        else if (lo(i) >= cut) above.push_back(i);
        else straddles = true;
      }
      if (straddles || below.empty() || above.empty()) continue;
      return guillotine(g, below) && guillotine(g, above);
    }
  }
  return false;
}

TEST(Generate, PackingKindsArePerfectPackingsOfTheirCapacity) {
  for (const char* kind : {"tiling", "pinwheel", "aligned"}) {
    int aligned_buffers = 0, non_guillotine = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      GenerateOptions o;
      o.kind = kind;
      o.buffers = 3 + static_cast<int64_t>(seed) * 23;
      o.seed = seed;
      o.capacity = seed % 2 ? 4096 : 1000 + static_cast<int64_t>(seed);
      o.horizon = 3000;
      const Packing g = generate_packing(o);
      EXPECT_EQ(static_cast<int64_t>(g.problem.buffers.size()), o.buffers) << kind << seed;
      EXPECT_EQ(csv(g.problem), csv(generate(o))) << kind << seed;  // the same instance
      const Validation v = validate(g.problem, g.offsets);
      EXPECT_TRUE(v.ok) << kind << seed << (v.errors.empty() ? "" : v.errors[0]);
      EXPECT_EQ(v.peak, o.capacity) << kind << seed;
      EXPECT_EQ(compute_load(g.problem), o.capacity) << kind << seed;
      for (const Buffer& b : g.problem.buffers) {
        aligned_buffers += b.alignment > 1;
        EXPECT_EQ(b.size % b.alignment, 0) << kind << seed;
      }
      std::vector<int32_t> all(g.problem.buffers.size());
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int32_t>(i);
      non_guillotine += !guillotine(g, all);
    }
    if (std::string(kind) == "aligned") EXPECT_GT(aligned_buffers, 100) << kind;
    else EXPECT_EQ(aligned_buffers, 0) << kind;
    if (std::string(kind) == "pinwheel") EXPECT_GE(non_guillotine, 10) << kind;
    else EXPECT_EQ(non_guillotine, 0) << kind;
  }
  GenerateOptions o;
  o.kind = "dnn";
  EXPECT_THROW(generate_packing(o), std::invalid_argument);
}

// Training: the forward activations nest (each outlives every later one) and all of them
// are live at the turn between the passes, a quarter of the buffers; each is freed by its
// mirrored backward step, and the backward steps' temporaries live one or two steps.
TEST(Generate, TrainingKeepsActivationsLiveUntilTheirBackwardStep) {
  for (int64_t n : {4, 401, 4000}) {
    GenerateOptions o;
    o.kind = "training";
    o.buffers = n;
    o.seed = static_cast<uint64_t>(n);
    const Problem p = generate(o);
    const int64_t layers = (n + 3) / 4;
    int64_t live_at_turn = 0, short_lived = 0;
    for (const Buffer& b : p.buffers) {
      live_at_turn += b.start <= layers - 1 && layers < b.end;
      short_lived += b.end - b.start <= 2 && b.start >= layers;
    }
    EXPECT_EQ(live_at_turn, layers) << n;
    EXPECT_EQ(short_lived, n - layers) << n;
    for (int64_t k = 0; k < layers; ++k) {
      EXPECT_EQ(p.buffers[k].start, k) << n;
      EXPECT_EQ(p.buffers[k].end, 2 * layers - k) << n;  // after its backward step 2L-1-k
    }
  }
}

TEST(Generate, RejectsBadOptions) {
  GenerateOptions o;
  o.kind = "bogus";
  EXPECT_THROW(generate(o), std::invalid_argument);
  o.kind = "uniform";
  o.buffers = -1;
  EXPECT_THROW(generate(o), std::invalid_argument);
  o.buffers = 10;
  o.horizon = INT64_MAX;
  o.max_length = INT64_MAX;
  EXPECT_THROW(generate(o), std::invalid_argument);  // start + length would overflow
}

TEST(Stats, HandMadeInstance) {
  Problem p;
  p.buffers = {{"a", 0, 4, 10}, {"b", 2, 6, 20, 8}, {"c", 4, 8, 5}, {"d", 10, 12, 20},
               {"e", 5, 7, 30}};
  p.buffers[3].offset = 0;
  p.buffers[4].gaps = {{5, 6, false, 0, 0}};  // e is absent during [5, 6)
  const InstanceStats s = compute_stats(p);
  EXPECT_EQ(s.buffers, 5);
  EXPECT_EQ(s.time_min, 0);
  EXPECT_EQ(s.time_max, 12);
  EXPECT_EQ(s.distinct_times, 9);  // 0 2 4 5 6 7 8 10 12
  EXPECT_EQ(s.size_min, 5);
  EXPECT_EQ(s.size_max, 30);
  EXPECT_DOUBLE_EQ(s.size_ratio, 6.0);
  EXPECT_EQ(s.total_size, 85);
  // Live totals: [0,2) 10, [2,4) 30, [4,6) 25 (e absent in [5,6)), [6,7) 35, [7,8) 5,
  // [10,12) 20. Without the gap, [5,6) would hold 55.
  EXPECT_EQ(s.load, 35);
  EXPECT_EQ(s.max_live_buffers, 3);  // b, c, e over [5, 6) (lifetimes, gaps ignored)
  EXPECT_EQ(s.overlapping_pairs, 4);  // a-b, b-c, b-e, c-e (a-c only touch at 4)
  EXPECT_DOUBLE_EQ(s.overlap_density, 0.4);
  EXPECT_EQ(s.fixed, 1);
  EXPECT_EQ(s.aligned, 1);
  EXPECT_EQ(s.with_gaps, 1);
}

}  // namespace
}  // namespace memplan
