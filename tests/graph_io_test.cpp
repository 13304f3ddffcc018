// The graph file format (graph_io.h): round trips of generated graphs, the CLI paths that
// read it (generate --kind dag, schedule, solve --schedule) and its error messages.
#include <gtest/gtest.h>

#include <sstream>
#include <unordered_map>

#include "files.h"
#include "memplan/generate_graph.h"
#include "memplan/graph_io.h"
#include "memplan/io.h"
#include "memplan/schedule.h"

namespace memplan {
namespace {

using testing::TempDir;

// A per-output position list as the graph means it: empty is the same as all -1.
std::vector<int32_t> positions(const std::vector<int32_t>& v, size_t outputs) {
  return v.empty() ? std::vector<int32_t>(outputs, -1) : v;
}

void expect_same_graph(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const Tensor &x = a.tensors[i], &y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.bytes, y.bytes) << x.name;
    EXPECT_EQ(x.kind, y.kind) << x.name;
    EXPECT_EQ(x.dtype, y.dtype) << x.name;
    EXPECT_EQ(x.shape, y.shape) << x.name;
    EXPECT_EQ(x.producer, y.producer) << x.name;
    EXPECT_EQ(x.consumers, y.consumers) << x.name;
  }
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Operator &x = a.ops[i], &y = b.ops[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.type, y.type) << x.name;
    EXPECT_EQ(x.inputs, y.inputs) << x.name;
    EXPECT_EQ(x.outputs, y.outputs) << x.name;
    EXPECT_EQ(positions(x.view_of, x.outputs.size()), positions(y.view_of, y.outputs.size())) << x.name;
    EXPECT_EQ(positions(x.may_overwrite, x.outputs.size()), positions(y.may_overwrite, y.outputs.size())) << x.name;
    EXPECT_EQ(x.scratch_bytes, y.scratch_bytes) << x.name;
  }
}

Graph round_trip(const Graph& g, std::string* text = nullptr) {
  std::ostringstream out;
  write_graph_jsonl(out, g);
  if (text) *text = out.str();
  std::istringstream in(out.str());
  return read_graph_jsonl(in, "mem");
}

TEST(GraphFile, GeneratedGraphsRoundTripExactly) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    for (const Graph& g : {generate_dnn_graph(1500, seed), generate_random_wired_graph(400, seed)}) {
      std::string text, again;
      const Graph back = round_trip(g, &text);
      expect_same_graph(g, back);
      round_trip(back, &again);
      EXPECT_EQ(text, again) << "writing the read graph gives the same file";
      // The same graph, so the same LOADs under every order the schedulers see.
      EXPECT_EQ(order_load(g, graph_order(g)), order_load(back, graph_order(back)));
      ScheduleOptions so;
      so.time_limit = 0;
      EXPECT_EQ(schedule(g, so).order, schedule(back, so).order);
    }
  }
}

TEST(GraphFile, KeepsDtypeShapeKindsAndAliasing) {
  const std::string text =
      "{\"memplan_graph\": 1}\n"
      "\n"
      "{\"tensor\": \"x\", \"bytes\": 64, \"kind\": \"input\", \"dtype\": \"float32\", \"shape\": [1, 16]}\n"
      "{\"tensor\": \"w\", \"bytes\": 32, \"kind\": \"weight\"}\n"
      "{\"tensor\": \"a\", \"bytes\": 64}\n"
      "{\"tensor\": \"v\", \"bytes\": 64, \"shape\": [4, -1]}\n"
      "{\"tensor\": \"y\", \"bytes\": 64, \"kind\": \"output\"}\n"
      "{\"op\": \"mm\", \"type\": \"MatMul\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"a\"], \"scratch\": 8}\n"
      "{\"op\": \"r\", \"inputs\": [\"a\"], \"outputs\": [\"v\"], \"view_of\": [0]}\n"
      "{\"op\": \"relu\", \"type\": \"Relu\", \"inputs\": [\"v\"], \"outputs\": [\"y\"], \"may_overwrite\": [0]}\n";
  std::istringstream in(text);
  const Graph g = read_graph_jsonl(in, "g.jsonl");
  ASSERT_EQ(g.tensors.size(), 5u);
  ASSERT_EQ(g.ops.size(), 3u);
  EXPECT_EQ(g.tensors[0].kind, TensorKind::kInput);
  EXPECT_EQ(g.tensors[0].dtype, "float32");
  EXPECT_EQ(g.tensors[0].shape, (std::vector<int64_t>{1, 16}));
  EXPECT_EQ(g.tensors[1].kind, TensorKind::kWeight);
  EXPECT_EQ(g.tensors[3].shape, (std::vector<int64_t>{4, -1}));
  EXPECT_EQ(g.tensors[4].kind, TensorKind::kOutput);
  EXPECT_EQ(g.ops[0].scratch_bytes, 8);
  EXPECT_EQ(g.ops[0].type, "MatMul");
  EXPECT_EQ(g.ops[1].view_of, (std::vector<int32_t>{0}));
  EXPECT_EQ(g.ops[2].may_overwrite, (std::vector<int32_t>{0}));
  EXPECT_EQ(g.tensors[2].producer, 0);
  EXPECT_EQ(g.tensors[2].consumers, (std::vector<int32_t>{1}));
  // At mm: x (an input, live from the start) + a + mm's scratch = 136; later steps hold at
  // most a (kept alive by its view v) and y: 128. The weight is not planned.
  EXPECT_EQ(order_load(g, {0, 1, 2}), 136);
  expect_same_graph(g, round_trip(g));
}

// The message of reading `text` as "g.jsonl".
std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    read_graph_jsonl(in, "g.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GraphFile, ErrorsNameTheFileLineAndField) {
  const std::string head = "{\"memplan_graph\": 1}\n{\"tensor\": \"x\", \"bytes\": 8, \"kind\": \"input\"}\n";
  struct Case {
    std::string text, expected;
  } cases[] = {
      {"", "g.jsonl: empty file"},
      {"{\"tensor\": \"x\", \"bytes\": 8}\n", "g.jsonl:1: field 'memplan_graph'"},
      {"{\"memplan_graph\": 2}\n", "g.jsonl:1: field 'memplan_graph': version 2"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8\n", "g.jsonl:3: not a JSON object"},
      {head + "[1, 2]\n", "g.jsonl:3: expected a JSON object"},
      {head + "{\"tensor\": \"y\"}\n", "g.jsonl:3: field 'bytes': missing (tensor 'y')"},
      {head + "{\"tensor\": \"y\", \"bytes\": -1}\n", "g.jsonl:3: field 'bytes': tensor 'y' has negative size"},
      {head + "{\"tensor\": \"y\", \"bytes\": \"8\"}\n", "g.jsonl:3: field 'bytes': expected a 64-bit integer"},
      {head + "{\"tensor\": \"y\", \"bytes\": 18446744073709551615}\n", "g.jsonl:3: field 'bytes': expected a 64-bit integer"},
      {head + "{\"tensor\": \"y\", \"bytes\": 4611686018427387904}\n", "g.jsonl:3: field 'bytes': the graph's sizes add up past 2^61"},
      {head + "{\"tensor\": \"x\", \"bytes\": 8}\n", "g.jsonl:3: field 'tensor': tensor 'x' is declared twice"},
      {head + "{\"tensor\": \"\", \"bytes\": 8}\n", "g.jsonl:3: field 'tensor': a tensor needs a non-empty name"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8, \"kind\": \"temp\"}\n", "g.jsonl:3: field 'kind': 'temp' is not one of"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8, \"size\": 8}\n", "g.jsonl:3: field 'size': unknown field of a tensor line"},
      {head + "{\"op\": \"a\", \"inputs\": [\"x\"], \"outputs\": [\"nope\"]}\n",
       "g.jsonl:3: field 'outputs[0]': op 'a': unknown tensor 'nope'"},
      {head + "{\"op\": \"a\", \"inputs\": [\"x\"]}\n", "g.jsonl:3: field 'outputs': missing (op 'a')"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8}\n{\"op\": \"a\", \"inputs\": \"x\", \"outputs\": [\"y\"]}\n",
       "g.jsonl:4: field 'inputs': expected an array"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8}\n{\"op\": \"a\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"view_of\": [0, 0]}\n",
       "g.jsonl:4: field 'view_of': has 2 entries for 1 outputs"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8}\n{\"op\": \"a\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"may_overwrite\": [1]}\n",
       "g.jsonl:4: field 'may_overwrite': op 'a': position 1 but only 1 inputs"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8}\n{\"op\": \"a\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"scratch\": -4}\n",
       "g.jsonl:4: field 'scratch': op 'a': negative scratch bytes"},
      {head + "{\"tensor\": \"y\", \"bytes\": 8}\n{\"op\": \"a\", \"outputs\": [\"y\"], \"attrs\": {}}\n",
       "g.jsonl:4: field 'attrs': unknown field of an op line"},
      {head + "{\"node\": \"a\"}\n", "g.jsonl:3: expected a tensor line"},
      // Two producers and a written graph input, named with their lines (they were named by
      // the file alone, the operators with an empty "()" type).
      {head + "{\"tensor\": \"y\", \"bytes\": 8}\n{\"op\": \"a\", \"outputs\": [\"y\"]}\n{\"op\": \"b\", \"outputs\": [\"y\"]}\n",
       "g.jsonl:5: field 'outputs[0]': op 'b': tensor 'y' is already produced by op 'a' (line 4)"},
      {head + "{\"op\": \"a\", \"outputs\": [\"x\"]}\n",
       "g.jsonl:3: field 'outputs[0]': op 'a': tensor 'x' is a graph input, which no op produces"},
      // finalize's check, named by the file: a cycle.
      {head + "{\"tensor\": \"y\", \"bytes\": 8}\n{\"tensor\": \"z\", \"bytes\": 8}\n"
              "{\"op\": \"a\", \"inputs\": [\"z\"], \"outputs\": [\"y\"]}\n{\"op\": \"b\", \"inputs\": [\"y\"], \"outputs\": [\"z\"]}\n",
       "g.jsonl: "},
  };
  for (const Case& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_EQ(e.rfind(c.expected, 0), 0u) << "input:\n" << c.text << "message: " << e;
  }
  EXPECT_NE(error_of(cases[std::size(cases) - 1].text).find("cycle through operator 'a'"), std::string::npos)
      << error_of(cases[std::size(cases) - 1].text);
  EXPECT_EQ(error_of(cases[std::size(cases) - 1].text).find("()"), std::string::npos) << "no empty type";
}

TEST(GraphFile, WriterRefusesNamesTheFormatCannotHold) {
  Graph g = generate_dnn_graph(20, 1);
  std::ostringstream out;
  g.tensors[3].name = g.tensors[2].name;
  EXPECT_THROW(write_graph_jsonl(out, g), std::invalid_argument);
  g.tensors[3].name = "";
  EXPECT_THROW(write_graph_jsonl(out, g), std::invalid_argument);
}

TEST(GraphFileCli, AModelsTensorsMayLiveInEveryDeclaredMemory) {
  // A model cannot list memories per tensor: with --memories its tensors go to any of them,
  // fastest first. (Pinned to the first, as an unlisted problem-file buffer is, nothing
  // spilled: no plan.) Half the model's peak in SRAM, the rest in DRAM.
  TempDir dir;
  const std::string graph = dir.file("g.jsonl"), plan = dir.file("plan.csv");
  ASSERT_EQ(testing::run_cli("generate --kind dag -n 40 --seed 3 -o '" + graph + "'", dir).code, 0);
  const auto one = testing::run_cli("solve '" + graph + "'", dir);
  ASSERT_EQ(one.code, 0) << one.err;
  const int64_t peak = std::stoll(one.out.substr(one.out.find(" peak=") + 6));
  const int64_t sram = peak / 2;
  const auto r = testing::run_cli("solve '" + graph + "' --memories sram=" + std::to_string(sram) + ",dram -o '" + plan + "'", dir);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("valid=yes"), std::string::npos) << r.out;
  const int64_t peak_sram = std::stoll(r.out.substr(r.out.find("peak_sram=") + 10));
  EXPECT_LE(peak_sram, sram);
  EXPECT_GT(peak_sram, 0);
  const std::string rows = testing::read_text(plan);
  EXPECT_NE(rows.find(",sram\n"), std::string::npos) << rows;
  EXPECT_NE(rows.find(",dram\n"), std::string::npos) << rows;
  // The same on two streams (a partial order, no single lowering of the graph).
  const auto streams = testing::run_cli("solve '" + graph + "' --streams 2 --time-limit 2 --memories sram=" +
                                            std::to_string(sram) + ",dram -o '" + plan + "'", dir);
  ASSERT_EQ(streams.code, 0) << streams.out << streams.err;
  EXPECT_NE(streams.out.find("valid=yes"), std::string::npos) << streams.out;
  const std::string on_streams = testing::read_text(plan);
  EXPECT_NE(on_streams.find(",sram\n"), std::string::npos) << on_streams;
  EXPECT_NE(on_streams.find(",dram\n"), std::string::npos) << on_streams;
  // Swapping on several streams: refused (nothing was evictable there, and it said infeasible).
  const auto swap = testing::run_cli("solve '" + graph + "' --streams 2 --swap --capacity " + std::to_string(sram), dir);
  EXPECT_EQ(swap.code, 2) << swap.out;
  EXPECT_NE(swap.err.find("--swap needs one stream"), std::string::npos) << swap.err;
}

TEST(GraphFileCli, AModelsPlanIsValidatedInTheOrderItWasPlannedFor) {
  // solve plans a model in its schedule's order and in graph order and keeps the lower peak
  // (kept=graph happens: resnet50); validate checks the schedule's order, then graph order,
  // and says which. A plan made for graph order was reported overlapping (t28 and t68 here).
  TempDir dir;
  const std::string graph = dir.file("g.jsonl"), plan = dir.file("plan.csv");
  ASSERT_EQ(testing::run_cli("generate --kind dag -n 300 --seed 3 -o '" + graph + "'", dir).code, 0);
  ASSERT_EQ(testing::run_cli("solve '" + graph + "' --schedule graph -o '" + plan + "'", dir).code, 0);
  const auto either = testing::run_cli("validate '" + graph + "' '" + plan + "'", dir);
  EXPECT_EQ(either.code, 0) << either.out << either.err;
  EXPECT_NE(either.out.find("valid=yes"), std::string::npos) << either.out;
  EXPECT_NE(either.out.find(" order=graph"), std::string::npos) << either.out;  // not the schedule's
  const auto same = testing::run_cli("validate '" + graph + "' '" + plan + "' --schedule graph", dir);
  EXPECT_NE(same.out.find("valid=yes"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find(" order=schedule"), std::string::npos) << same.out;
  // A plan valid in neither order is still refused: every buffer at offset 0.
  std::istringstream rows(testing::read_text(plan));
  std::string line, zeroed;
  for (bool header = true; std::getline(rows, line); header = false)
    zeroed += (header ? line : line.substr(0, line.rfind(',') + 1) + "0") + "\n";
  testing::write_text(plan, zeroed);
  const auto bad = testing::run_cli("validate '" + graph + "' '" + plan + "'", dir);
  EXPECT_EQ(bad.code, 1) << bad.out << bad.err;
}

TEST(GraphFileCli, AModelSwapsATensorOutBetweenItsReads) {
  // s is read at steps 1 and 4 (a skip connection over three 1000-byte layers): at 2,100
  // bytes no plan fits, with --swap s is away over [2, 4) and it fits. The steps come from
  // the model (its readers), so s is the only tensor with a gap between two of them.
  TempDir dir;
  const std::string graph = dir.file("skip.jsonl"), plan = dir.file("plan.csv"), transfers = dir.file("t.csv");
  testing::write_text(graph,
                      "{\"memplan_graph\":1}\n"
                      "{\"bytes\":100,\"kind\":\"input\",\"tensor\":\"x\"}\n"
                      "{\"bytes\":1000,\"tensor\":\"s\"}\n{\"bytes\":1000,\"tensor\":\"h1\"}\n"
                      "{\"bytes\":1000,\"tensor\":\"h2\"}\n{\"bytes\":1000,\"tensor\":\"h3\"}\n"
                      "{\"bytes\":100,\"kind\":\"output\",\"tensor\":\"out\"}\n"
                      "{\"inputs\":[\"x\"],\"op\":\"A\",\"outputs\":[\"s\"],\"type\":\"Conv\"}\n"
                      "{\"inputs\":[\"s\"],\"op\":\"B\",\"outputs\":[\"h1\"],\"type\":\"Conv\"}\n"
                      "{\"inputs\":[\"h1\"],\"op\":\"C\",\"outputs\":[\"h2\"],\"type\":\"Conv\"}\n"
                      "{\"inputs\":[\"h2\"],\"op\":\"D\",\"outputs\":[\"h3\"],\"type\":\"Conv\"}\n"
                      "{\"inputs\":[\"s\",\"h3\"],\"op\":\"E\",\"outputs\":[\"out\"],\"type\":\"Add\"}\n");
  EXPECT_EQ(testing::run_cli("solve '" + graph + "' --capacity 2100", dir).code, 3);
  const auto r = testing::run_cli("solve '" + graph + "' --capacity 2100 --swap --transfers '" + transfers + "' -o '" + plan + "'", dir);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("evicted=1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("valid=yes"), std::string::npos) << r.out;
  EXPECT_EQ(testing::read_text(transfers), "buffer,direction,start,end\ns,out,2,2\ns,in,4,4\n");
  // C reads s too: at step 2 s, h1 and h2 are all in use (3,000 bytes), and s may only be
  // away at step 3. (Its lifetime's ends alone, steps 0 and 4, would let it go over [2, 4).)
  std::string text = testing::read_text(graph);
  const std::string c_reads_h1 = "{\"inputs\":[\"h1\"],\"op\":\"C\"";
  text.replace(text.find(c_reads_h1), c_reads_h1.size(), "{\"inputs\":[\"h1\",\"s\"],\"op\":\"C\"");
  testing::write_text(graph, text);
  const auto read_at_2 = testing::run_cli("solve '" + graph + "' --capacity 2100 --swap", dir);
  EXPECT_EQ(read_at_2.code, 3) << read_at_2.out << read_at_2.err;
  EXPECT_NE(read_at_2.err.find("step 2 load 3000 > 2100"), std::string::npos) << read_at_2.err;
}

TEST(GraphFileCli, GenerateScheduleAndSolveAGraphFile) {
  TempDir dir;
  const std::string graph = dir.file("g.jsonl"), order = dir.file("order.txt"), plan = dir.file("plan.csv");
  auto r = testing::run_cli("generate --kind dag -n 3000 --seed 7 -o '" + graph + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(testing::read_text(graph));
  const Graph g = read_graph_jsonl(in, graph);
  expect_same_graph(g, generate_dnn_graph(3000, 7));

  r = testing::run_cli("schedule '" + graph + "' --time-limit 5 -o '" + order + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  ScheduleOptions so;
  so.time_limit = 5;
  const ScheduleResult expected = schedule(g, so);
  EXPECT_NE(r.out.find(" load=" + std::to_string(expected.load) + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" graph_order_load=" + std::to_string(expected.graph_order_load) + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" xla-list="), std::string::npos) << r.out;
  // The order file: every operator once, producers first.
  std::vector<int32_t> written;
  std::istringstream lines(testing::read_text(order));
  std::unordered_map<std::string, int32_t> index;
  for (size_t k = 0; k < g.ops.size(); ++k) index[g.ops[k].name] = static_cast<int32_t>(k);
  for (std::string name; std::getline(lines, name);) written.push_back(index.at(name));
  EXPECT_TRUE(is_topological(g, written));
  EXPECT_EQ(order_load(g, written), expected.load);

  r = testing::run_cli("solve '" + graph + "' --schedule memory --time-limit 5 -o '" + plan + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("valid=yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" schedule=memory "), std::string::npos) << r.out;
  EXPECT_TRUE(testing::exists(plan));
}

// A fuzz_graph find: a tensor named with a comma (model names may hold anything) made
// `solve` refuse the graph ("contains a comma"). It is planned, written quoted, and the plan
// reads back and validates; a line break, which no CSV line can hold, is refused by name.
TEST(GraphFileCli, TensorNamesWithCommasArePlannedAndWrittenQuoted) {
  TempDir dir;
  const std::string graph = dir.file("g.jsonl"), plan = dir.file("plan.csv");
  testing::write_text(graph,
                      "{\"memplan_graph\": 1}\n{\"tensor\": \"x\", \"bytes\": 64, \"kind\": \"input\"}\n"
                      "{\"tensor\": \"a,b \\\"c\\\"\", \"bytes\": 64}\n{\"tensor\": \"y\", \"bytes\": 64, \"kind\": \"output\"}\n"
                      "{\"op\": \"r\", \"inputs\": [\"x\"], \"outputs\": [\"a,b \\\"c\\\"\"]}\n"
                      "{\"op\": \"s\", \"inputs\": [\"a,b \\\"c\\\"\"], \"outputs\": [\"y\"]}\n");
  auto r = testing::run_cli("solve '" + graph + "' -o '" + plan + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(testing::read_text(plan).find("\n\"a,b \"\"c\"\"\","), std::string::npos) << testing::read_text(plan);
  r = testing::run_cli("validate '" + graph + "' '" + plan + "'", dir);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("valid=yes"), std::string::npos) << r.out;
  testing::write_text(graph,
                      "{\"memplan_graph\": 1}\n{\"tensor\": \"x\", \"bytes\": 64, \"kind\": \"input\"}\n"
                      "{\"tensor\": \"a\\nb\", \"bytes\": 64}\n{\"op\": \"r\", \"inputs\": [\"x\"], \"outputs\": [\"a\\nb\"]}\n");
  r = testing::run_cli("solve '" + graph + "' -o '" + dir.file("nl.csv") + "'", dir);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("line break"), std::string::npos) << r.err;
  EXPECT_FALSE(testing::exists(dir.file("nl.csv")));
}

TEST(GraphFileCli, BadGraphFileExits2WithoutOutput) {
  TempDir dir;
  const std::string graph = dir.file("bad.jsonl"), plan = dir.file("plan.csv"), order = dir.file("o.txt");
  testing::write_text(graph, "{\"memplan_graph\": 1}\n{\"tensor\": \"x\", \"bytes\": 8}\n{\"op\": \"a\", \"outputs\": [\"y\"]}\n");
  for (const std::string& args : {"solve '" + graph + "' -o '" + plan + "'", "schedule '" + graph + "' -o '" + order + "'"}) {
    const auto r = testing::run_cli(args, dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(graph + ":3: field 'outputs[0]': op 'a': unknown tensor 'y'"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(testing::exists(plan));
  EXPECT_FALSE(testing::exists(order));
  const std::string empty = dir.file("empty.jsonl");
  EXPECT_EQ(testing::run_cli("generate --kind dag -n 0 -o '" + empty + "'", dir).code, 2);
  EXPECT_FALSE(testing::exists(empty));
  // A graph under a .csv name was read back as CSV ("missing required column"): refused.
  const auto r = testing::run_cli("generate --kind dag -n 40 -o '" + plan + "'", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--kind dag writes a memplan graph (JSON Lines): name the file .jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(testing::exists(plan));
}

}  // namespace
}  // namespace memplan
