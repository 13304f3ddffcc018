#include <gtest/gtest.h>

#include <cmath>

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

// The y attribute of the <text> element whose content starts with `label`.
double label_y(const std::string& svg, const std::string& label) {
  const size_t at = svg.find(">" + label + " ");
  EXPECT_NE(at, std::string::npos) << label;
  if (at == std::string::npos) return -1e9;
  const size_t text = svg.rfind("<text", at);
  const size_t y = svg.find(" y=\"", text);
  EXPECT_LT(y, at);
  return std::stod(svg.substr(y + 4));
}

// The y attribute of the first <line> with this stroke colour.
double line_y(const std::string& svg, const std::string& colour) {
  const size_t at = svg.find("stroke=\"" + colour + "\"");
  const size_t line = svg.rfind("<line", at);
  EXPECT_NE(at, std::string::npos) << colour;
  return std::stod(svg.substr(svg.find(" y1=\"", line) + 5));
}

// Font size 12: a line of text is at least 12 px high.
constexpr double kLineHeight = 12;

TEST(Svg, LoadAndPeakLabelsDoNotOverlapWhenPeakEqualsLoad) {
  Problem p;  // two buffers one after the other: LOAD = peak = 100 with both at 0
  p.buffers = {{"a", 0, 1, 100}, {"b", 1, 2, 100}};
  const std::vector<int64_t> offsets = {0, 0};
  ASSERT_EQ(compute_load(p), 100);
  const std::string svg = plan_to_svg(p, offsets, compute_load(p));
  ASSERT_NE(svg.find(">LOAD 100<"), std::string::npos);
  ASSERT_NE(svg.find(">peak 100<"), std::string::npos);
  EXPECT_GE(std::abs(label_y(svg, "LOAD") - label_y(svg, "peak")), kLineHeight) << svg;
}

TEST(Svg, LabelsStayByTheirLinesAndApartAtAnyGap) {
  // LOAD 1000 (a and b are never live together); b sits `extra` bytes up: peak 1000 + extra.
  for (int64_t extra : {0, 1, 5, 20, 40, 100, 1000}) {
    Problem p;
    p.buffers = {{"a", 0, 1, 1000}, {"b", 1, 2, 1000}};
    const std::vector<int64_t> offsets = {0, extra};
    ASSERT_EQ(compute_load(p), 1000);
    const std::string svg = plan_to_svg(p, offsets, compute_load(p));
    ASSERT_NE(svg.find(">peak " + std::to_string(1000 + extra) + "<"), std::string::npos);
    const double load_line = line_y(svg, "#c53030"), peak_line = line_y(svg, "#2f855a");
    const double load_text = label_y(svg, "LOAD"), peak_text = label_y(svg, "peak");
    EXPECT_GE(std::abs(load_text - peak_text), kLineHeight) << "extra " << extra;
    EXPECT_LE(std::abs(load_text - load_line), 2 * kLineHeight) << "extra " << extra;
    EXPECT_LE(std::abs(peak_text - peak_line), 2 * kLineHeight) << "extra " << extra;
  }
}

}  // namespace
}  // namespace memplan
