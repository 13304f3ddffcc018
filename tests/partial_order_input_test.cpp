// Partial orders in problem files (io/partial_order.h): vector clocks ("a:b:c" in CSV,
// arrays in JSON) and stream programs (stream, lower, upper, deps, reads), lowered to
// lifetimes + explicit conflicts + clocks; bad input names file, line and field.
#include <gtest/gtest.h>

#include <climits>
#include <set>
#include <sstream>

#include "files.h"
#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

using testing::run_cli;
using testing::TempDir;
using testing::write_text;

CsvTable csv(const std::string& text) {
  std::istringstream in(text);
  return read_csv(in, "p.csv");
}

std::string csv_error(const std::string& text) {
  try {
    csv(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string json_error(const std::string& text) {
  try {
    parse_json(text, "p.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::set<std::pair<std::string, std::string>> named_conflicts(const Problem& p) {
  std::set<std::pair<std::string, std::string>> out;
  const int n = static_cast<int>(p.buffers.size());
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      bool c = lifetimes_overlap(p.buffers[a], p.buffers[b]);
      for (auto [x, y] : p.conflicts) c = c || (x == a && y == b) || (x == b && y == a);
      if (c) out.insert({p.buffers[a].id, p.buffers[b].id});
    }
  return out;
}

// §7.1 as clocks: every pair conflicts, bound and optimum 12.
const char* kClocks71 = "id,lower,upper,size\nx,0:0,2:0,4\ny,1:0,3:2,2\nu,0:0,0:2,4\nv,0:1,3:2,2\n";
// §7.2 as a stream program: u waits for x's last use, v's last reader is J (stream 0, op 2).
const char* kStreams72 =
    "id,stream,lower,upper,size,deps,reads\nx,0,0,2,4,,\ny,0,1,3,2,,\nu,1,0,2,4,x,\nv,1,1,2,2,,0@2\n";

TEST(PartialOrderInput, CsvClocks) {
  const CsvTable t = csv(kClocks71);
  const Problem& p = t.problem;
  EXPECT_EQ(p.clock_dim, 2);
  EXPECT_EQ(named_conflicts(p).size(), 6u);
  EXPECT_EQ(antichain_bound(p)->weight, 12);
  const SolveResult r = solve(p, "conflict-greedy", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 12);
  EXPECT_EQ(r.status, Status::kOptimal);
  // Written back as given (clocks verbatim, no derived conflicts), and read again alike.
  std::ostringstream out;
  write_csv(out, t, &r.solution->offsets);
  EXPECT_NE(out.str().find("x,0:0,2:0,4"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("conflicts"), std::string::npos) << out.str();
  const CsvTable again = csv(out.str());
  EXPECT_EQ(again.problem.clock_lower, p.clock_lower);
  EXPECT_EQ(again.problem.clock_upper, p.clock_upper);
}

TEST(PartialOrderInput, CsvStreamProgram) {
  const CsvTable t = csv(kStreams72);
  const Problem& p = t.problem;
  EXPECT_EQ(p.clock_dim, 2);
  EXPECT_EQ(named_conflicts(p),
            (std::set<std::pair<std::string, std::string>>{{"x", "y"}, {"y", "u"}, {"y", "v"}, {"u", "v"}}));
  EXPECT_EQ(antichain_bound(p)->weight, 8);
  std::ostringstream out;
  write_csv(out, t, nullptr);
  EXPECT_NE(out.str().find("u,1,0,2,4,x,"), std::string::npos) << out.str();
  EXPECT_EQ(named_conflicts(csv(out.str()).problem), named_conflicts(p));
  // A problem built in code is written in the clock form and reads back to the same relation.
  std::ostringstream built;
  write_csv(built, p, nullptr);
  EXPECT_EQ(named_conflicts(csv(built.str()).problem), named_conflicts(p));
}

TEST(PartialOrderInput, CsvStreamProgramReadInclusiveWritesBackTheSameProgram) {
  // The same program with inclusive ends, in an 'end' column and under Lifetimes::kInclusive:
  // the same buffers as the half-open file, and written back (half-open 'upper', or 'end'
  // again) it reads to the same buffers. (A fuzz find: the stream rows' raw upper went back
  // verbatim and was read half-open, and an 'end' column got the global time, not the op.)
  const CsvTable half = csv(kStreams72);
  const char* ends = "id,stream,lower,end,size,deps,reads\nx,0,0,1,4,,\ny,0,1,2,2,,\nu,1,0,1,4,x,\nv,1,1,1,2,,0@2\n";
  std::istringstream in_upper(
      "id,stream,lower,upper,size,deps,reads\nx,0,0,1,4,,\ny,0,1,2,2,,\nu,1,0,1,4,x,\nv,1,1,1,2,,0@2\n");
  for (const CsvTable& t : {csv(ends), read_csv(in_upper, "p.csv", Lifetimes::kInclusive)}) {
    EXPECT_EQ(t.problem.buffers, half.problem.buffers);
    std::ostringstream out;
    write_csv(out, t, nullptr);
    EXPECT_EQ(csv(out.str()).problem.buffers, half.problem.buffers) << out.str();
  }
}

TEST(PartialOrderInput, FarOpPositionsReadWithoutMemoryPerPosition) {
  // A fuzz find: the serialization kept one time per op position, so a position of 10^15
  // asked for petabytes. Far positions now read like near ones: stream 0's ops 0..K run
  // first (nothing waits), so stream 1's two ops get times K + 1 and K + 2.
  const int64_t K = 1'000'000'000'000'000;
  const std::string k = std::to_string(K);
  const Problem p = csv("id,stream,lower,upper,size\na,0," + k + "," + std::to_string(K + 1) + ",4\nb,1,0,2,4\n").problem;
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[0].start, K);
  EXPECT_EQ(p.buffers[0].end, K + 1);
  EXPECT_EQ(p.buffers[1].start, K + 1);
  EXPECT_EQ(p.buffers[1].end, K + 3);
  // Positions whose count could overflow the serialization are refused, naming the field.
  const std::string top = std::to_string(INT64_MAX / 65 + 1);
  EXPECT_NE(csv_error("id,stream,lower,upper,size\nx,0,0," + top + ",4\n").find("p.csv:2: column 'upper': op position too large"),
            std::string::npos);
  EXPECT_NE(csv_error("id,stream,lower,upper,size,reads\nx,0,0,1,4,1@" + top + "\n").find("p.csv:2: column 'reads': op position too large"),
            std::string::npos);
  // An inclusive 'end' column is named as such.
  EXPECT_NE(csv_error("id,stream,lower,end,size\nx,0,0," + top + ",4\n").find("p.csv:2: column 'end': op position too large"),
            std::string::npos);
}

TEST(PartialOrderInput, JsonForms) {
  const Problem clocks = parse_json(
      R"({"buffers": [{"id": "x", "lower": [0, 0], "upper": [2, 0], "size": 4},
                      {"id": "y", "lower": [1, 0], "upper": [3, 2], "size": 2},
                      {"id": "u", "lower": [0, 0], "upper": [0, 2], "size": 4},
                      {"id": "v", "lower": [0, 1], "upper": [3, 2], "size": 2}]})",
      "c.json");
  EXPECT_EQ(named_conflicts(clocks), named_conflicts(csv(kClocks71).problem));
  const Problem prog = parse_json(
      R"({"buffers": [{"id": "x", "stream": 0, "lower": 0, "upper": 2, "size": 4},
                      {"id": "y", "stream": 0, "lower": 1, "upper": 3, "size": 2},
                      {"id": "u", "stream": 1, "lower": 0, "upper": 2, "size": 4, "deps": ["x"]},
                      {"id": "v", "stream": 1, "lower": 1, "upper": 2, "size": 2, "reads": [[0, 2]]}]})",
      "s.json");
  EXPECT_EQ(named_conflicts(prog), named_conflicts(csv(kStreams72).problem));
  // Written with clocks as arrays, read back to the same relation.
  EXPECT_EQ(named_conflicts(parse_json(problem_to_json(prog, nullptr, {}), "again.json")), named_conflicts(prog));
}

TEST(PartialOrderInput, BadInputNamesLineAndField) {
  // A cycle: x waits for u, u waits for x (deadlock).
  const std::string cyc =
      csv_error("id,stream,lower,upper,size,deps\nx,0,1,2,4,u\nu,1,1,2,4,x\n");
  EXPECT_NE(cyc.find("p.csv:2"), std::string::npos) << cyc;
  EXPECT_NE(cyc.find("'deps'"), std::string::npos) << cyc;
  EXPECT_NE(cyc.find("cycle"), std::string::npos) << cyc;
  EXPECT_NE(csv_error("id,stream,lower,upper,size,deps\nx,0,0,1,4,\nu,1,0,1,4,zz\n").find("p.csv:3: column 'deps': unknown buffer id 'zz'"),
            std::string::npos);
  EXPECT_NE(csv_error("id,lower,upper,size\nx,0:0,1:0,4\ny,0:0:0,1:0:0,4\n").find("p.csv:3: column 'lower'"), std::string::npos);
  EXPECT_NE(csv_error("id,lower,upper,size\nx,0:0,1:0,4\ny,0,1,4\n").find("p.csv:3: column 'lower': mixed forms"), std::string::npos);
  EXPECT_NE(csv_error("id,lower,upper,size\nx,1:0,0:1,4\n").find("p.csv:2: column 'upper'"), std::string::npos);
  EXPECT_NE(csv_error("id,lower,upper,size\nx,0:0,0:0,4\n").find("p.csv:2: column 'upper': equals lower"), std::string::npos);
  EXPECT_NE(csv_error("id,lower,upper,size\nx,0:a,1:0,4\n").find("p.csv:2: column 'lower'"), std::string::npos);
  EXPECT_NE(csv_error("id,stream,lower,upper,size\nx,0,0:0,1:0,4\n").find("p.csv:2: column 'stream': mixed forms"), std::string::npos);
  EXPECT_NE(csv_error("id,stream,lower,upper,size,gaps\nx,0,0,3,4,1-2\n").find("p.csv:2: column 'gaps'"), std::string::npos);
  EXPECT_NE(csv_error("id,stream,lower,upper,size\nx,99,0,3,4\n").find("p.csv:2: column 'stream'"), std::string::npos);
  EXPECT_NE(json_error(R"({"buffers": [{"id": "x", "lower": [0, 0], "upper": [1, 0], "size": 1},
                                       {"id": "y", "lower": [0], "upper": [1], "size": 1}]})")
                .find("p.json: buffers[1]: field 'lower'"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"buffers": [{"id": "x", "lower": 0, "upper": 1, "size": 1},
                                       {"id": "y", "lower": [0], "upper": [1], "size": 1}]})")
                .find("p.json: buffers[1]: field 'lower': mixed forms"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"buffers": [{"id": "x", "stream": 0, "lower": 0, "upper": 1, "size": 1, "deps": ["q"]}]})")
                .find("p.json: buffers[0]: field 'deps': unknown buffer id 'q'"),
            std::string::npos);
}

TEST(PartialOrderInput, CliExitTwoAndNoOutputOnBadInput) {
  TempDir dir;
  write_text(dir.file("bad.csv"), "id,stream,lower,upper,size,deps\nx,0,1,2,4,u\nu,1,1,2,4,x\n");
  const auto r = run_cli("solve '" + dir.file("bad.csv") + "' -o '" + dir.file("plan.csv") + "'", dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("bad.csv"), std::string::npos) << r.err;
  EXPECT_FALSE(testing::exists(dir.file("plan.csv")));
  write_text(dir.file("ok.csv"), kClocks71);
  const auto ok = run_cli("solve '" + dir.file("ok.csv") + "' -o '" + dir.file("plan.csv") + "'", dir);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("peak=12"), std::string::npos) << ok.out;
  const auto val = run_cli("validate '" + dir.file("ok.csv") + "' '" + dir.file("plan.csv") + "'", dir);
  EXPECT_EQ(val.code, 0) << val.out << val.err;
}

}  // namespace
}  // namespace memplan
