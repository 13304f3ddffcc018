// Python bindings of the scheduling layer (memplan/schedule.h, memplan/schedule_plan.h): the
// execution order that lowers LOAD, for graphs given as plain lists (memplan.torch) and for
// ONNX models. Results are plain dicts.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "memplan/graph.h"
#include "memplan/schedule.h"
#include "memplan/schedule_plan.h"
#ifdef MEMPLAN_HAVE_ONNX
#include "memplan/onnx.h"
#endif

namespace py = pybind11;
using namespace memplan;
uint64_t seed_of(int64_t seed);  // memplan_module.cpp (ValueError for a negative seed)

using TensorRow = std::tuple<std::string, int64_t, std::string>;
using OpRow = std::tuple<std::string, std::string, std::vector<int32_t>, std::vector<int32_t>,
                         std::vector<int32_t>, std::vector<int32_t>, int64_t>;
Graph build_graph(const std::vector<TensorRow>& tensors, const std::vector<OpRow>& ops);  // graph_bindings.cpp

namespace {

std::vector<std::string> names_of(const Graph& g, const std::vector<int32_t>& order) {
  std::vector<std::string> out;
  out.reserve(order.size());
  for (int32_t o : order) out.push_back(g.ops[o].name.empty() ? "#" + std::to_string(o) : g.ops[o].name);
  return out;
}

}  // namespace

// A ScheduleResult as a dict (order as operator indices and names).
py::dict schedule_dict(const Graph& g, const ScheduleResult& r) {
  py::dict d;
  d["method"] = r.method;
  d["order"] = r.order;
  d["order_names"] = names_of(g, r.order);
  d["load"] = r.load;
  d["graph_order_load"] = r.graph_order_load;
  d["proven_optimal"] = r.proven_optimal;
  d["lower_bound"] = r.lower_bound;
  std::vector<std::pair<std::string, int64_t>> h;
  for (const HeuristicLoad& x : r.heuristics) h.emplace_back(x.name, x.load);
  d["heuristics"] = h;
  d["local_search_load"] = r.local_search_load;
  d["fell_back"] = r.fell_back;
  d["fell_back_reason"] = r.fell_back_reason;
  d["blocks"] = r.blocks;
  d["largest_block"] = r.largest_block;
  d["exact_blocks"] = r.exact_blocks;
  d["seconds"] = r.seconds;
  return d;
}

// What plan_scheduled kept, as a dict: the schedule plus kept, order (kept), peaks.
py::dict scheduled_plan_dict(const Graph& g, const ScheduledPlan& p) {
  py::dict d = schedule_dict(g, p.schedule);
  d["kept"] = p.kept_graph_order ? std::string("graph") : p.schedule.method;
  d["kept_order"] = p.order;
  d["kept_order_names"] = names_of(g, p.order);
  d["kept_order_load"] = p.order_load;
  d["schedule_peak"] = p.schedule_peak;
  d["graph_peak"] = p.graph_peak;
  return d;
}

ScheduleOptions schedule_options(const std::string& mode, double time_limit, int64_t seed, const LowerOptions& lower) {
  ScheduleOptions o;
  o.mode = parse_schedule_mode(mode);
  o.time_limit = time_limit;
  o.seed = seed_of(seed);
  o.lower = lower;
  return o;
}

#ifdef MEMPLAN_HAVE_ONNX
// onnx_problem(schedule=...): the model lowered in the mode's order (its LOAD is at most the
// graph order's; no plan is made here, so the peak rule of plan_scheduled does not apply),
// and that order's operator names.
std::pair<Problem, std::vector<std::string>> onnx_problem_scheduled(const std::string& path,
                                                                    const OnnxImportOptions& o,
                                                                    const std::string& mode) {
  const Graph g = onnx_sized(onnx_graph(path, o));
  LowerOptions lo;
  lo.include_weights = o.include_weights;
  lo.alignment = o.alignment;
  ScheduleResult r;
  {
    py::gil_scoped_release release;
    r = schedule(g, schedule_options(mode, 10.0, 1, lo));
  }
  return {lower(g, r.order, lo).problem, names_of(g, r.order)};
}
#endif

void register_schedule_bindings(py::module_& m) {
  m.def("_schedule_graph",
        [](const std::vector<TensorRow>& tensors, const std::vector<OpRow>& ops, const std::string& mode,
           double time_limit, int64_t seed, bool include_weights, bool inplace, int64_t alignment) {
          const Graph g = build_graph(tensors, ops);
          LowerOptions lo;
          lo.include_weights = include_weights;
          lo.inplace = inplace;
          lo.alignment = alignment;
          const ScheduleOptions so = schedule_options(mode, time_limit, seed, lo);
          ScheduleResult r;
          {
            py::gil_scoped_release release;
            r = schedule(g, so);
          }
          return schedule_dict(g, r);
        },
        py::arg("tensors"), py::arg("ops"), py::arg("mode") = "memory", py::arg("time_limit") = 10.0,
        py::arg("seed") = 1, py::arg("include_weights") = false, py::arg("inplace") = true,
        py::arg("alignment") = 1,
        "Schedules a graph given as in _lower_graph (memplan/schedule.h). mode: graph, memory or exact.\n"
        "Returns a dict: method, order (operator indices), order_names, load, graph_order_load,\n"
        "proven_optimal, lower_bound, heuristics [(name, LOAD)], local_search_load, fell_back,\n"
        "fell_back_reason, blocks, largest_block, exact_blocks, seconds.");
#ifdef MEMPLAN_HAVE_ONNX
  m.def("onnx_schedule",
        [](const std::string& path, const std::map<std::string, int64_t>& dims,
           const std::map<std::string, std::vector<int64_t>>& inputs, bool strict, const std::string& mode,
           double time_limit, int64_t seed) {
          OnnxImportOptions o;
          o.dims = dims;
          o.inputs = inputs;
          o.strict = strict;
          std::vector<std::string> warnings;
          o.warnings = &warnings;
          const Graph g = onnx_sized(onnx_graph(path, o));
          for (const std::string& w : warnings) PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1);
          const ScheduleOptions so = schedule_options(mode, time_limit, seed, LowerOptions{});
          ScheduleResult r;
          {
            py::gil_scoped_release release;
            r = schedule(g, so);
          }
          py::dict d = schedule_dict(g, r);
          d["operators"] = g.ops.size();
          return d;
        },
        py::arg("path"), py::arg("dims") = std::map<std::string, int64_t>{},
        py::arg("inputs") = std::map<std::string, std::vector<int64_t>>{}, py::arg("strict") = false,
        py::arg("mode") = "memory", py::arg("time_limit") = 10.0, py::arg("seed") = 1,
        "The execution order of an ONNX model that lowers LOAD (no plan): as _schedule_graph, plus operators.");
#endif
}
