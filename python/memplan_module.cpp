// Python bindings: `import memplan` (pybind11). Thin: problems in, plans out; every solver
// registered in the C++ library is reachable by name. The GIL is released while solving.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace py = pybind11;
using namespace memplan;

namespace {

Buffer make_buffer(std::string id, int64_t start, int64_t end, int64_t size, int64_t alignment,
                   std::optional<int64_t> offset) {
  Buffer b;
  b.id = std::move(id);
  b.start = start;
  b.end = end;
  b.size = size;
  b.alignment = alignment;
  b.offset = offset;
  return b;
}

// Python-side options get the same treatment as the CLI's: a clear ValueError, never a
// silent "no limit" or a crash.
void check_run_options(double time_limit, int threads, int64_t iterations) {
  if (!(time_limit >= 0) || time_limit > 1e6)  // also catches nan
    throw InputError("time_limit: must be a number of seconds in [0, 1e6] (0 = no limit), got " +
                     std::to_string(time_limit));
  if (threads < 0) throw InputError("threads: must be >= 0 (0 = all cores), got " + std::to_string(threads));
  if (iterations < 0)
    throw InputError("iterations: must be >= 0 (0 = the solver's default), got " + std::to_string(iterations));
}

Problem make_problem(std::vector<Buffer> buffers, std::optional<int64_t> capacity) {
  Problem p;
  p.buffers = std::move(buffers);
  p.capacity = capacity;
  check_problem(p, "<python>");
  return p;
}

}  // namespace

PYBIND11_MODULE(memplan, m) {
  m.doc() = "memplan: static memory planning for ML compilers (offsets for buffers with known lifetimes)";
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);

  py::class_<Buffer>(m, "Buffer")
      .def(py::init(&make_buffer), py::arg("id"), py::arg("start"), py::arg("end"), py::arg("size"),
           py::arg("alignment") = 1, py::arg("offset") = std::nullopt,
           "A buffer live during [start, end) (half-open); offset pre-places it.")
      .def_readwrite("id", &Buffer::id)
      .def_readwrite("start", &Buffer::start)
      .def_readwrite("end", &Buffer::end)
      .def_readwrite("size", &Buffer::size)
      .def_readwrite("alignment", &Buffer::alignment)
      .def_readwrite("offset", &Buffer::offset)
      .def("__repr__", [](const Buffer& b) {
        return "Buffer('" + b.id + "', " + std::to_string(b.start) + ", " + std::to_string(b.end) +
               ", " + std::to_string(b.size) + ")";
      });

  py::class_<Problem>(m, "Problem")
      .def(py::init(&make_problem), py::arg("buffers"), py::arg("capacity") = std::nullopt,
           "Checks the buffers (raises InputError on bad ones).")
      // Copies, not references into the problem: editing p.buffers[0] cannot bypass the
      // check above (solve() checks again anyway).
      .def_property_readonly("buffers", [](const Problem& p) { return p.buffers; },
                             "a copy of the buffers (edit a copy and build a new Problem)")
      .def_readwrite("capacity", &Problem::capacity)
      .def("__len__", [](const Problem& p) { return p.buffers.size(); });

  py::class_<SolveResult>(m, "Result")
      .def_property_readonly("status", [](const SolveResult& r) { return std::string(to_string(r.status)); })
      .def_property_readonly("optimal", [](const SolveResult& r) { return r.status == Status::kOptimal; })
      .def_property_readonly("found", [](const SolveResult& r) { return r.solution.has_value(); })
      .def_property_readonly("peak", [](const SolveResult& r) -> std::optional<int64_t> {
        if (!r.solution) return std::nullopt;
        return r.solution->peak;
      })
      .def_property_readonly("offsets", [](const SolveResult& r) -> std::optional<std::vector<int64_t>> {
        if (!r.solution) return std::nullopt;
        return r.solution->offsets;
      }, "offsets[i] for problem.buffers[i], or None when no plan was found")
      .def_readonly("lower_bound", &SolveResult::lower_bound)
      .def_readonly("iterations", &SolveResult::iterations)
      .def_readonly("detail", &SolveResult::detail);

  m.def("read_csv", [](const std::string& path, bool inclusive) {
        CsvTable t = read_csv_file(path, inclusive ? Lifetimes::kInclusive : Lifetimes::kHalfOpen);
        for (const std::string& w : t.warnings)
          if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) < 0) throw py::error_already_set();
        return t.problem;
      }, py::arg("path"), py::arg("inclusive") = false, "Reads a MiniMalloc-format CSV problem.");

  m.def("solve", [](const Problem& p, const std::string& algo, std::optional<int64_t> capacity,
                    double time_limit, uint64_t seed, int threads, int64_t iterations) {
        check_run_options(time_limit, threads, iterations);
        SolveOptions o;
        o.capacity = capacity;
        o.time_limit_seconds = time_limit;
        o.seed = seed;
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
}
