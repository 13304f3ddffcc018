// Perfect packings (every section's total equals the capacity): the exact search tries the
// lowest-cell search with the fewest branches first there (exact.cpp, strategies), which
// finds generated tilings in about n nodes.
#include <gtest/gtest.h>

#include <string>

#include "memplan/generate.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

int64_t nodes_of(const SolveResult& r) {
  const size_t at = r.detail.find("nodes=");
  return at == std::string::npos ? -1 : std::stoll(r.detail.substr(at + 6));
}

TEST(ExactPerfect, TilingsAreFoundInAboutOneNodePerBuffer) {
  // Seeds 100-103, 800 buffers: 815-1,026 nodes each; with the round robin's usual order
  // (the fewest-branches search last) 2,457-15,277.
  for (uint64_t seed = 100; seed <= 103; ++seed) {
    GenerateOptions g;
    g.kind = "tiling";
    g.buffers = 800;
    g.seed = seed;
    const Problem p = generate(g);
    SolveOptions o;
    o.capacity = g.capacity;
    o.threads = 1;
    o.time_limit_seconds = 600;  // a guard only: node counts decide
    const SolveResult r = solve(p, "exact", o);
    ASSERT_TRUE(r.solution) << "seed " << seed;
    EXPECT_EQ(r.solution->peak, g.capacity) << "seed " << seed;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << "seed " << seed;
    const int64_t nodes = nodes_of(r);
    EXPECT_GT(nodes, 0) << r.detail;
    EXPECT_LE(nodes, 2 * g.buffers) << "seed " << seed << ": " << r.detail;
  }
}

}  // namespace
}  // namespace memplan
