// memplan solve/onnx --schedule: the order written out is checked against the model itself
// (its nodes and their inputs, read back with the protobuf API, not through memplan's graph),
// the plan written with it is checked here (lifetimes follow that order, no two buffers live
// together overlap in memory), and memory's peak is compared with graph order's.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int64_t kUnit = 3 * 8 * 8 * 4;  // bytes of one [1,3,8,8] float tensor

void set_type(onnx::ValueInfoProto* v, const std::string& name, int64_t batch) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {batch, int64_t{3}, int64_t{8}, int64_t{8}}) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& name, const std::string& op,
                      std::vector<std::string> in, const std::string& out) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

// Two branches from X, each grows X fourfold (Concat) and shrinks it back (ReduceMean), then
// Add. Graph order runs both Concats first: X + C1 + C2 = 9 units live. Finishing one branch
// first: at most X + C + R = 6 units, the optimum (Concat1 needs X + C1; R1 then needs C1,
// R1 and X, still read by Concat2, unless Concat2 ran before, which holds C1 + C2).
onnx::ModelProto two_branch_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("two_branches");
  set_type(g->add_input(), "X", 1);
  for (const char* b : {"1", "2"}) {
    auto* c = node(g, std::string("concat") + b, "Concat", {"X", "X", "X", "X"}, std::string("C") + b);
    auto* axis = c->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
  }
  for (const char* b : {"1", "2"}) {
    auto* r = node(g, std::string("reduce") + b, "ReduceMean", {std::string("C") + b}, std::string("R") + b);
    auto* axes = r->add_attribute();
    axes->set_name("axes");
    axes->set_type(onnx::AttributeProto::INTS);
    axes->add_ints(0);
  }
  node(g, "add", "Add", {"R1", "R2"}, "Y");
  set_type(g->add_output(), "Y", 1);
  return m;
}

std::string save(const onnx::ModelProto& m, const std::string& name) {
  const std::string path = ::testing::TempDir() + "memplan_sched_" + name + ".onnx";
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

int run(const std::string& args, const std::string& out_path) {
  return std::system((std::string(MEMPLAN_CLI) + " " + args + " >" + out_path + " 2>&1").c_str());
}

int64_t field(const std::string& line, const std::string& key) {
  const auto at = line.find(" " + key + "=");
  if (at == std::string::npos) return -1;
  return std::stoll(line.substr(at + key.size() + 2));
}

// Checks the order against the model: a permutation of its nodes in which every input made
// by a node comes after that node. Returns node name -> position.
std::map<std::string, int64_t> check_order(const onnx::ModelProto& m, const std::vector<std::string>& order) {
  std::map<std::string, int64_t> pos;
  for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = static_cast<int64_t>(k);
  EXPECT_EQ(order.size(), static_cast<size_t>(m.graph().node_size()));
  EXPECT_EQ(pos.size(), order.size()) << "a node appears twice";
  std::map<std::string, std::string> producer;  // tensor -> node name
  for (const auto& n : m.graph().node())
    for (const auto& o : n.output()) producer[o] = n.name();
  for (const auto& n : m.graph().node()) {
    EXPECT_TRUE(pos.count(n.name())) << "node " << n.name() << " missing from the order";
    for (const auto& i : n.input())
      if (producer.count(i))
        EXPECT_LT(pos[producer[i]], pos[n.name()]) << n.name() << " runs before the producer of " << i;
  }
  return pos;
}

struct Row {
  int64_t lower, upper, size, offset;
};

// The plan CSV (id,lower,upper,size,offset): lifetimes as the order implies (a tensor from
// its producer's position, or 0 for inputs, to one past its last reader, or the end for
// outputs); no two rows live together share a byte. Returns the peak.
int64_t check_plan(const onnx::ModelProto& m, const std::map<std::string, int64_t>& pos, const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("id,lower,upper,size", 0), 0u) << line;
  std::map<std::string, Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) f.push_back(c);
    if (f.size() < 5) continue;
    rows[f[0]] = {std::stoll(f[1]), std::stoll(f[2]), std::stoll(f[3]), std::stoll(f[f.size() - 1])};
  }
  const int64_t n = m.graph().node_size();
  std::map<std::string, int64_t> first, last;
  for (const auto& i : m.graph().input()) first[i.name()] = 0;
  for (const auto& nd : m.graph().node()) {
    for (const auto& o : nd.output()) first[o] = pos.at(nd.name());
    for (const auto& i : nd.input()) last[i] = std::max(last[i], pos.at(nd.name()) + 1);
  }
  for (const auto& o : m.graph().output()) last[o.name()] = n;
  EXPECT_EQ(rows.size(), first.size());
  for (const auto& [id, r] : rows) {
    EXPECT_EQ(r.lower, first[id]) << id;
    // An in-place result may extend over its input's row; every row covers its own uses.
    EXPECT_GE(r.upper, last[id]) << id;
  }
  int64_t peak = 0;
  for (const auto& [a, ra] : rows) {
    peak = std::max(peak, ra.offset + ra.size);
    EXPECT_GE(ra.offset, 0);
    for (const auto& [b, rb] : rows) {
      if (a >= b) continue;
      const bool live_together = ra.lower < rb.upper && rb.lower < ra.upper;
      const bool overlap = ra.offset < rb.offset + rb.size && rb.offset < ra.offset + ra.size;
      EXPECT_FALSE(live_together && overlap) << a << " and " << b;
    }
  }
  return peak;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

TEST(ScheduleCli, SolveRoundTripOrderIsTopologicalPlanValidAndNeverWorse) {
  const onnx::ModelProto m = two_branch_model();
  const std::string model = save(m, "two_branches");
  const std::string dir = ::testing::TempDir() + "memplan_sched_";
  std::map<std::string, int64_t> peak;
  for (const std::string mode : {"graph", "memory", "exact"}) {
    const std::string order = dir + mode + ".txt", plan = dir + mode + ".csv", out = dir + mode + ".out";
    ASSERT_EQ(run("solve " + model + " --schedule " + mode + " --order-out " + order + " -o " + plan, out), 0)
        << slurp(out);
    const std::string line = slurp(out);
    const auto pos = check_order(m, lines_of(slurp(order)));
    peak[mode] = check_plan(m, pos, slurp(plan));
    EXPECT_EQ(field(line, "peak"), peak[mode]) << line;
    EXPECT_EQ(field(line, "graph_order_load"), 9 * kUnit) << line;
    EXPECT_EQ(field(line, "order_load"), mode == "graph" ? 9 * kUnit : 6 * kUnit) << line;
    EXPECT_GE(peak[mode], field(line, "order_load")) << line;  // LOAD bounds every plan
    EXPECT_NE(line.find("kept=" + std::string(mode == "graph" ? "graph" : mode)), std::string::npos) << line;
    if (mode != "graph") EXPECT_LT(pos.at("reduce1"), pos.at("concat2")) << "one branch is finished first";
  }
  EXPECT_LE(peak["memory"], peak["graph"]);
  EXPECT_LT(peak["memory"], peak["graph"]);  // 6 units against 9 on this model
  EXPECT_LE(peak["exact"], peak["memory"]);
}

TEST(ScheduleCli, OnnxSummaryAndJsonOrder) {
  const onnx::ModelProto m = two_branch_model();
  const std::string model = save(m, "two_branches_summary");
  const std::string json = ::testing::TempDir() + "memplan_sched_order.json";
  const std::string out = ::testing::TempDir() + "memplan_sched_summary.txt";
  ASSERT_EQ(run("onnx " + model + " --schedule exact --summary --order-out " + json, out), 0) << slurp(out);
  const std::string text = slurp(out);
  EXPECT_NE(text.find("graph-order LOAD: " + std::to_string(9 * kUnit) + " bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("scheduled LOAD (exact, proven optimal): " + std::to_string(6 * kUnit) + " bytes"),
            std::string::npos) << text;
  EXPECT_NE(text.find("order kept: exact"), std::string::npos) << text;
  EXPECT_NE(text.find("heuristic LOADs: xla-list="), std::string::npos) << text;
  const std::string j = slurp(json);
  EXPECT_NE(j.find("\"method\": \"exact\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"proven_optimal\": true"), std::string::npos) << j;
  // The names in the JSON order, in order, are a topological order of the model.
  std::vector<std::string> names;
  const auto open = j.find("\"order\": [");
  ASSERT_NE(open, std::string::npos);
  for (size_t at = j.find('"', open + 10); at != std::string::npos && at < j.find(']', open);
       at = j.find('"', j.find('"', at + 1) + 1))
    names.push_back(j.substr(at + 1, j.find('"', at + 1) - at - 1));
  check_order(m, names);
  // A bad mode is refused before anything is written.
  EXPECT_EQ(run("onnx " + model + " --schedule fastest", out) >> 8, 2);
}

TEST(ScheduleCli, AModelWithUnknownSizesSaysHowMuchItsPlanLeavesOut) {
  // two_branch_model with its batch dim left symbolic ('N'): X and the Concats' outputs have
  // no known size (the ReduceMeans over that axis do: [1, 3, 8, 8]), so the plan holds half
  // the tensors; besides a warning per tensor, one line says so, with the graph input whose
  // dims are unbound and how to bind them. Bound, the line is gone.
  onnx::ModelProto m = two_branch_model();
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param(
      "N");  // (dim_value and dim_param are one field: the value goes)
  const std::string model = save(m, "unbound_batch");
  const std::string out = ::testing::TempDir() + "memplan_sched_unbound.txt";
  const std::string line = "3 of 6 tensors have no known size and are left out of the plan (it covers the other 3);"
                           " graph inputs with unknown dims: 'X' [?, 3, 8, 8]; bind them with --input NAME=SHAPE";
  for (const std::string cmd : {"solve ", "onnx --summary "}) {
    ASSERT_EQ(run(cmd + model, out), 0) << slurp(out);
    EXPECT_NE(slurp(out).find(model + ": " + line), std::string::npos) << slurp(out);
    ASSERT_EQ(run(cmd + model + " --dim N=1", out), 0) << slurp(out);
    EXPECT_EQ(slurp(out).find("no known size"), std::string::npos) << slurp(out);
  }
  ASSERT_EQ(run("solve " + model + " --dim N=1", out), 0);
  EXPECT_EQ(field(slurp(out), "peak"), 6 * kUnit) << slurp(out);  // X, C, R: the optimum above
  const int64_t load = field(slurp(out), "load");
  // The other commands that read a model take the same options: stats and explain (which
  // saw only the 3 sized tensors, with no way to bind N).
  auto stats_load = [](const std::string& text) {  // stats prints one key=value per line
    const auto at = text.find("\nload=");
    return at == std::string::npos ? int64_t{-1} : std::stoll(text.substr(at + 6));
  };
  ASSERT_EQ(run("stats " + model + " --dim N=1", out), 0) << slurp(out);
  EXPECT_EQ(stats_load(slurp(out)), load) << slurp(out);
  ASSERT_EQ(run("stats " + model, out), 0) << slurp(out);
  EXPECT_LT(stats_load(slurp(out)), load) << slurp(out);
  EXPECT_GE(stats_load(slurp(out)), 0) << slurp(out);
  EXPECT_EQ(run("explain " + model + " --dim N=1 --capacity " + std::to_string(load - 1), out), 3 << 8) << slurp(out);
  EXPECT_NE(slurp(out).find("LOAD " + std::to_string(load) + " > capacity " + std::to_string(load - 1)), std::string::npos)
      << slurp(out);
}

}  // namespace
