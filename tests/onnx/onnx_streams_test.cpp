// ONNX on several streams (graph_streams.h): a model with two parallel branches, built here
// with the protobuf API. Buffers of the two branches conflict on two streams (though disjoint
// in graph order) and not on one; buffers ordered by a data path never do. The streams come
// from --streams N (round-robin branches) or from the nodes' "memplan_stream" attribute.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "memplan/graph_streams.h"
#include "memplan/io.h"
#include "memplan/onnx.h"
#include "conflict_lookup.h"
#include "memplan/timeline.h"

namespace memplan {
namespace {

void set_type(onnx::ValueInfoProto* v, const std::string& name) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 4}) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// X -> relu1 -> A1 -> relu2 -> B1 \
//   \-> relu3 -> A2 -> relu4 -> B2 -> add -> Y
std::string two_branch_model(bool annotate) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("branches");
  set_type(g->add_input(), "X");
  auto node = [&](const std::string& name, const std::string& type, std::vector<std::string> in, const std::string& out,
                  int stream) {
    auto* n = g->add_node();
    n->set_name(name);
    n->set_op_type(type);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
    if (annotate) {
      auto* a = n->add_attribute();
      a->set_name("memplan_stream");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(stream);
    }
  };
  node("relu1", "Relu", {"X"}, "A1", 0);
  node("relu2", "Relu", {"A1"}, "B1", 0);
  node("relu3", "Relu", {"X"}, "A2", 1);
  node("relu4", "Relu", {"A2"}, "B2", 1);
  node("add", "Add", {"B1", "B2"}, "Y", 0);
  set_type(g->add_output(), "Y");
  const std::string path = ::testing::TempDir() + "memplan_streams_" + (annotate ? "meta" : "plain") + ".onnx";
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path;
}

Problem lowered(const std::string& path, int32_t streams) {
  Graph g = onnx_sized(onnx_graph(path));
  assign_streams(g, streams);
  return lower_streams(g, streams).problem;
}

TEST(OnnxStreams, ParallelBranchesConflictOnlyOnTwoStreams) {
  const std::string path = two_branch_model(false);
  const Problem two = lowered(path, 2), one = lowered(path, 1);
  EXPECT_TRUE(conflict_by_id(two, "A1", "A2"));  // relu1 and relu3 may run together
  EXPECT_TRUE(conflict_by_id(two, "A1", "B2"));
  EXPECT_FALSE(conflict_by_id(two, "A1", "Y"));  // A1 -> relu2 -> B1 -> add -> Y
  EXPECT_FALSE(conflict_by_id(two, "A2", "Y"));
  EXPECT_FALSE(conflict_by_id(one, "A1", "A2"));  // one stream: graph order, A1 dies as A2 is born
  EXPECT_TRUE(one.conflicts.empty());
}

TEST(OnnxStreams, MetadataStreamsAreHonoured) {
  Graph g = onnx_sized(onnx_graph(two_branch_model(true)));
  std::vector<int32_t> streams;
  for (const Operator& op : g.ops) streams.push_back(op.stream);
  EXPECT_EQ(streams, (std::vector<int32_t>{0, 0, 1, 1, 0}));
}

std::string run(const std::string& args) {
  const std::string out = ::testing::TempDir() + "memplan_streams_cli.out";
  const int rc = std::system((std::string(MEMPLAN_CLI) + " " + args + " >" + out + " 2>&1").c_str());
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  return "rc=" + std::to_string(rc) + " " + ss.str();
}

std::string field(const std::string& text, const std::string& key) {
  const auto at = text.find(" " + key + "=");
  if (at == std::string::npos) return "";
  const auto from = at + key.size() + 2;
  return text.substr(from, text.find(' ', from) - from);
}

// The CLI: one stream lets A1 and A2 share (16 + 16 + 16 bytes live at most), two streams do
// not; annotated nodes alone turn the stream mode on.
TEST(OnnxStreams, CliSolveAndOnnx) {
  const std::string plain = two_branch_model(false), meta = two_branch_model(true);
  const std::string one = run("solve " + plain + " --schedule graph -a auto");
  const std::string two = run("solve " + plain + " --streams 2 -a auto");
  const std::string annotated = run("solve " + meta + " -a auto");
  ASSERT_EQ(one.rfind("rc=0 ", 0), 0u) << one;
  ASSERT_EQ(two.rfind("rc=0 ", 0), 0u) << two;
  EXPECT_GT(std::stoll(field(two, "peak")), std::stoll(field(one, "peak"))) << one << two;
  EXPECT_EQ(field(annotated, "peak"), field(two, "peak")) << annotated;
  const std::string csv = ::testing::TempDir() + "memplan_streams.csv";
  ASSERT_EQ(run("onnx " + plain + " --streams 2 -o " + csv).rfind("rc=0 ", 0), 0u);
  const Problem p = read_csv_file(csv).problem;
  EXPECT_EQ(p.clock_dim, 2);
  EXPECT_TRUE(conflict_by_id(p, "A1", "A2"));
  EXPECT_NE(run("onnx " + plain + " --streams 2 --summary").rfind("rc=0 ", 0), 0u);  // refused, exit 2
  // --schedule has no single order to choose on several streams: refused (it was ignored).
  for (const std::string& cmd : {"solve " + plain + " --streams 2 --schedule exact", "onnx " + meta + " --schedule graph"}) {
    const std::string out = run(cmd);
    EXPECT_NE(out.rfind("rc=0 ", 0), 0u) << cmd << ": " << out;
    EXPECT_NE(out.find("--schedule needs one stream"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace memplan
