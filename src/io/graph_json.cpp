// The graph file format "memplan graph 1" (graph_io.h): JSON Lines, read line by line so
// that every error names the file, the line and the field.
#include <climits>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <unordered_map>

#include "io/check.h"
#include "memplan/graph_io.h"
#include "memplan/io.h"

namespace memplan {
namespace {

using nlohmann::json;

constexpr int64_t kMaxTotalBytes = INT64_MAX / 4;  // as TotalGuard: below 2^61

class LineReader {
 public:
  LineReader(std::string name, int64_t line) : name_(std::move(name)), line_(line) {}

  int64_t line() const { return line_; }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(name_ + ":" + std::to_string(line_) + ": " +
                     (field.empty() ? "" : "field '" + field + "': ") + what);
  }

  int64_t integer(const json& v, const std::string& field) const {
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)))
      fail(field, "expected a 64-bit integer, got " + v.dump());
    return v.get<int64_t>();
  }
  std::string string(const json& v, const std::string& field) const {
    if (!v.is_string()) fail(field, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  const json& array(const json& v, const std::string& field) const {
    if (!v.is_array()) fail(field, "expected an array, got " + v.dump());
    return v;
  }
  // Per-output positions (view_of, may_overwrite): integers >= -1, one per output.
  std::vector<int32_t> positions(const json& v, const std::string& field, size_t outputs) const {
    std::vector<int32_t> out;
    for (size_t k = 0; k < array(v, field).size(); ++k) {
      const int64_t p = integer(v[k], field + "[" + std::to_string(k) + "]");
      if (p < -1 || p > INT32_MAX) fail(field + "[" + std::to_string(k) + "]", "expected -1 or an input position");
      out.push_back(static_cast<int32_t>(p));
    }
    if (out.size() != outputs)
      fail(field, "has " + std::to_string(out.size()) + " entries for " + std::to_string(outputs) + " outputs");
    return out;
  }

 private:
  std::string name_;
  int64_t line_;
};

TensorKind parse_kind(const std::string& s, const LineReader& r) {
  if (s == "activation") return TensorKind::kActivation;
  if (s == "weight") return TensorKind::kWeight;
  if (s == "input") return TensorKind::kInput;
  if (s == "output") return TensorKind::kOutput;
  r.fail("kind", "'" + s + "' is not one of activation, weight, input, output");
}

struct GraphParser {
  Graph g;
  std::unordered_map<std::string, int32_t> tensor_index;
  std::unordered_map<int32_t, std::pair<std::string, int64_t>> produced_by;  // tensor -> (op, line)
  int64_t total = 0;

  void add_bytes(int64_t b, const std::string& field, const LineReader& r) {
    if (__builtin_add_overflow(total, b, &total) || total > kMaxTotalBytes)
      r.fail(field, "the graph's sizes add up past 2^61 bytes");
  }

  void tensor_line(const json& j, const LineReader& r) {
    Tensor t;
    for (const auto& [key, v] : j.items()) {
      if (key == "tensor") t.name = r.string(v, key);
      else if (key == "bytes") t.bytes = r.integer(v, key);
      else if (key == "kind") t.kind = parse_kind(r.string(v, key), r);
      else if (key == "dtype") t.dtype = r.string(v, key);
      else if (key == "shape")
        for (size_t k = 0; k < r.array(v, key).size(); ++k) t.shape.push_back(r.integer(v[k], "shape[" + std::to_string(k) + "]"));
      else r.fail(key, "unknown field of a tensor line (tensor, bytes, kind, dtype, shape)");
    }
    if (t.name.empty()) r.fail("tensor", "a tensor needs a non-empty name");
    if (!j.contains("bytes")) r.fail("bytes", "missing (tensor '" + t.name + "')");
    if (t.bytes < 0) r.fail("bytes", "tensor '" + t.name + "' has negative size " + std::to_string(t.bytes));
    add_bytes(t.bytes, "bytes", r);
    const auto [it, fresh] = tensor_index.emplace(t.name, static_cast<int32_t>(g.tensors.size()));
    if (!fresh) r.fail("tensor", "tensor '" + t.name + "' is declared twice");
    g.tensors.push_back(std::move(t));
  }

  std::vector<int32_t> tensor_refs(const json& v, const std::string& field, const std::string& op,
                                   const LineReader& r) const {
    std::vector<int32_t> out;
    for (size_t k = 0; k < r.array(v, field).size(); ++k) {
      const std::string f = field + "[" + std::to_string(k) + "]";
      const std::string name = r.string(v[k], f);
      const auto it = tensor_index.find(name);
      if (it == tensor_index.end())
        r.fail(f, "op '" + op + "': unknown tensor '" + name + "' (declare tensors before the ops that use them)");
      out.push_back(it->second);
    }
    return out;
  }

  void op_line(const json& j, const LineReader& r) {
    Operator o;
    o.name = r.string(j["op"], "op");
    if (!j.contains("outputs")) r.fail("outputs", "missing (op '" + o.name + "')");
    for (const auto& [key, v] : j.items()) {
      if (key == "op" || key == "view_of" || key == "may_overwrite") continue;  // below
      if (key == "type") o.type = r.string(v, key);
      else if (key == "inputs") o.inputs = tensor_refs(v, key, o.name, r);
      else if (key == "outputs") o.outputs = tensor_refs(v, key, o.name, r);
      else if (key == "scratch") {
        o.scratch_bytes = r.integer(v, key);
        if (o.scratch_bytes < 0) r.fail(key, "op '" + o.name + "': negative scratch bytes");
        add_bytes(o.scratch_bytes, key, r);
      } else {
        r.fail(key, "unknown field of an op line (op, type, inputs, outputs, view_of, may_overwrite, scratch)");
      }
    }
    // A tensor written twice, or a graph input or weight written, named here with both lines
    // (graph.cpp's check would name neither).
    for (size_t k = 0; k < o.outputs.size(); ++k) {
      const Tensor& t = g.tensors[static_cast<size_t>(o.outputs[k])];
      const std::string field = "outputs[" + std::to_string(k) + "]";
      if (t.kind == TensorKind::kInput || t.kind == TensorKind::kWeight)
        r.fail(field, "op '" + o.name + "': tensor '" + t.name + "' is a graph " + to_string(t.kind) +
                          ", which no op produces");
      const auto [it, fresh] = produced_by.emplace(o.outputs[k], std::pair{o.name, r.line()});
      if (!fresh)
        r.fail(field, "op '" + o.name + "': tensor '" + t.name + "' is already produced by op '" + it->second.first +
                          "' (line " + std::to_string(it->second.second) + ")");
    }
    if (j.contains("view_of")) o.view_of = r.positions(j["view_of"], "view_of", o.outputs.size());
    if (j.contains("may_overwrite")) o.may_overwrite = r.positions(j["may_overwrite"], "may_overwrite", o.outputs.size());
    for (const auto* field : {&o.view_of, &o.may_overwrite})
      for (size_t k = 0; k < field->size(); ++k)
        if ((*field)[k] >= static_cast<int32_t>(o.inputs.size()))
          r.fail(field == &o.view_of ? "view_of" : "may_overwrite",
                 "op '" + o.name + "': position " + std::to_string((*field)[k]) + " but only " +
                     std::to_string(o.inputs.size()) + " inputs");
    g.ops.push_back(std::move(o));
  }
};

}  // namespace

Graph read_graph_jsonl(std::istream& in, const std::string& name) {
  GraphParser p;
  std::string text;
  int64_t line = 0;
  bool header = false;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const LineReader r(name, line);
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      r.fail("", std::string("not a JSON object: ") + e.what());
    }
    if (!j.is_object()) r.fail("", "expected a JSON object on each line");
    if (!header) {
      if (!j.contains("memplan_graph") || j.size() != 1)
        r.fail("memplan_graph", "the first line must be {\"memplan_graph\": 1} (a memplan graph file)");
      if (r.integer(j["memplan_graph"], "memplan_graph") != 1)
        r.fail("memplan_graph", "version " + j["memplan_graph"].dump() + " is not supported (1 is)");
      header = true;
    } else if (j.contains("tensor")) {
      p.tensor_line(j, r);
    } else if (j.contains("op")) {
      p.op_line(j, r);
    } else {
      r.fail("", "expected a tensor line {\"tensor\": ...} or an op line {\"op\": ...}");
    }
  }
  if (!header) throw InputError(name + ": empty file; expected a memplan graph ({\"memplan_graph\": 1} first)");
  try {
    finalize(p.g);
  } catch (const InputError& e) {
    throw InputError(name + ": " + e.what());
  }
  return std::move(p.g);
}

Graph read_graph_file(const std::string& path) {
  std::ifstream in = open_input(path);
  return read_graph_jsonl(in, path);
}

void write_graph_jsonl(std::ostream& out, const Graph& g) {
  std::unordered_map<std::string, int32_t> seen;
  out << "{\"memplan_graph\":1}\n";
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const Tensor& t = g.tensors[i];
    if (t.name.empty()) throw std::invalid_argument("write_graph_jsonl: tensor #" + std::to_string(i) + " has no name");
    if (!seen.emplace(t.name, static_cast<int32_t>(i)).second)
      throw std::invalid_argument("write_graph_jsonl: tensor name '" + t.name + "' is used twice");
    json j = {{"tensor", t.name}, {"bytes", t.bytes}};
    if (t.kind != TensorKind::kActivation) j["kind"] = to_string(t.kind);
    if (!t.dtype.empty()) j["dtype"] = t.dtype;
    if (!t.shape.empty()) j["shape"] = t.shape;
    out << j.dump() << "\n";
  }
  for (const Operator& o : g.ops) {
    json j = {{"op", o.name}};
    if (!o.type.empty()) j["type"] = o.type;
    auto names = [&](const std::vector<int32_t>& ts) {
      json a = json::array();
      for (int32_t t : ts) a.push_back(g.tensors[t].name);
      return a;
    };
    if (!o.inputs.empty()) j["inputs"] = names(o.inputs);
    j["outputs"] = names(o.outputs);
    auto any_set = [](const std::vector<int32_t>& v) {
      for (int32_t x : v)
        if (x >= 0) return true;
      return false;
    };
    if (any_set(o.view_of)) j["view_of"] = o.view_of;
    if (any_set(o.may_overwrite)) j["may_overwrite"] = o.may_overwrite;
    if (o.scratch_bytes) j["scratch"] = o.scratch_bytes;
    out << j.dump() << "\n";
  }
}

}  // namespace memplan
