#include <gtest/gtest.h>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/solver.h"
#include "memplan/svg.h"

namespace memplan {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(Svg, OneRectanglePerBufferWithDetailsOnHover) {
  GenerateOptions g;
  g.kind = "uniform";
  g.buffers = 10;
  const Problem p = generate(g);
  SolveResult r = solve(p, "greedy", {});
  ASSERT_TRUE(r.solution);
  const std::string svg = plan_to_svg(p, r.solution->offsets, compute_load(p));
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(count(svg, "<rect"), 10u + 2u);  // buffers + background + frame
  EXPECT_EQ(count(svg, "<title>"), 10u);
  EXPECT_NE(svg.find("LOAD " + std::to_string(compute_load(p))), std::string::npos);
  EXPECT_NE(svg.find("peak " + std::to_string(r.solution->peak)), std::string::npos);
}

TEST(Svg, LargePlansAreAggregatedAndStaySmall) {
  GenerateOptions g;
  g.buffers = 50000;
  const Problem p = generate(g);
  SolveResult r = solve(p, "first-fit", {});
  ASSERT_TRUE(r.solution);
  SvgOptions o;
  o.max_rects = 20000;
  const std::string svg = plan_to_svg(p, r.solution->offsets, compute_load(p), o);
  EXPECT_EQ(count(svg, "<title>"), 0u);
  EXPECT_NE(svg.find("aggregated"), std::string::npos);
  EXPECT_LT(count(svg, "<rect"), static_cast<size_t>(o.grid_columns) * o.grid_rows);
  EXPECT_GT(count(svg, "<rect"), 100u);  // not blank
  EXPECT_LT(svg.size(), 4u << 20);
}

}  // namespace
}  // namespace memplan
