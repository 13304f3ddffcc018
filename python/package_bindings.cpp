// What the installable package adds to the bindings of memplan_module.cpp: the library's
// version (memplan.__version__) and conversions of a Result to a dict and to numpy arrays.
// numpy is imported only when offsets_array() is called, so it stays an optional dependency.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "memplan/solver.h"
#include "memplan/version.h"

namespace py = pybind11;
using namespace memplan;

void register_package_bindings(py::module_& m) {
  m.attr("__version__") = memplan::version();
  m.attr("InputError").attr("__doc__") =
      "Bad input (buffers, files, graphs); a ValueError whose message names the item at fault.";

  // The Result class registered by memplan_module.cpp, extended here.
  auto result = py::reinterpret_borrow<py::class_<SolveResult>>(m.attr("Result"));
  result.def(
      "to_dict",
      [](py::object self) {
        // Read through the Python properties so the dict always matches the attributes.
        static const char* const kFields[] = {"status", "optimal", "found",      "peak",
                                              "offsets", "lower_bound", "iterations", "detail"};
        py::dict d;
        for (const char* k : kFields) d[k] = self.attr(k);
        return d;
      },
      "The result as a plain dict: status, optimal, found, peak, offsets, lower_bound, "
      "iterations, detail (peak and offsets are None when no plan was found).");
  result.def(
      "offsets_array",
      [](const SolveResult& r) -> py::object {
        if (!r.solution) return py::none();
        const std::vector<int64_t>& o = r.solution->offsets;
        py::array_t<int64_t> a(static_cast<py::ssize_t>(o.size()));
        std::copy(o.begin(), o.end(), a.mutable_data());
        return std::move(a);
      },
      "The offsets as a numpy int64 array (a copy; index i = problem.buffers[i]), or None when "
      "no plan was found. Needs numpy.");
}
