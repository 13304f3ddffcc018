// Python bindings: `import memplan` (pybind11). Thin: problems in, plans out; every solver
// registered in the C++ library is reachable by name. The GIL is released while solving.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <thread>

#include "memplan/explain.h"
#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/spaces_io.h"
#include "memplan/validate.h"
#ifdef MEMPLAN_HAVE_ONNX
#include "memplan/graph.h"
#include "memplan/onnx.h"
#include "memplan/schedule_plan.h"
#endif

namespace py = pybind11;
using namespace memplan;

void register_graph_bindings(py::module_& m);  // graph_bindings.cpp
void register_package_bindings(py::module_& m);  // package_bindings.cpp
void register_schedule_bindings(py::module_& m);  // schedule_bindings.cpp
void register_spaces_bindings(py::module_& m);    // spaces_bindings.cpp
#ifdef MEMPLAN_HAVE_ONNX
std::pair<Problem, std::vector<std::string>> onnx_problem_scheduled(const std::string& path,
                                                                    const OnnxImportOptions& o,
                                                                    const std::string& mode);
py::dict scheduled_plan_dict(const Graph& g, const ScheduledPlan& p);
ScheduleOptions schedule_options(const std::string& mode, double time_limit, int64_t seed, const LowerOptions& lower);
#endif

namespace {

Buffer make_buffer(std::string id, int64_t start, int64_t end, int64_t size, int64_t alignment,
                   std::optional<int64_t> offset, std::string inplace_of, std::vector<std::string> spaces,
                   std::vector<int64_t> uses, bool evictable) {
  Buffer b;
  b.id = std::move(id);
  b.start = start;
  b.end = end;
  b.size = size;
  b.alignment = alignment;
  b.offset = offset;
  b.inplace_of = std::move(inplace_of);
  b.spaces = std::move(spaces);
  b.uses = std::move(uses);
  b.evictable = evictable;
  return b;
}

Memory make_memory(std::string name, std::optional<int64_t> capacity, int64_t alignment) {
  Memory m;
  m.name = std::move(name);
  m.capacity = capacity;
  m.alignment = alignment;
  return m;
}

Problem make_problem(std::vector<Buffer> buffers, std::optional<int64_t> capacity, std::vector<Memory> memories,
                     std::vector<std::pair<int64_t, int64_t>> conflicts) {
  Problem p;
  p.buffers = std::move(buffers);
  p.capacity = capacity;
  p.memories = std::move(memories);
  // Explicit conflicts (parallel streams), by buffer index: rebuilding a problem read from
  // a file as Problem(p.buffers, ...) dropped them, and its plan then overlapped conflicting
  // buffers.
  const auto n = static_cast<int64_t>(p.buffers.size());
  for (size_t k = 0; k < conflicts.size(); ++k) {
    const auto [a, b] = conflicts[k];
    if (a < 0 || b < 0 || a >= n || b >= n || a == b)
      throw InputError("<python>: conflicts[" + std::to_string(k) + "]: (" + std::to_string(a) + ", " +
                       std::to_string(b) + ") must be two different buffer indices in [0, " + std::to_string(n) + ")");
    p.conflicts.emplace_back(static_cast<int32_t>(a), static_cast<int32_t>(b));
  }
  check_problem(p, "<python>");
  check_spaces(p, "<python>", [&p](size_t i) { return "buffer '" + p.buffers[i].id + "'"; });
  return p;
}

}  // namespace

// Python-side options get the same treatment as the CLI's: a clear ValueError, never a
// silent "no limit" or a crash.
// A seed from Python: a negative one raised pybind11's TypeError (an unsigned parameter).
uint64_t seed_of(int64_t seed) {
  if (seed < 0) throw InputError("seed: must be >= 0, got " + std::to_string(seed));
  return static_cast<uint64_t>(seed);
}

void check_run_options(double time_limit, int threads, int64_t iterations) {
  if (!(time_limit >= 0) || time_limit > 1e6)  // also catches nan
    throw InputError("time_limit: must be a number of seconds in [0, 1e6] (0 = no limit), got " +
                     std::to_string(time_limit));
  if (threads < 0) throw InputError("threads: must be >= 0 (0 = all cores), got " + std::to_string(threads));
  if (iterations < 0)
    throw InputError("iterations: must be >= 0 (0 = the solver's default), got " + std::to_string(iterations));
}

// Built as memplan._memplan; python/memplan/__init__.py re-exports it as `memplan`.
PYBIND11_MODULE(_memplan, m) {
  m.doc() = "memplan: static memory planning for ML compilers (offsets for buffers with known lifetimes)";
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);

  py::class_<Buffer>(m, "Buffer", "A buffer: id, lifetime [start, end), size, alignment, optional fixed offset.")
      .def(py::init(&make_buffer), py::arg("id"), py::arg("start"), py::arg("end"), py::arg("size"),
           py::arg("alignment") = 1, py::arg("offset") = std::nullopt, py::kw_only(), py::arg("inplace_of") = "",
           py::arg("spaces") = std::vector<std::string>{}, py::arg("uses") = std::vector<int64_t>{},
           py::arg("evictable") = false,
           "A buffer live during [start, end) (half-open); offset pre-places it. Keyword-only: inplace_of\n"
           "(the id of a buffer whose memory it takes over), spaces (the memories it may live in, preferred\n"
           "first; empty: the first memory), uses (the steps reading it; default start and end - 1) and\n"
           "evictable (plan_swaps may copy it out between two uses).")
      .def_readwrite("id", &Buffer::id, "Name of the buffer (unique in a problem).")
      .def_readwrite("start", &Buffer::start, "First instant the buffer is live.")
      .def_readwrite("end", &Buffer::end, "First instant after the lifetime (half-open [start, end)).")
      .def_readwrite("size", &Buffer::size, "Size in bytes.")
      .def_readwrite("alignment", &Buffer::alignment, "The offset must be a multiple of this (1 = none).")
      .def_readwrite("offset", &Buffer::offset, "Fixed offset of a pre-placed buffer, or None.")
      .def_readwrite("inplace_of", &Buffer::inplace_of, "Id of the buffer it reuses in place, or ''.")
      .def_readwrite("spaces", &Buffer::spaces, "Memories it may live in, preferred first ([]: the first memory).")
      .def_readwrite("uses", &Buffer::uses, "Steps that read it ([]: start and end - 1).")
      .def_readwrite("evictable", &Buffer::evictable, "plan_swaps may copy it out between two uses.")
      .def("__repr__", [](const Buffer& b) {
        return "Buffer('" + b.id + "', " + std::to_string(b.start) + ", " + std::to_string(b.end) +
               ", " + std::to_string(b.size) + ")";
      }, "Buffer('id', start, end, size).");

  py::class_<Memory>(m, "Memory", "A memory buffers may live in: name, capacity (None: unbounded), alignment.")
      .def(py::init(&make_memory), py::arg("name"), py::arg("capacity") = std::nullopt, py::arg("alignment") = 1,
           "Memories are declared fastest first (Problem(memories=...)).")
      .def_readwrite("name", &Memory::name, "Name (unique in a problem).")
      .def_readwrite("capacity", &Memory::capacity, "Capacity in bytes, or None for unbounded.")
      .def_readwrite("alignment", &Memory::alignment, "Every offset in it is a multiple of this (a power of two).")
      .def("__repr__", [](const Memory& x) {
        return "Memory('" + x.name + "', " + (x.capacity ? std::to_string(*x.capacity) : std::string("None")) + ", " +
               std::to_string(x.alignment) + ")";
      }, "Memory('name', capacity, alignment).");

  py::class_<Problem>(m, "Problem", "Buffers to place, an optional capacity and optional memories.")
      .def(py::init(&make_problem), py::arg("buffers"), py::arg("capacity") = std::nullopt,
           py::arg("memories") = std::vector<Memory>{}, py::arg("conflicts") = std::vector<std::pair<int64_t, int64_t>>{},
           "Checks the buffers and memories (raises InputError on bad ones). conflicts: pairs of buffer "
           "indices that must not share bytes whatever their lifetimes (parallel streams).")
      // Copies, not references into the problem: editing p.buffers[0] cannot bypass the
      // check above (solve() checks again anyway).
      .def_property_readonly("buffers", [](const Problem& p) { return p.buffers; },
                             "The buffers (a copy: edit a copy and build a new Problem).")
      .def_readwrite("capacity", &Problem::capacity, "Memory capacity in bytes, or None for unbounded.")
      .def_property_readonly("memories", [](const Problem& p) { return p.memories; },
                             "The declared memories, fastest first (a copy).")
      .def_property_readonly("conflicts", [](const Problem& p) { return p.conflicts; },
                             "Explicit conflicts as pairs of buffer indices (a copy; a read_csv of a "
                             "partial order has them).")
      .def("__len__", [](const Problem& p) { return p.buffers.size(); }, "Number of buffers.");

  py::class_<SolveResult>(m, "Result", "What solve() returns: status, plan (offsets, peak) and lower bound.")
      .def_property_readonly("status", [](const SolveResult& r) { return std::string(to_string(r.status)); },
                             "One of optimal, feasible, infeasible, no_plan.")
      .def_property_readonly("optimal", [](const SolveResult& r) { return r.status == Status::kOptimal; },
                             "True when the peak is proven optimal (peak == lower_bound).")
      .def_property_readonly("found", [](const SolveResult& r) { return r.solution.has_value(); },
                             "True when a plan (offsets) was found.")
      .def_property_readonly("peak", [](const SolveResult& r) -> std::optional<int64_t> {
        if (!r.solution) return std::nullopt;
        return r.solution->peak;
      }, "max(offset + size) of the plan, or None when no plan was found")
      .def_property_readonly("offsets", [](const SolveResult& r) -> std::optional<std::vector<int64_t>> {
        if (!r.solution) return std::nullopt;
        return r.solution->offsets;
      }, "offsets[i] for problem.buffers[i], or None when no plan was found")
      .def_readonly("lower_bound", &SolveResult::lower_bound, "Best proven lower bound on the peak (at least LOAD).")
      .def_readonly("iterations", &SolveResult::iterations, "Iterations, probes or restarts run, where meaningful.")
      .def_readonly("nodes", &SolveResult::nodes, "Search nodes visited, by solvers that count them (exact, lns); else 0.")
      .def_readonly("detail", &SolveResult::detail, "Extra key=value text of the solver.")
      .def_property_readonly("explanation", [](const SolveResult& r) -> std::optional<std::string> {
            if (!r.explanation) return std::nullopt;
            return r.explanation->summary(Problem{});
          }, "When no plan fits the capacity: why, e.g. 't=12:load=9>8' (LOAD exceeds it at t=12) or "
             "'core=3:proven:best_peak=9' (an infeasible subset); None otherwise.");

  m.def("read_csv", [](const std::string& path, bool inclusive) {
        CsvTable t = read_csv_file(path, inclusive ? Lifetimes::kInclusive : Lifetimes::kHalfOpen);
        for (const std::string& w : t.warnings)
          if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) < 0) throw py::error_already_set();
        return t.problem;
      }, py::arg("path"), py::arg("inclusive") = false, "Reads a MiniMalloc-format CSV problem.");

  m.def("solve", [](const Problem& p, const std::string& algo, std::optional<int64_t> capacity,
                    double time_limit, int64_t seed, int threads, int64_t iterations) {
        check_run_options(time_limit, threads, iterations);
        SolveOptions o;
        o.capacity = capacity;
        o.time_limit_seconds = time_limit;
        o.seed = seed_of(seed);
        o.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        o.iterations = iterations;
        py::gil_scoped_release release;
        return solve(p, algo, o);
      }, py::arg("problem"), py::arg("algo") = find_solver("auto") ? "auto" : "greedy",
      py::arg("capacity") = std::nullopt, py::arg("time_limit") = 10.0, py::arg("seed") = 1,
      py::arg("threads") = 1, py::arg("iterations") = 0,
      "Plans offsets with the named algorithm (see algorithms()). Raises ValueError for an unknown name.");

  m.def("validate", [](const Problem& p, const std::vector<int64_t>& offsets, std::optional<int64_t> capacity) {
        check_problem(p, "<python>");
        const Validation v = validate(p, offsets, capacity);
        return py::make_tuple(v.ok, v.errors);
      }, py::arg("problem"), py::arg("offsets"), py::arg("capacity") = std::nullopt,
      "Independent check of a plan: returns (ok, [error messages]).");

  m.def("load", [](const Problem& p) {
        check_problem(p, "<python>");
        return compute_load(p);
      }, py::arg("problem"), "LOAD: the largest total size live at one instant (a lower bound on the peak).");

  m.def("algorithms", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const SolverInfo& s : all_solvers()) out.emplace_back(s.name, s.description);
    return out;
  }, "(name, description) of every registered algorithm.");

#ifdef MEMPLAN_HAVE_ONNX
  // ONNX models (as `memplan onnx`): dims and input shapes bound before shape inference;
  // warnings (tensors of unknown size, left out of the plan) go to Python's warnings.
  auto onnx_options = [](const std::map<std::string, int64_t>& dims,
                         const std::map<std::string, std::vector<int64_t>>& inputs, bool strict,
                         bool include_weights, std::vector<std::string>* warnings) {
    OnnxImportOptions o;
    o.dims = dims;
    o.inputs = inputs;
    o.strict = strict;
    o.include_weights = include_weights;
    o.warnings = warnings;
    return o;
  };
  auto emit = [](const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings) PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1);
  };
  m.def("onnx_problem", [onnx_options, emit](const std::string& path, const std::map<std::string, int64_t>& dims,
                                             const std::map<std::string, std::vector<int64_t>>& inputs, bool strict,
                                             bool include_weights, const std::string& schedule) {
        std::vector<std::string> warnings;
        Problem p = onnx_problem_scheduled(path, onnx_options(dims, inputs, strict, include_weights, &warnings),
                                           schedule).first;
        emit(warnings);
        return p;
      }, py::arg("path"), py::arg("dims") = std::map<std::string, int64_t>{},
      py::arg("inputs") = std::map<std::string, std::vector<int64_t>>{}, py::arg("strict") = false,
      py::arg("include_weights") = false, py::arg("schedule") = "memory",
      "The buffers of an ONNX model (ids = tensor names). dims: {name: value}; inputs: {input: [dims]}.\n"
      "Lifetimes follow the execution order `schedule` chooses (graph, memory or exact; its LOAD is at\n"
      "most the graph order's; onnx_schedule returns that order, same mode and seed).");
  m.def("onnx_summary", [onnx_options, emit](const std::string& path, const std::map<std::string, int64_t>& dims,
                                             const std::map<std::string, std::vector<int64_t>>& inputs, bool strict,
                                             const std::string& algo, double time_limit, int threads,
                                             const std::string& schedule) {
        std::vector<std::string> warnings;
        const OnnxImportOptions o = onnx_options(dims, inputs, strict, false, &warnings);
        const Graph g = onnx_sized(onnx_graph(path, o));
        emit(warnings);
        SolveOptions so;
        so.threads = threads;
        // One time limit: a fifth for choosing the order, the rest for the two plans.
        const ScheduleOptions sched = schedule_options(schedule, time_limit > 0 ? 0.2 * time_limit : 0, 1, LowerOptions{});
        ScheduledPlan sp;
        {
          py::gil_scoped_release release;
          const ScheduleResult order = memplan::schedule(g, sched);
          so.time_limit_seconds = time_limit > 0 ? std::max(0.01, time_limit - order.seconds) : time_limit;
          sp = plan_scheduled(g, order, sched.lower, algo, so);
        }
        const LoweredGraph& l = sp.lowered;
        const SolveResult& r = sp.result;
        if (!r.solution) throw InputError(path + ": no plan found");
        const GraphSummary s = summarize(l, r.solution->offsets);
        py::dict d;
        d["buffers"] = s.buffers;
        d["naive"] = s.naive_bytes;
        d["load"] = s.load;
        d["peak"] = s.peak;
        d["weights"] = s.weight_bytes;
        d["peak_step"] = s.peak_instant;
        d["peak_operator"] =
            s.peak_instant < static_cast<int64_t>(sp.order.size()) ? g.ops[sp.order[s.peak_instant]].name : "";
        d["graph_order_load"] = sp.schedule.graph_order_load;
        d["schedule"] = scheduled_plan_dict(g, sp);
        d["live_at_peak"] = s.live_at_peak;
        d["offsets"] = r.solution->offsets;
        d["ids"] = [&] {
          std::vector<std::string> ids;
          for (const Buffer& b : l.problem.buffers) ids.push_back(b.id);
          return ids;
        }();
        d["warnings"] = warnings;
        return d;
      }, py::arg("path"), py::arg("dims") = std::map<std::string, int64_t>{},
      py::arg("inputs") = std::map<std::string, std::vector<int64_t>>{}, py::arg("strict") = false,
      py::arg("algo") = find_solver("auto") ? "auto" : "greedy", py::arg("time_limit") = 10.0,
      py::arg("threads") = 1, py::arg("schedule") = "memory",
      "As `memplan onnx --summary`: dict with buffers, naive (no reuse), load (of the kept order),\n"
      "graph_order_load, peak, weights, peak_step, peak_operator, live_at_peak [(id, bytes)], ids and\n"
      "offsets of the plan, warnings, and schedule: the mode's order and the graph order are both\n"
      "planned and the lower peak kept (dict: method, kept, kept_order_names, load, graph_order_load,\n"
      "heuristics, schedule_peak, graph_peak, ...).");
#endif

  register_graph_bindings(m);
  register_package_bindings(m);
  register_schedule_bindings(m);
  register_spaces_bindings(m);
}
