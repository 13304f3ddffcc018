// Issue 20, points 5 and 6 from the outside: every way in (files, CLI options, code) refuses
// bad input with a message naming where, before any solver runs, and writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "files.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/exact/deep_threads.h"

namespace memplan {
namespace {

using testing::TempDir;

std::string json_error(const std::string& text, const JsonReadOptions& opt = {}) {
  try {
    parse_json(text, "p.json", opt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonInput, NumberBeyondDoubleIsAnInputErrorNamingFileAndField) {
  const std::string msg = json_error(R"({"buffers":[{"id":"a","lower":0,"upper":1e400,"size":4}]})");
  EXPECT_EQ(msg.rfind("p.json: invalid JSON in field 'buffers[0].upper'", 0), 0u) << msg;
  const std::string cap = json_error(R"({"capacity": -1e999, "buffers":[]})");
  EXPECT_EQ(cap.rfind("p.json: invalid JSON in field 'capacity'", 0), 0u) << cap;
  const std::string win = json_error(
      R"({"buffers":[{"id":"a","lower":0,"upper":9,"size":4},)"
      R"({"id":"b","lower":0,"upper":9,"size":4,"gaps":[{"lower":1,"upper":2,"window":[0,2e400]}]}]})");
  EXPECT_NE(win.find("field 'buffers[1].gaps[0].window'"), std::string::npos) << win;
}

TEST(JsonInput, UnknownFieldIsAnErrorUnlessLenient) {
  const std::string typo = R"({"buffers":[{"id":"a","lower":0,"upper":4,"size":4,"alignement":8}]})";
  const std::string msg = json_error(typo);
  EXPECT_NE(msg.find("p.json: buffers[0]: unknown field 'alignement'"), std::string::npos) << msg;
  std::vector<std::string> warnings;
  const Problem p = parse_json(typo, "p.json", JsonReadOptions{true, &warnings});
  ASSERT_EQ(p.buffers.size(), 1u);
  EXPECT_EQ(p.buffers[0].alignment, 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("'alignement'"), std::string::npos);
  // In a gap and at the top level too; a plan's own summary fields are not unknown.
  EXPECT_NE(json_error(R"({"buffers":[{"id":"a","lower":0,"upper":4,"size":4,"gaps":[{"lower":1,"uper":2}]}]})")
                .find("buffers[0].gaps: unknown field 'uper'"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"capacty": 8, "buffers":[]})").find("unknown field 'capacty'"), std::string::npos);
  EXPECT_EQ(json_error(R"({"peak": 4, "algo": "greedy", "status": "optimal", "buffers":[]})"), "");
}

TEST(JsonInput, PlanWrittenByMemplanReadsBackAsAProblem) {
  Problem p;
  p.buffers = {{"a", 0, 4, 8}, {"b", 2, 6, 4}};
  p.buffers[1].gaps = {{3, 4, true, 0, 2}};
  p.buffers[0].group = "g";
  const std::vector<int64_t> offsets{0, 8};
  const Problem back = parse_json(problem_to_json(p, &offsets, {{"algo", "x"}, {"status", "feasible"}}), "x");
  EXPECT_EQ(back.buffers.size(), 2u);
}

TEST(CsvInput, ColumnOneEditFromAKnownOneWarnsAndIsKept) {
  std::istringstream in("id,lower,upper,size,alignmnt,szie,note\na,0,2,4,8,1,x\n");
  const CsvTable t = read_csv(in, "t.csv");
  ASSERT_EQ(t.warnings.size(), 2u);
  EXPECT_NE(t.warnings[0].find("t.csv:1: column 'alignmnt'"), std::string::npos) << t.warnings[0];
  EXPECT_NE(t.warnings[0].find("did you mean 'alignment'"), std::string::npos) << t.warnings[0];
  EXPECT_NE(t.warnings[1].find("'szie'"), std::string::npos);
  EXPECT_NE(t.warnings[1].find("'size'"), std::string::npos);
  EXPECT_EQ(t.problem.buffers[0].alignment, 1);  // not read: MiniMalloc ignores it too
  std::ostringstream out;
  write_csv(out, t, nullptr);
  EXPECT_EQ(out.str(), "id,lower,upper,size,alignmnt,szie,note\na,0,2,4,8,1,x\n");
  // Columns far from every known name ('note', 'hint2x') stay silent.
  std::istringstream quiet("id,lower,upper,size,note,weight\na,0,2,4,x,y\n");
  EXPECT_TRUE(read_csv(quiet, "q.csv").warnings.empty());
}

// The message read_csv throws on `text` (read as bom.csv), or "" (a test failure) if none.
std::string csv_error(const std::string& text) {
  std::istringstream in(text);
  try {
    read_csv(in, "bom.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error on: " << text;
  return "";
}

// Found by fuzz_csv: a byte order mark alone on the header line left no column at all, and
// the reader indexed the empty header (UBSan: vector index out of range).
TEST(CsvInput, ByteOrderMarkAloneIsAnEmptyHeader) {
  for (const std::string text : {"\xEF\xBB\xBF\n8,1,2,3\n", "\xEF\xBB\xBF", "\xEF\xBB\xBF \r\nid\n"}) {
    const std::string e = csv_error(text);
    EXPECT_EQ(e.rfind("bom.csv:1: empty file", 0), 0u) << e;
  }
}

// Found by fuzz_csv: a second byte order mark (or a quoted first column name starting with
// one) was read as part of the first column's name; written back, it sat at the start of the
// file, where the reader skips a mark, and the column read back under another name (here
// an empty one). Now an error naming line 1.
TEST(CsvInput, ByteOrderMarkStartingTheFirstColumnNameIsAnError) {
  for (const std::string text : {"\xEF\xBB\xBF\xEF\xBB\xBF,id,lower,upper,size\n", "\xEF\xBB\xBF\xEF\xBB\xBFid,lower,upper,size\na,0,4,8\n",
                                 "\"\xEF\xBB\xBFx\",id,lower,upper,size\na,1,0,4,8\n"}) {
    const std::string e = csv_error(text);
    EXPECT_EQ(e.rfind("bom.csv:1:", 0), 0u) << e;
    EXPECT_NE(e.find("byte order mark"), std::string::npos) << e;
  }
  std::istringstream once("\xEF\xBB\xBFid,lower,upper,size\na,0,4,8\n");  // one mark: skipped
  EXPECT_EQ(read_csv(once, "bom.csv").problem.buffers.size(), 1u);
}

TEST(CliInput, LenientOnEveryCommandThatReadsProblems) {
  TempDir dir;
  const std::string p = dir.file("p.json");
  testing::write_text(p, R"({"buffers":[{"id":"a","lower":0,"upper":4,"size":4,"alignement":8}]})");
  const std::string plan = dir.file("plan.csv");
  testing::write_text(plan, "id,offset\na,0\n");
  for (const std::string& cmd : std::vector<std::string>{"solve '" + p + "' -a greedy", "validate '" + p + "' '" + plan + "'",
                                "stats '" + p + "'", "bench '" + p + "' --algos greedy -o '" + dir.file("b") + "'"}) {
    const testing::CliRun strict = testing::run_cli(cmd, dir);
    EXPECT_EQ(strict.code, 2) << cmd << strict.err;
    EXPECT_NE(strict.err.find("unknown field 'alignement'"), std::string::npos) << cmd << strict.err;
    const testing::CliRun lenient = testing::run_cli(cmd + " --lenient", dir);
    EXPECT_EQ(lenient.code, 0) << cmd << lenient.err;
    EXPECT_NE(lenient.err.find("warning:"), std::string::npos) << cmd << lenient.err;
  }
  const std::string csv = dir.file("t.csv");
  testing::write_text(csv, "id,lower,upper,size,alignmnt\na,0,2,4,8\n");
  const testing::CliRun r = testing::run_cli("solve '" + csv + "' -a greedy", dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.err.find("warning: " + csv + ":1: column 'alignmnt'"), std::string::npos) << r.err;
}

TEST(CliInput, BadOptionValuesGetOneShortMessageNamingTheOption) {
  TempDir dir;
  const std::string p = dir.file("p.csv");
  testing::write_text(p, "id,lower,upper,size\na,0,2,4\nb,1,3,8\n");
  const std::string solve = "solve '" + p + "' -a greedy ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {solve + "--time-limit nan", "--time-limit"},   {solve + "--time-limit 1e10", "--time-limit"},
      {solve + "--time-limit inf", "--time-limit"},   {solve + "--time-limit -1", "--time-limit"},
      {solve + "--capacity -1", "--capacity"},        {solve + "--capacity abc", "--capacity"},
      {solve + "--capacity 99999999999999999999", "--capacity"},
      {solve + "--capacity 1.5", "--capacity"},       {solve + "--threads -5", "--threads"},
      {solve + "--iterations -2", "--iterations"},    {solve + "--seed -1", "--seed"},
      {"validate '" + p + "' '" + p + "' --capacity -1", "--capacity"},
      {"generate -n -3", "--buffers"},                {"generate --max-size 0", "--max-size"},
      {"bench --generate dnn:10:1 --time-limit nan -o '" + dir.file("b") + "'", "--time-limit"},
      {"bench --generate dnn:10:1 --repeat 0 -o '" + dir.file("b") + "'", "--repeat"},
      {"report --generate dnn:10:1 --threads -1 -o '" + dir.file("r.html") + "'", "--threads"},
  };
  for (const auto& [args, option] : cases) {
    const testing::CliRun r = testing::run_cli(args, dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(option + ": '"), std::string::npos) << args << "\n" << r.err;
    EXPECT_LT(r.err.size(), 200u) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("1797693"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // The edges that are allowed.
  for (const std::string ok : std::vector<std::string>{"--time-limit 0", "--time-limit 1000000", "--capacity 9223372036854775807",
                               "--threads 0", "--seed 18446744073709551615"}) {
    const testing::CliRun r = testing::run_cli(solve + ok, dir);
    EXPECT_EQ(r.code, 0) << ok << r.err;
  }
}

TEST(CliOutput, UnwritableSecondOutputLeavesNoFirstOutput) {
  TempDir dir;
  const std::string p = dir.file("p.csv");
  testing::write_text(p, "id,lower,upper,size\na,0,2,4\nb,1,3,8\n");
  const std::string ok = dir.file("ok.csv");
  for (const std::string& bad : std::vector<std::string>{"/nonexistent/x.svg", dir.file(""), ok}) {
    const testing::CliRun r = testing::run_cli("solve '" + p + "' -a greedy -o '" + ok + "' --svg '" + bad + "'", dir);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    EXPECT_FALSE(testing::exists(ok)) << bad;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  for (const auto& e : std::filesystem::directory_iterator(dir.file("")))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(WriteFilesAtomic, AllOrNothing) {
  TempDir dir;
  const std::string a = dir.file("a.txt");
  EXPECT_THROW(write_files_atomic({{a, "one"}, {dir.file("missing/b.txt"), "two"}}), std::runtime_error);
  EXPECT_FALSE(testing::exists(a));
  EXPECT_THROW(write_files_atomic({{a, "one"}, {a, "two"}}), std::runtime_error);
  EXPECT_FALSE(testing::exists(a));
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.file(""))) ++files;
  EXPECT_EQ(files, 0);  // no temp file left behind
  write_files_atomic({{a, "one"}, {dir.file("b.txt"), "two"}});
  EXPECT_EQ(testing::read_text(a), "one");
  EXPECT_EQ(testing::read_text(dir.file("b.txt")), "two");
}

// solve() checks its input as the readers do, on every solver, before any solver (or any
// worker thread of auto) runs: each bad buffer is an InputError naming the field.
TEST(SolveInput, EverySolverRefusesEveryBadFieldWithInputError) {
  struct Bad {
    const char* field;
    void (*edit)(Buffer&);
  };
  const std::vector<Bad> bads = {
      {"id", [](Buffer& b) { b.id = ""; }},
      {"id", [](Buffer& b) { b.id = "a\nb"; }},  // a line break (commas are quoted in CSV)
      {"lower", [](Buffer& b) { b.start = -1; }},
      {"upper", [](Buffer& b) { b.end = 0; }},
      {"size", [](Buffer& b) { b.size = 0; }},
      {"size", [](Buffer& b) { b.size = -5; }},
      {"alignment", [](Buffer& b) { b.alignment = 0; }},
      {"alignment", [](Buffer& b) { b.alignment = 3; }},
      {"alignment", [](Buffer& b) { b.alignment = int64_t{1} << 62; }},
      {"hint", [](Buffer& b) { b.hint = -2; }},
      {"offset", [](Buffer& b) { b.offset = -8; }},
      {"offset", [](Buffer& b) { b.offset = 4; }},
      {"gaps", [](Buffer& b) { b.gaps = {{5, 9}}; }},
      {"gaps", [](Buffer& b) { b.gaps = {{3, 4, true, 0, 99}}; }},
      {"id", [](Buffer& b) { b.id = "a"; }},  // duplicate
  };
  for (const SolverInfo& info : all_solvers()) {
    for (const Bad& bad : bads) {
      Problem p;
      p.buffers = {{"a", 0, 4, 8}, {"b", 2, 6, 16}};
      p.buffers[1].alignment = 8;
      bad.edit(p.buffers[1]);
      SolveOptions opt;
      opt.time_limit_seconds = 0.2;
      opt.threads = 2;
      try {
        solve(p, info.name, opt);
        ADD_FAILURE() << info.name << ": no error for a bad '" << bad.field << "'";
      } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("buffer #1"), std::string::npos) << info.name << ": " << msg;
        EXPECT_NE(msg.find(bad.field), std::string::npos) << info.name << ": " << msg;
      }
    }
    Problem p;
    p.buffers = {{"a", 0, 4, 8}};
    SolveOptions opt;
    opt.capacity = -1;
    EXPECT_THROW(solve(p, info.name, opt), InputError) << info.name;
    p.capacity = -1;
    opt.capacity.reset();
    EXPECT_THROW(solve(p, info.name, opt), InputError) << info.name;
  }
}

// The deep-stack threads size a level by a calibration measured at start-up: the optimized
// figure (2 KB) in optimized plain builds, more where frames grow (ASan, -O0), so the
// deep-recursion test (ExactImplicit.DeepRecursion...) fits its stack under ASan too.
TEST(DeepThreads, LevelBytesFollowTheBuildsFrames) {
#if defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
#define MEMPLAN_TEST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define MEMPLAN_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(MEMPLAN_TEST_ASAN)
  EXPECT_GE(exact::level_bytes(), 3 * 2048);
#elif defined(__OPTIMIZE__) && !defined(__SANITIZE_THREAD__) && !defined(MEMPLAN_TEST_TSAN)
  EXPECT_EQ(exact::level_bytes(), 2048);
#else
  EXPECT_GE(exact::level_bytes(), 2048);
#endif
  EXPECT_GT(exact::depth_limit() * exact::level_bytes(), (int64_t{4} << 20) - exact::level_bytes());
  EXPECT_LE(exact::depth_limit() * exact::level_bytes(), int64_t{4} << 20);
}

}  // namespace
}  // namespace memplan
