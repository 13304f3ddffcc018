// Test helper shared by the exact search's tests.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "memplan/generate.h"
#include "memplan/problem.h"
#include "solvers/exact/search.h"
#include "testing.h"

namespace memplan::testing {

// The search's prepared instance of `p` (no deadline), with overlap lists, or `implicit`
// (without them, as on inputs with too many pairs).
inline exact::Instance exact_instance(const Problem& p, bool implicit = false) {
  std::optional<exact::Instance> in = exact::prepare(p, implicit ? -1 : 1 << 30, Deadline());
  EXPECT_TRUE(in.has_value());
  return *in;
}

// `memplan generate --kind KIND` with n buffers, the given capacity, horizon and seed.
inline Problem packing(const char* kind, int64_t buffers, uint64_t seed, int64_t capacity, int64_t horizon) {
  GenerateOptions g;
  g.kind = kind;
  g.buffers = buffers;
  g.capacity = capacity;
  g.horizon = horizon;
  g.seed = seed;
  return generate(g);
}

// The canonical search (re-ranking under `keys`, if any) finds a valid plan at the true
// optimum `opt` and proves opt - 1 infeasible.
inline void expect_decides_like_brute_force(const Problem& p, const exact::Instance& in,
                                            const std::vector<int32_t>& order, const std::string& keys,
                                            int64_t opt, int trial) {
  const exact::SearchResult yes = exact::search(in, opt, order, INT64_MAX, Deadline(), keys);
  ASSERT_EQ(yes.outcome, exact::Outcome::kFound) << "trial " << trial << " " << keys;
  ASSERT_TRUE(brute_force_valid(p, yes.offsets, opt)) << "trial " << trial;
  const exact::SearchResult no = exact::search(in, opt - 1, order, INT64_MAX, Deadline(), keys);
  ASSERT_EQ(no.outcome, exact::Outcome::kInfeasible) << "trial " << trial << " " << keys;
}

// Times [1, 6), every section totals 9; 9 does not fit, 10 does (both checked by a brute
// force over all offsets, outside the repository: a random search for such an instance,
// sections topped up to 9 by one-section buffers, found it).
inline std::vector<Buffer> nine_that_need_ten() {
  return {make_buffer("a", 2, 5, 3), make_buffer("b", 1, 4, 1), make_buffer("c", 3, 5, 1),
          make_buffer("d", 3, 4, 2), make_buffer("e", 3, 6, 2), make_buffer("f", 1, 2, 8),
          make_buffer("g", 2, 3, 5), make_buffer("h", 4, 5, 3), make_buffer("i", 5, 6, 7)};
}

}  // namespace memplan::testing
