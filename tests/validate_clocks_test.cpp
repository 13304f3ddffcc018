// Validator rule 7 (vector clocks, validate.h) against brute force: random small stream
// programs, happens-before by the explicit transitive closure of the op graph
// (stream_brute.h), random plans; the verdict must match "no two buffers sharing a byte
// conflict by the SOMAS rule".
#include <gtest/gtest.h>

#include <random>

#include "memplan/streams.h"
#include "memplan/validate.h"
#include "stream_brute.h"

namespace memplan {
namespace {

bool brute_plan_ok(const Problem& p, const std::vector<std::vector<char>>& conflict, const std::vector<int64_t>& off) {
  const int n = static_cast<int>(p.buffers.size());
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (conflict[a][b] && off[a] < off[b] + p.buffers[b].size && off[b] < off[a] + p.buffers[a].size) return false;
  return true;
}

TEST(ValidateClocks, RandomStreamProgramsMatchBruteForce) {
  std::mt19937 rng(7);
  int programs = 0, valid = 0, invalid = 0;
  for (int round = 0; round < 400; ++round) {
    const int S = 1 + static_cast<int>(rng() % 3), n = 2 + static_cast<int>(rng() % 8);
    const std::vector<StreamBuffer> prog = random_program(rng, S, n);
    std::vector<int64_t> sizes(n);
    for (auto& s : sizes) s = 1 + static_cast<int64_t>(rng() % 3);
    const BruteOrder brute = brute_order(prog, S);
    if (brute.cyclic) continue;  // covered by antichain_test's RandomStreamProgramsMatchBruteForce
    ++programs;
    const Problem lowered = problem_from_streams(prog, sizes, S);
    // The clocks alone: lifetimes made pairwise disjoint and no explicit conflicts, so
    // rules 3 and 6 cannot object and only rule 7 decides.
    Problem clocks_only = lowered;
    clocks_only.conflicts.clear();
    for (int i = 0; i < n; ++i) clocks_only.buffers[i].start = 2 * i, clocks_only.buffers[i].end = 2 * i + 1;
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<int64_t> off(n);
      for (auto& o : off) o = static_cast<int64_t>(rng() % 6);
      const bool want = brute_plan_ok(lowered, brute.conflict, off);
      EXPECT_EQ(validate(clocks_only, off).ok, want) << round << "/" << trial;
      EXPECT_EQ(validate(lowered, off).ok, want) << round << "/" << trial;  // the lowering agrees too
      (want ? valid : invalid)++;
    }
  }
  EXPECT_GT(programs, 120);  // the rest are cyclic
  EXPECT_GT(valid, 500);
  EXPECT_GT(invalid, 500);
}

TEST(ValidateClocks, MalformedClocksAreReported) {
  Problem p;
  for (int i = 0; i < 2; ++i) {
    Buffer b;
    b.id = "b" + std::to_string(i), b.start = i, b.end = i + 1, b.size = 1;
    p.buffers.push_back(b);
  }
  p.clock_dim = 2;
  p.clock_lower = {0, 0, 1, 0};
  p.clock_upper = {1, 0, 1, 0};  // b1: lower == upper
  EXPECT_FALSE(validate(p, {0, 1}).ok);
  p.clock_upper = {1, 0, 2};  // wrong length
  EXPECT_FALSE(validate(p, {0, 1}).ok);
  p.clock_upper = {1, 0, 2, 0};
  EXPECT_TRUE(validate(p, {0, 0}).ok);  // b0 dead before b1: they may share
  p.clock_lower = {0, 0, 0, 0};
  p.clock_upper = {1, 0, 0, 1};
  EXPECT_FALSE(validate(p, {0, 0}).ok);  // concurrent
}

}  // namespace
}  // namespace memplan
