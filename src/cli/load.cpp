#include "cli/load.h"

#include <iostream>
#include <utility>

#include "memplan/graph_io.h"
#include "memplan/graph_streams.h"
#include "memplan/io_json.h"
#ifdef MEMPLAN_HAVE_ONNX
#include "memplan/onnx.h"
#endif

namespace memplan {
bool has_extension(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void add_model_options(CLI::App* cmd, ModelOptions& m) {
  cmd->add_option("--dim", m.dims, "ONNX: symbolic dimension NAME=VALUE, bound before shape inference (repeatable)");
  cmd->add_option("--input", m.inputs, "ONNX: whole shape of a graph input, NAME=1x3x640x640 (repeatable)");
  cmd->add_flag("--strict", m.strict, "ONNX: a tensor whose size stays unknown is an error, not a warning");
  cmd->add_flag("--no-alias", m.no_alias, "ONNX: no views or in-place reuse: every tensor gets its own buffer");
  cmd->add_option("--schedule", m.schedule,
                  "models (.onnx, .jsonl graph): execution order: graph (the model's), memory (heuristics + local search, default) or "
                  "exact (dynamic program where it finishes); solve also plans the graph order and keeps the "
                  "lower peak")
      ->check(CLI::IsMember({"graph", "memory", "exact"}))
      ->each([&m](const std::string&) { m.schedule_given = true; });
  cmd->add_option("--streams", m.streams,
                  "ONNX: run on N parallel streams (independent branches round-robin; a node's "
                  "int attribute 'memplan_stream' is kept); buffers conflict unless one is dead before the other "
                  "in every interleaving")
      ->check(CLI::Range(1, 64));
}

std::optional<Problem> streams_problem(Graph& g, const ModelOptions& model, const LowerOptions& lower) {
  int32_t streams = model.streams;
  for (const Operator& op : g.ops) streams = std::max(streams, op.stream + 1);
  if (streams <= 0) return std::nullopt;
  // Every interleaving of the streams is planned (a partial order): there is no one order
  // to schedule, and --schedule was silently ignored.
  if (model.schedule_given)
    throw InputError("--schedule needs one stream: the model runs on " + std::to_string(streams) +
                     " streams (--streams or its nodes' 'memplan_stream'), where every interleaving is planned");
  assign_streams(g, streams);
  return lower_streams(g, streams, {}, lower).problem;
}

#ifdef MEMPLAN_HAVE_ONNX
OnnxImportOptions onnx_options(const ModelOptions& m) {
  OnnxImportOptions o;
  o.strict = m.strict;
  o.aliasing = !m.no_alias;
  auto split = [](const std::string& s, const char* flag) {
    const auto eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw InputError(std::string(flag) + " '" + s + "': expected NAME=VALUE");
    return std::pair{s.substr(0, eq), s.substr(eq + 1)};
  };
  for (const std::string& d : m.dims) {
    auto [name, value] = split(d, "--dim");
    const auto shape = parse_onnx_shape(value, "--dim '" + d + "'");
    if (shape.size() != 1) throw InputError("--dim '" + d + "': VALUE must be one non-negative integer");
    // Given twice with different values: the last one silently won.
    if (const auto [it, fresh] = o.dims.emplace(name, shape[0]); !fresh && it->second != shape[0])
      throw InputError("--dim '" + d + "': '" + name + "' is also given as " + std::to_string(it->second));
  }
  for (const std::string& in : m.inputs) {
    auto [name, value] = split(in, "--input");
    const auto shape = parse_onnx_shape(value, "--input '" + in + "'");
    if (const auto [it, fresh] = o.inputs.emplace(name, shape); !fresh && it->second != shape)
      throw InputError("--input '" + in + "': '" + name + "' is also given another shape");
  }
  return o;
}
#endif

namespace {

// Model warnings to stderr, the first 10 and a count of the rest.
void print_warnings(const std::vector<std::string>& warnings) {
  constexpr size_t kShown = 10;
  for (size_t k = 0; k < warnings.size() && k < kShown; ++k)
    std::cerr << "memplan: warning: " << warnings[k] << "\n";
  if (warnings.size() > kShown)
    std::cerr << "memplan: warning: ... and " << warnings.size() - kShown << " more warnings like these\n";
}

// For a model imported with tensors of unknown size (onnx_graph, before onnx_sized): how
// many of the tensors it would plan (weights only with `include_weights`) are left out, and
// the graph inputs with unknown dims, or "" when every size is known.
std::string unsized_summary(const Graph& g, const std::string& path, bool include_weights) {
  int64_t planned = 0, unsized = 0;
  std::string inputs;  // the graph inputs with unknown dims, the usual cause (dynamic axes)
  for (const Tensor& t : g.tensors) {
    if (t.kind == TensorKind::kWeight && !include_weights) continue;
    ++planned;
    if (t.bytes >= 0) continue;
    ++unsized;
    if (t.kind != TensorKind::kInput) continue;
    std::string dims;
    for (int64_t d : t.shape) dims += (dims.empty() ? "" : ", ") + (d < 0 ? std::string("?") : std::to_string(d));
    inputs += std::string(inputs.empty() ? "" : ", ") + "'" + t.name + "' " + (t.shape.empty() ? "(rank unknown)" : "[" + dims + "]");
  }
  if (unsized == 0) return "";
  return path + ": " + std::to_string(unsized) + " of " + std::to_string(planned) +
         " tensors have no known size and are left out of the plan (it covers the other " +
         std::to_string(planned - unsized) + ")" +
         (inputs.empty() ? "; every graph input is sized: they depend on values known only at run time (--strict makes an "
                           "unknown size an error)"
                         : "; graph inputs with unknown dims: " + inputs +
                               "; bind them with --input NAME=SHAPE or --dim NAME=VALUE (--strict makes an unknown size an "
                               "error)");
}

}  // namespace

void print_model_warnings(const std::vector<std::string>& warnings, const Graph& g, const std::string& path,
                          bool include_weights) {
  print_warnings(warnings);
  if (const std::string s = unsized_summary(g, path, include_weights); !s.empty())
    std::cerr << "memplan: warning: " << s << "\n";
}

namespace {

// A model's graph, scheduled per --schedule and lowered in the chosen order.
Loaded scheduled_graph(Graph g, const ModelOptions& model, const LowerOptions& lower_options) {
  Loaded l;
  l.model = true;
  if (auto p = streams_problem(g, model, lower_options)) {  // a partial order: no single order to schedule
    l.problem = std::move(*p);
    return l;
  }
  ScheduleOptions so;
  so.mode = parse_schedule_mode(model.schedule);
  so.time_limit = model.schedule_time_limit;
  so.seed = model.schedule_seed;
  so.lower = lower_options;
  l.scheduled = schedule(g, so);
  l.lower = so.lower;
  l.problem = lower(g, l.scheduled.order, so.lower).problem;
  l.graph = std::move(g);
  return l;
}

}  // namespace

// By extension: .json (io_json.h), .plc (idealloc binary trace), anything else CSV.
Loaded load_problem_as_given(const std::string& path, const std::string& lifetimes,
                             const ModelOptions& model, bool lenient, const std::function<bool()>& stop) {
  Loaded l;
  // Only a CSV's lifetimes have two conventions; JSON, PLC and models have one each.
  const bool csv = !has_extension(path, ".onnx") && !has_extension(path, ".jsonl") && !has_extension(path, ".json") &&
                   !has_extension(path, ".plc");
  if (lifetimes == "inclusive" && !csv)
    throw InputError(path + ": --lifetimes inclusive applies to CSV problems only (this file's lifetimes are "
                            "half-open by its format)");
#ifdef MEMPLAN_HAVE_ONNX
  if (has_extension(path, ".onnx")) {
    std::vector<std::string> warnings;
    OnnxImportOptions o = onnx_options(model);
    o.warnings = &warnings;
    Graph raw = onnx_graph(path, o);
    print_model_warnings(warnings, raw, path, o.include_weights);
    Graph g = onnx_sized(std::move(raw));
    LowerOptions lo;
    lo.include_weights = o.include_weights;
    lo.alignment = o.alignment;
    return scheduled_graph(std::move(g), model, lo);
  }
#endif
  if (has_extension(path, ".jsonl")) return scheduled_graph(read_graph_file(path), model, LowerOptions{});
  if (has_extension(path, ".json")) {
    std::vector<std::string> warnings;
    l.problem = read_json_file(path, JsonReadOptions{lenient, &warnings, stop, &l.json_space_fields});
    for (const std::string& w : warnings) std::cerr << "memplan: warning: " << w << "\n";
    return l;
  }
  if (has_extension(path, ".plc")) {
    l.problem = read_plc_file(path);
    return l;
  }
  CsvTable t = read_csv_file(path, lifetimes == "inclusive" ? Lifetimes::kInclusive
                                                             : Lifetimes::kHalfOpen, stop);
  if (lifetimes == "inclusive") {
    // Written back half-open: drop the inclusive 'end' naming if any.
    for (auto& c : t.columns)
      if (c == "end") c = "upper";
  }
  for (const std::string& w : t.warnings) std::cerr << "memplan: warning: " << w << "\n";
  // One copy of the problem: the table keeps the header and the fields memplan does not read.
  l.problem = std::move(t.problem);
  t.problem = Problem{};
  l.table = std::move(t);
  return l;
}

}  // namespace memplan
