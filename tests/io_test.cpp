// I/O round trips: MiniMalloc CSV (all columns and aliases), JSON, PLC traces, plans.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <random>
#include <sstream>

#include "files.h"
#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "memplan/solver.h"
#include "testing.h"

namespace memplan {
namespace {

std::string round_trip(const std::string& text, Lifetimes lt = Lifetimes::kHalfOpen) {
  std::istringstream in(text);
  const CsvTable t = read_csv(in, "mem.csv", lt);
  std::ostringstream out;
  write_csv(out, t, nullptr);
  return out.str();
}

TEST(CsvRoundTrip, EveryBenchmarkFileIsWrittenBackByteIdentically) {
  int files = 0;
  for (const char* folder : {"benchmarks/minimalloc", "benchmarks/idealloc/iopddl",
                             "benchmarks/idealloc/somas_tensors"}) {
    for (const auto& e : std::filesystem::directory_iterator(testing::source_path(folder))) {
      if (e.path().extension() != ".csv") continue;
      const std::string text = testing::read_text(e.path().string());
      ASSERT_FALSE(text.empty());
      EXPECT_EQ(round_trip(text), text) << e.path();
      ++files;
    }
  }
  EXPECT_GE(files, 12 + 3 + 7);
}

TEST(CsvRoundTrip, MiniMallocFilesHaveTheDocumentedSizes) {
  const std::pair<char, size_t> expect[] = {{'A', 154}, {'D', 213}, {'K', 454}};
  for (auto [c, n] : expect) {
    const CsvTable t =
        read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") + c + ".1048576.csv"));
    EXPECT_EQ(t.problem.buffers.size(), n) << c;
    EXPECT_FALSE(t.has_offset_column);
  }
}

TEST(CsvRoundTrip, AllOptionalColumnsInAnyOrder) {
  const std::string text =
      "size,gaps,id,upper,offset,lower,alignment,hint,note\n"
      "64,2-4 6-8@0:32,a,10,-1,0,16,-1,first\n"
      "32,,b,12,64,1,32,7,\n"
      "8,3-4@2:6,c,5,-1,2,1,0,x y\n"
      "128,20-21 22-23@0:0 24-30@64:128,d,31,-1,20,64,-1,last\n";
  EXPECT_EQ(round_trip(text), text);
  std::istringstream in(text);
  const CsvTable t = read_csv(in, "mem.csv");
  ASSERT_EQ(t.problem.buffers.size(), 4u);
  const Buffer& a = t.problem.buffers[0];
  EXPECT_EQ(a.id, "a");
  EXPECT_EQ(a.start, 0);
  EXPECT_EQ(a.end, 10);
  EXPECT_EQ(a.size, 64);
  EXPECT_EQ(a.alignment, 16);
  EXPECT_FALSE(a.offset);
  ASSERT_EQ(a.gaps.size(), 2u);
  EXPECT_EQ(a.gaps[0], (Gap{2, 4, false, 0, 0}));
  EXPECT_EQ(a.gaps[1], (Gap{6, 8, true, 0, 32}));
  EXPECT_EQ(t.problem.buffers[1].offset, 64);
  EXPECT_EQ(t.problem.buffers[1].hint, 7);
  EXPECT_EQ(t.unknown_fields, (std::vector<std::string>{"first", "", "x y", "last"}));
}

TEST(CsvRoundTrip, AliasesWithInclusiveEnd) {
  // 'end' is inclusive: the reader adds 1 to it and to every gap's upper bound.
  const std::string text =
      "buffer,start,end,size,gaps\n"
      "a,0,9,64,2-3 6-7@0:32\n"
      "b,4,4,8,\n";
  EXPECT_EQ(round_trip(text), text);
  std::istringstream in(text);
  const Problem p = read_csv(in, "mem.csv").problem;
  EXPECT_EQ(p.buffers[0].end, 10);
  EXPECT_EQ(p.buffers[0].gaps[0], (Gap{2, 4, false, 0, 0}));
  EXPECT_EQ(p.buffers[0].gaps[1], (Gap{6, 8, true, 0, 32}));
  EXPECT_EQ(p.buffers[1].start, 4);
  EXPECT_EQ(p.buffers[1].end, 5);

  const std::string other = "buffer_id,begin,upper,size,alignment\nx,3,7,16,8\n";
  EXPECT_EQ(round_trip(other), other);
}

TEST(CsvRoundTrip, InclusiveLifetimesAreReadPlusOne) {
  const std::string text = "id,lower,upper,size\na,0,3,8\nb,3,5,8\n";
  std::istringstream in(text);
  const Problem p = read_csv(in, "iree.csv", Lifetimes::kInclusive).problem;
  EXPECT_EQ(p.buffers[0].end, 4);
  EXPECT_EQ(p.buffers[1].end, 6);
  EXPECT_EQ(compute_load(p), 16);  // both live at t = 3
  // The IREE sets from idealloc read this way.
  const Problem iree = read_csv_file(testing::source_path("benchmarks/idealloc/iree/iree_mobilenet.csv"),
                                     Lifetimes::kInclusive).problem;
  EXPECT_EQ(iree.buffers.size(), 56u);
}

TEST(CsvRoundTrip, ReadingStopsAtTheFirstEmptyLine) {
  std::istringstream in("id,lower,upper,size\na,0,4,8\n\nnot,a,buffer\n");
  EXPECT_EQ(read_csv(in, "m.csv").problem.buffers.size(), 1u);
}

TEST(CsvRoundTrip, ByteOrderMarkIsSkipped) {
  std::istringstream in("\xEF\xBB\xBFid,lower,upper,size\na,0,4,8\n");
  EXPECT_EQ(read_csv(in, "bom.csv").problem.buffers.size(), 1u);
}

TEST(CsvRoundTrip, CrLfLineEndingsAreAccepted) {
  std::istringstream in("id,lower,upper,size\r\na,0,4,8\r\nb,1,2,3\r\n");
  const Problem p = read_csv(in, "m.csv").problem;
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[1].size, 3);
}

TEST(CsvWrite, PlanAppendsOrOverwritesTheOffsetColumn) {
  {
    std::istringstream in("buffer,start,end,size,gaps\na,0,9,64,2-3\nb,0,9,8,\n");
    const CsvTable t = read_csv(in, "m.csv");
    std::ostringstream out;
    const std::vector<int64_t> offsets = {0, 64};
    write_csv(out, t, &offsets);
    EXPECT_EQ(out.str(), "buffer,start,end,size,gaps,offset\na,0,9,64,2-3,0\nb,0,9,8,,64\n");
    // What we write, we (and MiniMalloc) read back: same buffers, offsets now fixed.
    std::istringstream back(out.str());
    const CsvTable t2 = read_csv(back, "plan.csv");
    ASSERT_EQ(t2.problem.buffers.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      Buffer expect = t.problem.buffers[i];
      expect.offset = offsets[i];
      EXPECT_EQ(t2.problem.buffers[i], expect);
    }
    std::istringstream plan(out.str());
    EXPECT_EQ(read_solution_csv(plan, "plan.csv", t.problem), offsets);
  }
  {
    std::istringstream in("offset,id,lower,upper,size\n-1,a,0,4,8\n8,b,0,4,8\n");
    const CsvTable t = read_csv(in, "m.csv");
    std::ostringstream out;
    const std::vector<int64_t> offsets = {0, 8};
    write_csv(out, t, &offsets);
    EXPECT_EQ(out.str(), "offset,id,lower,upper,size\n0,a,0,4,8\n8,b,0,4,8\n");
  }
}

// The CLI moves the problem out of the table it writes back (one copy of the buffers):
// written around the moved-out rows, the table gives the same text as with its own problem,
// unknown columns, vector clocks and explicit conflicts included.
TEST(CsvWrite, TableAroundMovedOutRowsWritesTheSame) {
  const std::string text =
      "id,lower,upper,size,note,conflicts\n"
      "a,0:0,2:0,64,first,c\n"
      "b,0:0,0:2,32,,\n"
      "c,1:0,3:0,8,x y,\n"
      "d,0:1,0:3,16,last,a\n";
  std::istringstream in(text);
  const CsvTable whole = read_csv(in, "streams.csv");
  ASSERT_EQ(whole.problem.buffers.size(), 4u);
  ASSERT_GT(whole.problem.clock_dim, 0);
  ASSERT_FALSE(whole.problem.conflicts.empty());
  CsvTable table = whole;
  const Problem rows = std::move(table.problem);
  table.problem = Problem{};
  const std::vector<int64_t> offsets = {0, 64, 96, 104};
  for (const std::vector<int64_t>* o : {static_cast<const std::vector<int64_t>*>(nullptr), &offsets}) {
    std::ostringstream want, got;
    write_csv(want, whole, o);
    write_csv(got, table, rows, o);
    EXPECT_EQ(got.str(), want.str());
    EXPECT_NE(got.str().find("last"), std::string::npos);
  }
}

TEST(CsvWrite, DefaultColumnsFollowWhatTheBuffersUse) {
  Problem p;
  p.buffers = {{"a", 0, 4, 8}, {"b", 2, 6, 16}};
  std::ostringstream plain;
  write_csv(plain, p, nullptr);
  EXPECT_EQ(plain.str(), "id,lower,upper,size\na,0,4,8\nb,2,6,16\n");
  p.buffers[1].alignment = 8;
  p.buffers[0].gaps = {{1, 2, true, 0, 4}};
  std::ostringstream rich;
  write_csv(rich, p, nullptr, {"buffer", "start", "end", "size"});  // header lacks them
  EXPECT_EQ(rich.str(), "buffer,start,end,size,alignment,gaps\na,0,3,8,1,1-1@0:4\nb,2,5,16,8,\n");
  std::istringstream back(rich.str());
  const Problem q = read_csv(back, "r.csv").problem;
  EXPECT_EQ(q.buffers, p.buffers);
}

TEST(CsvWrite, RandomProblemsRoundTripThroughCsvAndJson) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = trial % 10;
    spec.alignment = trial % 2;
    spec.gaps = trial % 3 != 0;
    Problem p = testing::random_problem(rng, spec);
    for (size_t i = 0; i < p.buffers.size(); i += 3) p.buffers[i].hint = static_cast<int64_t>(i);
    if (!p.buffers.empty() && trial % 4 == 0) p.buffers[0].offset = 4 * p.buffers[0].alignment;
    if (trial % 5 == 0) p.capacity = 1000;
    for (const char* end_name : {"upper", "end"}) {
      std::ostringstream out;
      write_csv(out, p, nullptr, {"id", "lower", end_name, "size"});
      std::istringstream in(out.str());
      EXPECT_EQ(read_csv(in, "r.csv").problem.buffers, p.buffers) << out.str();
    }
    const Problem j = parse_json(problem_to_json(p, nullptr), "r.json");
    EXPECT_EQ(j.buffers, p.buffers);
    EXPECT_EQ(j.capacity, p.capacity);
  }
}

// Model tensor names become ids, and may hold commas and quotes (an ONNX or graph tensor
// named "a,b" made `solve` refuse the whole model). CSV quotes such fields (RFC 4180): a
// problem and its plan written and read back keep every id exactly, and a plain id is
// written as before (MiniMalloc's format unchanged).
TEST(CsvQuoting, IdsWithCommasQuotesAndBlanksRoundTrip) {
  const std::vector<std::string> ids = {"a,b", "say \"hi\"", " lead", "trail ", "\"", ",", "x;y", "plain",
                                        "model/conv;model/bias", "\"q\",\"r\""};
  Problem p;
  for (size_t i = 0; i < ids.size(); ++i) p.buffers.push_back({ids[i], static_cast<int64_t>(i), static_cast<int64_t>(i) + 2, 8});
  p.buffers[1].inplace_of = ids[0];  // an id in another column is quoted too
  std::vector<int64_t> offsets(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) offsets[i] = 8 * static_cast<int64_t>(i % 2);
  offsets[1] = offsets[0];  // in place: the same address (read back as fixed offsets)
  std::ostringstream out, plan;
  write_csv(out, p, nullptr);
  write_csv(plan, p, &offsets);
  EXPECT_NE(out.str().find("\nplain,"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\n\"a,b\","), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\n\"say \"\"hi\"\"\","), std::string::npos) << out.str();
  std::istringstream in(out.str());
  const CsvTable back = read_csv(in, "q.csv");
  EXPECT_EQ(back.problem.buffers, p.buffers) << out.str();
  std::istringstream plan_in(plan.str());
  EXPECT_EQ(read_solution_csv(plan_in, "q.csv", p), offsets) << plan.str();
  // A quoted field keeps its blanks; an unquoted one is trimmed as before.
  std::istringstream spaced("id, lower ,upper,size\n \" a \" , 0 ,1,4\n  b  ,0,1,4\n");
  const CsvTable t = read_csv(spaced, "s.csv");
  ASSERT_EQ(t.problem.buffers.size(), 2u);
  EXPECT_EQ(t.problem.buffers[0].id, " a ");
  EXPECT_EQ(t.problem.buffers[1].id, "b");
  // Broken quoting names the line and the column.
  for (const char* bad : {"id,lower,upper,size\n\"a,0,1,4\n", "id,lower,upper,size\n\"a\"x,0,1,4\n"}) {
    std::istringstream b(bad);
    try {
      read_csv(b, "b.csv");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("b.csv:2: column 'id'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("quote"), std::string::npos) << e.what();
    }
  }
  std::istringstream bad_plan("id,offset\na,\"8\n");
  try {
    read_solution_csv(bad_plan, "p.csv", p);
    ADD_FAILURE() << "accepted a plan with an open quote";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("p.csv:2: column 'offset': a quote opened and not closed"), std::string::npos)
        << e.what();
  }
  // A line break cannot be written on one CSV line: still refused, naming the buffer.
  Problem nl;
  nl.buffers = {{"a\nb", 0, 1, 4}};
  EXPECT_THROW(solve(nl, "first-fit", SolveOptions{}), InputError);
}

TEST(Json, ProblemAndPlanRoundTrip) {
  Problem p;
  p.capacity = 4096;
  p.buffers = {{"a", 0, 10, 64}, {"b", 2, 6, 32}, {"c", 5, 9, 16}};
  p.buffers[0].alignment = 16;
  p.buffers[0].gaps = {{2, 4, false, 0, 0}, {6, 8, true, 16, 48}};
  p.buffers[1].offset = 128;
  p.buffers[1].hint = 3;
  const std::string text = problem_to_json(p, nullptr);
  const Problem q = parse_json(text, "p.json");
  EXPECT_EQ(q.buffers, p.buffers);
  EXPECT_EQ(q.capacity, p.capacity);
  EXPECT_EQ(problem_to_json(q, nullptr), text);

  const std::vector<int64_t> offsets = {0, 128, 64};
  const std::string plan = problem_to_json(p, &offsets, {{"algo", "test"}});
  EXPECT_NE(plan.find("\"peak\": 160"), std::string::npos) << plan;
  EXPECT_EQ(parse_json_solution(plan, "plan.json", p), offsets);
}

// problem_to_json writes its text directly (no json value built): it must be laid out
// exactly as nlohmann's dump(1) of the same document (members in key order, one space a
// level, nlohmann's escapes), which re-parsing and re-dumping the text shows.
TEST(Json, WrittenAsNlohmannDumpsIt) {
  Problem p;
  p.capacity = 1 << 20;
  p.memories = {{"sram", 4096, 64}, {"dram", std::nullopt, 1}};
  p.buffers = {{"plain", 0, 10, 64},        {"quo\"te", 2, 6, 32},  {"back\\slash", 5, 9, 16},
               {"tab\tend", 1, 3, 8}, {"ctl", 0, 2, 8}, {"utf8-\xc3\xa9", 3, 7, 24}};
  Buffer& a = p.buffers[0];
  a.alignment = 16;
  a.hint = 3;
  a.gaps = {{2, 4, false, 0, 0}, {6, 8, true, 16, 48}};
  a.spaces = {"sram", "dram"};
  a.uses = {0, 5, 9};
  a.evictable = true;
  a.accesses = 7;
  p.buffers[1].offset = 128;
  p.buffers[5].inplace_of = "quo\"te";
  p.buffers[2].from_top = true;
  p.buffers[3].group = "cat\x01\x1f";  // control characters escaped as nlohmann does (ids may not hold them)
  p.buffers[3].group_index = 2;
  p.conflicts = {{0, 4}};
  const std::vector<int64_t> offsets = {0, 128, 96, 200, 300, 400};
  // Extra members sort around ours; where a name is ours ("peak"), ours is written.
  const std::string plan = problem_to_json(p, &offsets, {{"algo", "x"}, {"peak", "theirs"}, {"zzz", "last"}});
  const nlohmann::json doc = nlohmann::json::parse(plan);
  EXPECT_EQ(plan, doc.dump(1) + "\n");
  EXPECT_EQ(doc["peak"], 424);
  EXPECT_EQ(doc["zzz"], "last");
  EXPECT_EQ(doc["buffers"].size(), p.buffers.size());
  EXPECT_EQ(doc["buffers"][0]["gaps"][1]["window"], nlohmann::json::array({16, 48}));
  EXPECT_EQ(doc["buffers"][5]["id"], "utf8-\xc3\xa9");
  EXPECT_EQ(parse_json_solution(plan, "plan.json", p), offsets);
  const std::string problem = problem_to_json(p, nullptr);
  EXPECT_EQ(problem, nlohmann::json::parse(problem).dump(1) + "\n");
  const Problem back = parse_json(problem, "p.json");
  ASSERT_EQ(back.buffers.size(), p.buffers.size());
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    EXPECT_EQ(back.buffers[i].id, p.buffers[i].id);
    EXPECT_EQ(back.buffers[i].gaps, p.buffers[i].gaps);
    EXPECT_EQ(back.buffers[i].offset, p.buffers[i].offset);
  }
  EXPECT_EQ(back.conflicts, p.conflicts);
  // Vector clocks: lower and upper as arrays.
  Problem c;
  c.buffers = {{"x", 0, 1, 8}, {"y", 0, 1, 8}};
  c.clock_dim = 2;
  c.clock_lower = {0, 0, 1, 0};
  c.clock_upper = {1, 0, 2, 0};
  const std::string clocks = problem_to_json(c, nullptr);
  EXPECT_EQ(clocks, nlohmann::json::parse(clocks).dump(1) + "\n");
  EXPECT_EQ(nlohmann::json::parse(clocks)["buffers"][1]["lower"], nlohmann::json::array({1, 0}));
  EXPECT_EQ(problem_to_json(Problem{}, nullptr), "{\n \"buffers\": []\n}\n");
  Problem nl;  // a line break (refused in ids read back, but written as nlohmann writes it)
  nl.buffers = {{"a\nb\rc", 0, 1, 8}};
  const std::string escaped = problem_to_json(nl, nullptr);
  EXPECT_EQ(escaped, nlohmann::json::parse(escaped).dump(1) + "\n");
  // Not UTF-8: refused, as nlohmann refuses it.
  Problem bad;
  bad.buffers = {{"\xff", 0, 1, 8}};
  EXPECT_ANY_THROW(problem_to_json(bad, nullptr));
}

// The plan reader reads a plan's entries by nlohmann's SAX interface. The same rules read
// from a json value (as the reader did before), to check it against.
std::vector<int64_t> plan_from_value(const std::string& text, const std::string& name, const Problem& p) {
  using nlohmann::json;
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception&) {
    throw InputError(name + ": invalid JSON");
  }
  if (!doc.is_object() || !doc.contains("buffers") || !doc["buffers"].is_array())
    throw InputError(name + ": expected an object with a 'buffers' array");
  std::vector<int64_t> offsets(p.buffers.size(), 0);
  std::vector<size_t> entry_of(p.buffers.size(), 0);
  for (size_t k = 0; k < doc["buffers"].size(); ++k) {
    const json& e = doc["buffers"][k];
    const std::string where = name + ": buffers[" + std::to_string(k) + "]";
    if (!e.is_object() || !e.contains("id") || !(e["id"].is_string() || e["id"].is_number_integer()))
      throw InputError(where + ": expected an object with an 'id' (string or integer)");
    const std::string id = e["id"].is_string() ? e["id"].get<std::string>() : e["id"].dump();
    size_t i = 0;
    while (i < p.buffers.size() && p.buffers[i].id != id) ++i;
    if (i == p.buffers.size()) throw InputError(where + ": field 'id': buffer '" + id + "' is not in the problem");
    if (entry_of[i])
      throw InputError(where + ": field 'id': duplicate id '" + id + "' (first in buffers[" +
                       std::to_string(entry_of[i] - 1) + "])");
    if (!e.contains("offset")) throw InputError(where + ": missing field 'offset'");
    if (!e["offset"].is_number_integer()) throw InputError(where + ": field 'offset' must be an integer");
    if (e["offset"].is_number_unsigned() && e["offset"].get<uint64_t>() > uint64_t{INT64_MAX})
      throw InputError(where + ": field 'offset' is out of the 64-bit range");
    offsets[i] = e["offset"].get<int64_t>();
    entry_of[i] = k + 1;
  }
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (!entry_of[i]) throw InputError(name + ": buffers: buffer '" + p.buffers[i].id + "' of the problem has no entry");
  return offsets;
}

// Random plan documents, well and badly formed (wrong types, repeated keys, integer and
// unknown ids, offsets beyond 64 bits, nested values, syntax errors): the streaming reader
// gives the same offsets, or the same message, as the rules read from a json value.
TEST(Json, PlanReaderAgreesWithTheRulesOnAJsonValue) {
  Problem p;
  p.buffers = {{"a", 0, 4, 8}, {"b", 0, 4, 8}, {"7", 2, 6, 8}};
  std::mt19937_64 rng(11);
  auto pick = [&](std::initializer_list<const char*> v) { return std::string(v.begin()[rng() % v.size()]); };
  auto junk = [&] { return pick({"null", "true", "1.5", "1e400", "[1, {\"id\": \"a\"}]", "{\"offset\": 3}", "\"x\"", "-2"}); };
  auto entry = [&] {
    if (rng() % 12 == 0) return junk();
    std::string e = "{";
    const int members = static_cast<int>(rng() % 4);
    auto add = [&](const std::string& m) { e += (e.size() > 1 ? ", " : "") + m; };
    if (rng() % 8) add("\"id\": " + pick({"\"a\"", "\"b\"", "\"a\"", "\"b\"", "7", "\"7\"", "\"z\"", "18446744073709551615",
                                         "1.5", "null", "[\"a\"]", "{}"}));
    if (rng() % 8) add("\"offset\": " + pick({"0", "64", "128", "-8", "9223372036854775807", "9223372036854775808",
                                             "18446744073709551615", "2.0", "\"8\"", "null", "[0]", "{}"}));
    for (int m = 0; m < members; ++m) add(pick({"\"id\"", "\"offset\"", "\"size\"", "\"x\""}) + ": " + junk());
    return e + "}";
  };
  int agreed_ok = 0, agreed_error = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    if (rng() % 20 == 0) {
      text = junk();
    } else {
      text = "{";
      if (rng() % 6 == 0) text += "\"peak\": 128, ";
      const int arrays = rng() % 10 == 0 ? 2 : 1;
      for (int a = 0; a < arrays; ++a) {
        if (rng() % 15 == 0) {
          text += "\"buffers\": " + junk() + ", ";
          continue;
        }
        text += "\"buffers\": [";
        if (rng() % 3 == 0) {  // a plan: every id once, in some order, perhaps one entry broken
          std::vector<std::string> ids = {"\"a\"", "\"b\"", rng() % 2 ? "7" : "\"7\""};
          std::shuffle(ids.begin(), ids.end(), rng);
          const size_t broken = rng() % 6;
          for (size_t k = 0; k < ids.size(); ++k)
            text += (k ? ", " : "") + (k == broken ? entry()
                                                   : "{\"id\": " + ids[k] + ", \"offset\": " + std::to_string(rng() % 512) +
                                                         (rng() % 3 ? "" : ", \"x\": " + junk()) + "}");
        } else {
          const int n = static_cast<int>(rng() % 5);
          for (int k = 0; k < n; ++k) text += (k ? ", " : "") + entry();
        }
        text += "], ";
      }
      text += "\"algo\": \"x\"}";
    }
    if (rng() % 15 == 0) text.resize(rng() % text.size());  // a syntax error, most of the time
    std::string want, got;
    std::vector<int64_t> want_offsets, got_offsets;
    try {
      want_offsets = plan_from_value(text, "p.json", p);
    } catch (const InputError& e) {
      want = e.what();
    }
    try {
      got_offsets = parse_json_solution(text, "p.json", p);
    } catch (const InputError& e) {
      got = e.what();
    }
    if (want == "p.json: invalid JSON") {  // the message names the field (parse_doc): its start only
      EXPECT_EQ(got.rfind("p.json: invalid JSON", 0), 0u) << text << "\n" << got;
      continue;
    }
    EXPECT_EQ(got, want) << text;
    EXPECT_EQ(got_offsets, want_offsets) << text;
    (want.empty() ? agreed_ok : agreed_error) += got == want;
  }
  EXPECT_GT(agreed_ok, 100);  // the documents reach every rule and pass it too
  EXPECT_GT(agreed_error, 1000);
}

TEST(Json, SolutionIdsMustMatchTheProblem) {
  Problem p;
  p.buffers = {{"a", 0, 4, 8}, {"b", 0, 4, 8}};
  EXPECT_THROW(parse_json_solution(R"({"buffers":[{"id":"a","offset":0}]})", "s.json", p), InputError);
  EXPECT_THROW(parse_json_solution(
                   R"({"buffers":[{"id":"a","offset":0},{"id":"b","offset":8},{"id":"z","offset":8}]})",
                   "s.json", p),
               InputError);
  EXPECT_THROW(parse_json_solution(
                   R"({"buffers":[{"id":"a","offset":0},{"id":"a","offset":8},{"id":"b","offset":8}]})",
                   "s.json", p),
               InputError);
  EXPECT_THROW(parse_json(R"({"buffers":[{"id":"a","lower":0,"upper":4,"size":9223372036854775808}]})",
                          "big.json"),
               InputError);
}

std::string plc(const std::vector<std::array<uint64_t, 8>>& records) { return memplan::testing::plc_bytes(records); }

TEST(Plc, ExclusiveLifetimesBecomeHalfOpen) {
  // live iff birth < t < death: integer instants birth+1 .. death-1.
  std::istringstream in(plc({{5, 0, 2, 10, 9, 0, 0, 9},      // live only at t = 1
                             {6, 1, 4, 24, 9, 64, 16, 20},   // t = 2, 3
                             {7, 2, 3000000000, 8, 9, 0, 8, 8}}));
  const Problem p = read_plc(in, "t.plc");
  ASSERT_EQ(p.buffers.size(), 3u);
  EXPECT_EQ(p.buffers[0], (Buffer{"5", 1, 2, 10}));
  EXPECT_EQ(p.buffers[1], (Buffer{"6", 2, 4, 24, 16}));
  EXPECT_EQ(p.buffers[2], (Buffer{"7", 3, 3000000000, 8, 8}));
  // Buffers 5 and 6 share no instant (t = 1 vs t = 2, 3): LOAD is 24 + 8 at t = 3 (reading
  // [birth, death) instead would give 10 + 24 at t = 1).
  EXPECT_EQ(compute_load(p), 32);
}

TEST(Plc, BundledTraceReads) {
  const std::string path = testing::source_path("benchmarks/idealloc/traces/hi_again.plc");
  const Problem p = read_plc_file(path);
  ASSERT_EQ(p.buffers.size(), 183u);  // 11712 bytes / 64
  // First record: id 1, birth 472, death 1616, allocated 120, alignment 16.
  EXPECT_EQ(p.buffers[0], (Buffer{"1", 473, 1616, 120, 16}));
  EXPECT_GT(compute_load(p), 0);
}

TEST(Solution, CsvPlanNeedsOnlyIdAndOffset) {
  Problem p;
  p.buffers = {{"a", 0, 4, 8}, {"b", 0, 4, 8}};
  p.buffers[1].alignment = 16;
  std::istringstream in("note,offset,buffer\nx,8,b\ny,0,a\n");
  // Offsets are taken as written; validate() judges them (8 is misaligned for b).
  EXPECT_EQ(read_solution_csv(in, "s.csv", p), (std::vector<int64_t>{0, 8}));
}

}  // namespace
}  // namespace memplan

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memplan {
namespace {

// An output that is not a regular file (here a FIFO; in life /dev/null or /dev/stdout) is
// written in place, never replaced by renaming a temporary file over it (as root, `-o
// /dev/null` once turned /dev/null into a regular file).
TEST(AtomicWrite, SpecialFilesAreWrittenInPlaceNotReplaced) {
  const testing::TempDir dir;
  for (int both = 0; both < 2; ++both) {
    const std::string fifo = dir.file("out" + std::to_string(both) + ".fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // lets the writer open it
    ASSERT_GE(reader, 0);
    if (both) {
      write_files_atomic({{dir.file("plain.csv"), std::string("plain\n")}, {fifo, std::string("abc")}});
      EXPECT_EQ(testing::read_text(dir.file("plain.csv")), "plain\n");
    } else {
      write_file_atomic(fifo, "abc");
    }
    EXPECT_TRUE(std::filesystem::is_fifo(fifo)) << "the FIFO was replaced by a regular file";
    char buf[8] = {};
    EXPECT_EQ(::read(reader, buf, sizeof buf), 3);
    EXPECT_EQ(std::string(buf, 3), "abc");
    ::close(reader);
  }
}

// A symlink is written through: renamed over, the link became a regular file and its
// target kept the old contents (and `-o /dev/stdout`, a link to /proc/self/fd/1, with
// stdout redirected to a file replaced /dev/stdout itself).
TEST(AtomicWrite, SymlinksAreWrittenThroughNotReplaced) {
  const testing::TempDir dir;
  std::filesystem::create_directory(dir.file("real"));
  for (int both = 0; both < 2; ++both) {
    const std::string target = dir.file("real/plan" + std::to_string(both) + ".csv");
    const std::string link = dir.file("plan" + std::to_string(both) + ".csv");
    testing::write_text(target, "old\n");
    std::filesystem::create_symlink(target, link);
    if (both) write_files_atomic({{dir.file("other.csv"), std::string("x\n")}, {link, std::string("new\n")}});
    else write_file_atomic(link, "new\n");
    EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link was replaced by a regular file";
    EXPECT_EQ(testing::read_text(target), "new\n");
  }
}

// The plan reader takes a row whose id is the problem's at the same rank without a lookup,
// and every other row by id: both give the same offsets, and duplicates are caught either way.
TEST(Solution, RowsInTheProblemsOrderOrShuffledReadTheSame) {
  Problem p;
  for (int i = 0; i < 40; ++i) p.buffers.push_back({"t" + std::to_string(i), i, i + 3, 8 + i});
  std::vector<int64_t> offsets;
  for (int i = 0; i < 40; ++i) offsets.push_back(1000 - 7 * i);
  auto plan = [&](const std::vector<int>& rows) {
    std::string text = "id,offset\n";
    for (int r : rows) text += p.buffers[r].id + "," + std::to_string(offsets[r]) + "\n";
    return text;
  };
  std::vector<int> in_order(40), shuffled(40);
  for (int i = 0; i < 40; ++i) in_order[i] = i, shuffled[i] = (i * 17 + 5) % 40;  // a permutation
  std::istringstream a(plan(in_order)), b(plan(shuffled));
  EXPECT_EQ(read_solution_csv(a, "a.csv", p), offsets);
  EXPECT_EQ(read_solution_csv(b, "b.csv", p), offsets);
  // In order up to row 29, whose id is row 9's: a duplicate, named with both lines.
  std::vector<int> dup = in_order;
  dup[29] = 9;
  std::istringstream c(plan(dup));
  try {
    read_solution_csv(c, "c.csv", p);
    FAIL() << "no error for a duplicate row";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.csv:31: column 'id': duplicate id 't9' (first on line 11)"),
              std::string::npos) << e.what();
  }
  // In order, one row short: the missing buffer is named.
  std::istringstream d(plan(std::vector<int>(in_order.begin(), in_order.end() - 1)));
  EXPECT_THROW(read_solution_csv(d, "d.csv", p), InputError);
  // The JSON plan reader matches entries the same way.
  auto json_plan = [&](const std::vector<int>& rows) {
    std::string text = "{\"buffers\": [";
    for (size_t k = 0; k < rows.size(); ++k)
      text += (k ? "," : "") + std::string("{\"id\": \"") + p.buffers[rows[k]].id + "\", \"offset\": " +
              std::to_string(offsets[rows[k]]) + "}";
    return text + "]}";
  };
  EXPECT_EQ(parse_json_solution(json_plan(in_order), "a.json", p), offsets);
  EXPECT_EQ(parse_json_solution(json_plan(shuffled), "b.json", p), offsets);
  try {
    parse_json_solution(json_plan(dup), "c.json", p);
    FAIL() << "no error for a duplicate entry";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.json: buffers[29]: field 'id': duplicate id 't9' (first in buffers[9])"),
              std::string::npos) << e.what();
  }
}

// Ids are checked for uniqueness once all rows are read; the error still names both lines.
TEST(Csv, DuplicateIdNamesBothLines) {
  std::istringstream in("id,lower,upper,size\na,0,4,8\nb,0,4,8\nc,1,2,8\nb,5,6,8\n");
  try {
    read_csv(in, "p.csv");
    FAIL() << "no error for a duplicate id";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "p.csv:5: column 'id': duplicate id 'b' (first on line 3)");
  }
}

}  // namespace
}  // namespace memplan
