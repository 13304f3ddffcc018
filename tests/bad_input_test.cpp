// Bad input: every case must fail with one clear line naming the file, the line (or PLC
// record) and the column (or field), both from the library (InputError) and from the CLI
// (exit code 2, message on stderr, no output file).
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <sstream>
#include <cstdint>
#include <string>
#include <vector>

#include "files.h"
#include "testing.h"
#include "memplan/io.h"
#include "memplan/io_json.h"

namespace memplan {
namespace {

using testing::TempDir;

std::string plc(const std::vector<std::array<uint64_t, 8>>& records) { return memplan::testing::plc_bytes(records); }

enum class Kind {
  kCsv,       // a problem CSV given to `solve`
  kPlc,       // a PLC trace given to `solve`
  kJson,      // a JSON problem given to `solve`
  kSolution,  // a plan CSV given to `validate` against kGoodProblem
  kMissing,   // no file at all
};

const char* const kGoodProblem = "id,lower,upper,size\na,0,4,8\nb,2,6,8\nc,5,9,16\n";

struct Case {
  const char* name;
  Kind kind;
  std::string content;
  std::string where;   // expected right after the file name: ":3" or ": record 2"
  std::string column;  // expected in the message: "column 'size'", "field 'death'"
};

// Short, stable test names in gtest/ctest output (not the struct's bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> cases() {
  const std::string h = "id,lower,upper,size\n";
  return {
      {"missing_file", Kind::kMissing, "", ": cannot open file", ""},
      {"empty_file", Kind::kCsv, "", ":1", "empty file"},
      {"blank_first_line", Kind::kCsv, "\nid,lower,upper,size\n", ":1", "empty file"},
      {"no_header", Kind::kCsv, "0,0,4,8\n1,2,6,8\n", ":1", "no header row"},
      {"missing_required_column", Kind::kCsv, "id,lower,upper\na,0,4\n", ":1", "column 'size'"},
      {"duplicate_column", Kind::kCsv, "id,lower,upper,size,size\na,0,4,8,8\n", ":1",
       "column 'size'"},
      {"duplicate_alias_column", Kind::kCsv, "id,lower,upper,end,size\na,0,4,3,8\n", ":1",
       "column 'end'"},
      {"empty_column_name", Kind::kCsv, "id,,lower,upper,size\na,x,0,4,8\n", ":1", "empty name"},
      {"too_few_fields", Kind::kCsv, h + "a,0,4,8\nb,2,6\n", ":3", "column 'size'"},
      {"too_many_fields", Kind::kCsv, h + "a,0,4,8,9\n", ":2", "column 'size'"},
      {"non_integer", Kind::kCsv, h + "a,0,4,8\nb,2,6x,8\n", ":3", "column 'upper'"},
      {"empty_number", Kind::kCsv, h + "a,,4,8\n", ":2", "column 'lower'"},
      {"negative_start", Kind::kCsv, h + "a,-1,4,8\n", ":2", "column 'lower'"},
      {"negative_size", Kind::kCsv, h + "a,0,4,-8\n", ":2", "column 'size'"},
      {"overflowing_number", Kind::kCsv, h + "a,0,4,99999999999999999999\n", ":2",
       "column 'size'"},
      {"end_equals_start", Kind::kCsv, h + "a,0,4,8\nb,5,5,8\n", ":3", "column 'upper'"},
      {"end_before_start", Kind::kCsv, h + "a,7,4,8\n", ":2", "column 'upper'"},
      {"inclusive_end_before_start", Kind::kCsv, "buffer,start,end,size\na,5,3,8\n", ":2",
       "column 'end'"},
      {"inclusive_end_overflows", Kind::kCsv,
       "buffer,start,end,size\na,5,9223372036854775807,8\n", ":2", "column 'end'"},
      {"zero_size", Kind::kCsv, h + "a,0,4,0\n", ":2", "column 'size'"},
      {"empty_id", Kind::kCsv, h + ",0,4,8\n", ":2", "column 'id'"},
      {"duplicate_id", Kind::kCsv, h + "a,0,4,8\nb,0,4,8\na,5,6,8\n", ":4", "column 'id'"},
      {"duplicate_id_via_alias", Kind::kCsv, "buffer_id,lower,upper,size\nx,0,4,8\nx,1,2,3\n",
       ":3", "column 'buffer_id'"},
      {"alignment_zero", Kind::kCsv, "id,lower,upper,size,alignment\na,0,4,8,0\n", ":2",
       "column 'alignment'"},
      {"alignment_not_power_of_two", Kind::kCsv,
       "id,lower,upper,size,alignment\na,0,4,8,8\nb,0,4,8,24\n", ":3", "column 'alignment'"},
      {"fixed_offset_not_aligned", Kind::kCsv,
       "id,lower,upper,size,alignment,offset\na,0,4,8,16,24\n", ":2", "column 'offset'"},
      {"negative_fixed_offset", Kind::kCsv, "id,lower,upper,size,offset\na,0,4,8,-5\n", ":2",
       "column 'offset'"},
      {"fixed_offset_plus_size_overflows", Kind::kCsv,
       "id,lower,upper,size,offset\na,0,4,8,9223372036854775800\n", ":2", "column 'offset'"},
      {"total_size_overflows", Kind::kCsv,
       h + "a,0,4,1152921504606846976\nb,5,9,1152921504606846976\n", ":3", "column 'size'"},
      {"hint_below_minus_one", Kind::kCsv, "id,lower,upper,size,hint\na,0,4,8,-7\n", ":2",
       "column 'hint'"},
      {"gap_without_dash", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,3\n", ":2",
       "column 'gaps'"},
      {"gap_bad_number", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,1-x\n", ":2",
       "column 'gaps'"},
      {"gap_missing_end", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,1-\n", ":2",
       "column 'gaps'"},
      {"gap_window_without_colon", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,1-2@4\n",
       ":2", "column 'gaps'"},
      {"gap_reversed", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,5-3\n", ":2",
       "column 'gaps'"},
      {"gap_outside_lifetime", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,1-2\nb,3,6,8,5-7\n",
       ":3", "column 'gaps'"},
      {"gaps_overlapping", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,1-4 3-5\n", ":2",
       "column 'gaps'"},
      {"gap_window_beyond_size", Kind::kCsv, "id,lower,upper,size,gaps\na,0,9,8,1-4@0:9\n", ":2",
       "column 'gaps'"},
      // In-place and group relations name the row too (they named only the file).
      {"inplace_unknown_target", Kind::kCsv, "id,lower,upper,size,inplace\na,0,2,10,\nb,1,3,10,zz\n", ":3",
       "column 'inplace': buffer 'b': inplace_of 'zz' is not a buffer"},
      {"inplace_cycle", Kind::kCsv, "id,lower,upper,size,inplace\na,0,2,10,b\nb,1,3,10,a\n", ":2",
       "column 'inplace': buffer 'a': in-place reuse forms a cycle"},
      // Two members at one index: the layout would silently follow the input order.
      {"group_same_index", Kind::kCsv, "id,lower,upper,size,group\na,0,2,10,g:0\nb,1,3,10,g:0\n", ":3",
       "column 'group': group 'g': members 'a' and 'b' have the same index 0"},
      {"json_group_same_index", Kind::kJson,
       R"({"buffers": [{"id": "a", "lower": 0, "upper": 4, "size": 8, "group": "g", "group_index": -1},
                       {"id": "b", "lower": 0, "upper": 4, "size": 8, "group": "g", "group_index": -1}]})",
       ": buffer #1 'b'", "group: group 'g': members 'a' and 'b' have the same index -1"},
      // A deadlock between streams names the row's id (it said "buffer 0" and "'after' events").
      {"streams_deadlock", Kind::kCsv, "id,stream,lower,upper,size,deps,reads\nx,0,0,2,4,y,\ny,1,0,3,2,x,\n", ":2",
       "column 'deps': buffer 'x': its dependencies form a cycle across the streams"},
      // A control character in an id (a NUL was written raw into the plan, and cut messages).
      {"id_control_character", Kind::kCsv, std::string("id,lower,upper,size\na\x01" "b,0,2,10\n"), ":2",
       "column 'id': id contains the control character 0x01"},
      {"json_id_nul", Kind::kJson, R"({"buffers": [{"id": "a\u0000b", "lower": 0, "upper": 4, "size": 8}]})",
       ": buffer #0 'a\\x00b'", "id contains the control character 0x00"},
      {"plc_empty", Kind::kPlc, "", ": empty file", ""},
      {"plc_truncated", Kind::kPlc, plc({{1, 0, 5, 8, 0, 0, 0, 8}}) + std::string(10, '\0'),
       ": record 2", "truncated"},
      {"plc_never_live", Kind::kPlc, plc({{1, 0, 5, 8, 0, 0, 0, 8}, {2, 3, 4, 8, 0, 0, 0, 8}}),
       ": record 2", "field 'death'"},
      {"plc_death_before_birth", Kind::kPlc, plc({{1, 9, 5, 8, 0, 0, 0, 8}}), ": record 1",
       "field 'death'"},
      {"plc_zero_size", Kind::kPlc, plc({{1, 0, 5, 0, 0, 0, 0, 0}}), ": record 1",
       "field 'allocated size'"},
      {"plc_bad_alignment", Kind::kPlc, plc({{1, 0, 5, 8, 0, 0, 24, 8}}), ": record 1",
       "field 'alignment'"},
      {"plc_size_out_of_range", Kind::kPlc, plc({{1, 0, 5, ~0ull, 0, 0, 0, 8}}), ": record 1",
       "field 'allocated size'"},
      {"plc_duplicate_id", Kind::kPlc, plc({{7, 0, 5, 8, 0, 0, 0, 8}, {7, 1, 9, 8, 0, 0, 0, 8}}),
       ": record 2", "field 'id'"},
      {"json_missing_size", Kind::kJson, R"({"buffers": [{"id": "a", "lower": 0, "upper": 4}]})",
       ": buffers[0]", "'size'"},
      {"json_syntax", Kind::kJson, R"({"buffers": [)", ": invalid JSON", "line 1"},
      // A repeated key: nlohmann keeps the last one, so {"size": 8, "size": 16} was read as 16.
      {"json_repeated_field", Kind::kJson,
       R"({"buffers": [{"id": "a", "lower": 0, "upper": 4, "size": 8}, {"id": "b", "lower": 0, "upper": 4, "size": 8, "size": 16}]})",
       ": field 'buffers[1].size'", "is given twice"},
      {"json_repeated_top_field", Kind::kJson,
       R"({"capacity": 8, "buffers": [{"id": "a", "lower": 0, "upper": 4, "size": 8}], "capacity": 4})", ": field 'capacity'",
       "is given twice"},
      {"json_repeated_gap_field", Kind::kJson,
       R"({"buffers": [{"id": "a", "lower": 0, "upper": 9, "size": 8, "gaps": [{"lower": 1, "upper": 2, "upper": 3}]}]})",
       ": field 'buffers[0].gaps[0].upper'", "is given twice"},
      // An empty group name (as in CSV): it would be written back without its group_index.
      {"json_empty_group", Kind::kJson,
       R"({"buffers": [{"id": "a", "lower": 0, "upper": 4, "size": 8, "group": "", "group_index": 1}]})", ": buffers[0]",
       "field 'group': empty group name"},
      {"solution_unknown_id", Kind::kSolution, "id,offset\na,0\nzz,8\nb,8\nc,0\n", ":3",
       "column 'id'"},
      {"solution_missing_id", Kind::kSolution, "id,offset\na,0\nb,8\n", ":4", "'c'"},
      {"solution_duplicate_id", Kind::kSolution, "id,offset\na,0\nb,8\na,16\nc,0\n", ":4",
       "column 'id'"},
      {"solution_bad_offset", Kind::kSolution, "id,offset\na,0\nb,eight\nc,0\n", ":3",
       "column 'offset'"},
      {"solution_no_offset_column", Kind::kSolution, "id,lower,upper,size\na,0,4,8\n", ":1",
       "column 'offset'"},
  };
}

std::string extension(Kind k) {
  switch (k) {
    case Kind::kPlc: return ".plc";
    case Kind::kJson: return ".json";
    default: return ".csv";
  }
}

class BadInput : public ::testing::TestWithParam<Case> {};

// Writes the case's file and returns its path (the problem file for kSolution is separate).
std::string materialize(const Case& c, const TempDir& dir) {
  const std::string path = dir.file(std::string(c.name) + extension(c.kind));
  if (c.kind != Kind::kMissing) testing::write_text(path, c.content);
  return path;
}

TEST_P(BadInput, LibraryThrowsInputErrorNamingFileLineAndColumn) {
  const Case& c = GetParam();
  TempDir dir;
  const std::string path = materialize(c, dir);
  std::string message;
  try {
    switch (c.kind) {
      case Kind::kCsv:
      case Kind::kMissing: read_csv_file(path); break;
      case Kind::kPlc: read_plc_file(path); break;
      case Kind::kJson: read_json_file(path); break;
      case Kind::kSolution: {
        std::istringstream good(kGoodProblem);
        const Problem p = read_csv(good, "good.csv").problem;
        read_solution_csv_file(path, p);
        break;
      }
    }
    FAIL() << "no error for " << c.name;
  } catch (const InputError& e) {
    message = e.what();
  }
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind(path + c.where, 0), 0u) << message;
  EXPECT_NE(message.find(c.column), std::string::npos) << message;
}

TEST_P(BadInput, CliExitsTwoWithFileAndLineAndWritesNothing) {
  const Case& c = GetParam();
  TempDir dir;
  const std::string path = materialize(c, dir);
  const std::string out = dir.file("plan.csv");
  testing::CliRun r;
  if (c.kind == Kind::kSolution) {
    const std::string problem = dir.file("problem.csv");
    testing::write_text(problem, kGoodProblem);
    r = testing::run_cli("validate '" + problem + "' '" + path + "'", dir);
  } else {
    r = testing::run_cli("solve '" + path + "' -a greedy -o '" + out + "'", dir);
  }
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(path + c.where), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(c.column), std::string::npos) << r.err;
  // One line: the error itself, nothing else.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(testing::exists(out));
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInput, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

// The near misses of the cases above are accepted, with the values they spell: a check
// made stricter than the format (e.g. `<` for `<=`) turns this red, as a looser one turns
// a case above red.
TEST(BadInput, NearMissesAreAcceptedWithTheirValues) {
  auto csv = [](const std::string& text) {
    std::istringstream in(text);
    return read_csv(in, "near.csv").problem;
  };
  Problem p = csv("id,lower,upper,size,alignment,offset,hint,gaps\n"
                  "a,0,1,1,1,-1,-1,\n"
                  "b,0,9,8,16,0,0,0-2 2-4@0:8 4-5@3:3 8-9\n"
                  "c,3,4,16,1,,-1,\n");
  ASSERT_EQ(p.buffers.size(), 3u);
  EXPECT_EQ(p.buffers[0].end, 1);        // upper = lower + 1
  EXPECT_FALSE(p.buffers[0].offset);     // -1: not fixed
  EXPECT_EQ(p.buffers[0].hint, -1);
  EXPECT_EQ(p.buffers[1].offset, 0);     // 0 is a multiple of every alignment
  ASSERT_EQ(p.buffers[1].gaps.size(), 4u);  // touching gaps, at both ends of the lifetime
  EXPECT_EQ(p.buffers[1].gaps[1], (Gap{2, 4, true, 0, 8}));  // the full width
  EXPECT_EQ(p.buffers[1].gaps[2], (Gap{4, 5, true, 3, 3}));  // an empty window
  EXPECT_FALSE(p.buffers[2].offset);     // empty: not fixed
  // Inclusive ends: end = start is one instant.
  EXPECT_EQ(csv("buffer,start,end,size\na,5,5,8\n").buffers[0].end, 6);
  // Totals up to INT64_MAX / 4 = 2^61 - 1 (sizes plus alignments here).
  p = csv("id,lower,upper,size\na,0,4,1152921504606846975\nb,5,9,1152921504606846974\n");
  EXPECT_EQ(p.buffers[1].size, 1152921504606846974);
  // A plan naming every buffer once, in any order.
  std::istringstream good(kGoodProblem);
  const Problem g = read_csv(good, "good.csv").problem;
  TempDir dir;
  const std::string plan = dir.file("plan.csv");
  testing::write_text(plan, "id,offset\nc,0\na,0\nb,8\n");
  EXPECT_EQ(read_solution_csv_file(plan, g), (std::vector<int64_t>{0, 8, 0}));
  // PLC: live iff birth < t < death, so death = birth + 2 is one instant; alignment 0 = none.
  const std::string trace = dir.file("ok.plc");
  testing::write_text(trace, plc({{1, 4, 6, 8, 0, 0, 0, 8}}));
  const Problem t = read_plc_file(trace);
  ASSERT_EQ(t.buffers.size(), 1u);
  EXPECT_EQ(t.buffers[0].start, 5);
  EXPECT_EQ(t.buffers[0].end, 6);
  EXPECT_EQ(t.buffers[0].alignment, 1);
}

// A directory is not a file.
TEST(BadInput, DirectoryIsRejected) {
  TempDir dir;
  try {
    read_csv_file(dir.file(""));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// Random corruptions of valid files: every reader either returns a problem that passes
// check_problem or throws InputError; nothing else (no other exception, no crash).
TEST(BadInput, RandomCorruptionsGiveInputErrorOrAValidProblem) {
  const std::string base =
      "id,lower,upper,size,alignment,offset,hint,gaps\n"
      "a,0,10,64,16,-1,-1,2-4 6-8@0:32\n"
      "b,1,12,32,32,64,7,\n"
      "c,3,9223372036854775806,4611686018427387904,1,-1,-1,5-6@1:2\n";
  const std::string pieces[] = {",", "-", "@", ":", " ", "\n", "0", "9", "-1", "x",
                                "9223372036854775807", "99999999999999999999", "\r", "end", "id"};
  std::mt19937_64 rng(99);
  int ok = 0, rejected = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0: text.erase(at, 1 + rng() % 3); break;
        case 1: text.insert(at, pieces[rng() % std::size(pieces)]); break;
        default:
          if (at < text.size()) text[at] = static_cast<char>(rng() % 256);
      }
    }
    std::istringstream in(text);
    try {
      const Problem p = read_csv(in, "fuzz.csv").problem;
      check_problem(p, "fuzz.csv");
      ++ok;
    } catch (const InputError& e) {
      ASSERT_EQ(std::string(e.what()).rfind("fuzz.csv:", 0), 0u) << e.what();
      ++rejected;
    }
  }
  EXPECT_GT(ok, 30);  // both outcomes are exercised
  EXPECT_GT(rejected, 1000);

  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes(64 * (1 + rng() % 3) + (trial % 10 == 0 ? rng() % 64 : 0), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 0);
    std::istringstream in(bytes);
    try {
      check_problem(read_plc(in, "fuzz.plc"), "fuzz.plc");
    } catch (const InputError& e) {
      ASSERT_EQ(std::string(e.what()).rfind("fuzz.plc:", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

TEST(BadInput, RandomJsonCorruptionsGiveInputErrorOrAValidProblem) {
  Problem p;
  p.capacity = 4096;
  p.buffers = {{"a", 0, 10, 64}, {"b", 2, 6, 32}};
  p.buffers[0].alignment = 16;
  p.buffers[0].gaps = {{2, 4, false, 0, 0}, {6, 8, true, 16, 48}};
  p.buffers[1].offset = 128;
  const std::string base = problem_to_json(p, nullptr);
  const std::string pieces[] = {"{", "}", "[", "]", ",", ":", "\"", "null", "-1", "1.5", "true",
                                "\"x\"", "18446744073709551615", "{\"lower\":1}", "[]", "{}"};
  std::mt19937_64 rng(5);
  int ok = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % (text.size() + 1);
      if (rng() % 2) text.erase(at, 1 + rng() % 4);
      else text.insert(at, pieces[rng() % std::size(pieces)]);
    }
    try {
      check_problem(parse_json(text, "fuzz.json"), "fuzz.json");
      ++ok;
    } catch (const InputError& e) {
      ASSERT_EQ(std::string(e.what()).rfind("fuzz.json:", 0), 0u) << e.what();
      ++rejected;
    }
    try {
      parse_json_solution(text, "fuzz.json", p);
    } catch (const InputError&) {
    }
  }
  EXPECT_GT(ok, 30);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace memplan
