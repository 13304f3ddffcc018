// Python bindings of several memories (memplan/memories.h) and swapping (memplan/swap.h):
// plan_memories and plan_swaps, each plan checked by the independent validators
// (validate_spaces.h) before it is returned, as the CLI does.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "memplan/io.h"
#include "memplan/memories.h"
#include "memplan/solver.h"
#include "memplan/spaces_io.h"
#include "memplan/swap.h"
#include "memplan/validate_spaces.h"

namespace py = pybind11;
using namespace memplan;

void check_run_options(double time_limit, int threads, int64_t iterations);  // memplan_module.cpp
uint64_t seed_of(int64_t seed);  // memplan_module.cpp

namespace {

struct MemoriesPlan {
  bool found = false;
  std::vector<std::string> space;  // per buffer: its memory
  std::vector<int64_t> offsets;    // per buffer: its offset inside that memory
  std::map<std::string, int64_t> peaks;
  int moves = 0;
  std::string error;
};

using EvictionRow = std::tuple<std::string, int64_t, int64_t>;             // buffer, lo, hi
using TransferRow = std::tuple<std::string, std::string, int64_t, int64_t>;  // buffer, out|in, start, end

struct SwapPlan {
  std::string status;
  std::optional<std::vector<int64_t>> offsets;
  std::optional<int64_t> peak;
  std::vector<EvictionRow> evictions;
  std::vector<TransferRow> transfers;
  int64_t bytes_moved = 0, stall = 0;
  std::string explain;
};

SolveOptions run_options(const std::string& algo, double time_limit, int threads, int64_t seed) {
  check_run_options(time_limit, threads, 0);
  if (!find_solver(algo)) throw InputError("unknown algorithm '" + algo + "' (see algorithms())");
  SolveOptions o;
  o.time_limit_seconds = time_limit;
  o.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.seed = seed_of(seed);
  return o;
}

// A plan that fails its independent check is a bug: raised, never returned.
void raise_if_invalid(const Validation& v, const char* what) {
  if (!v.ok)
    throw std::runtime_error(std::string("memplan bug: the ") + what + " failed the independent check: " +
                             (v.errors.empty() ? "?" : v.errors.front()));
}

MemoriesPlan plan_memories_py(const Problem& p, const std::string& algo, double time_limit, int threads, int64_t seed) {
  check_problem(p, "<python>");
  check_spaces(p, "<python>");
  if (p.memories.empty()) throw InputError("plan_memories: the problem declares no memories (Problem(memories=...))");
  const SolveOptions o = run_options(algo, time_limit, threads, seed);
  SpacesResult r;
  {
    py::gil_scoped_release release;
    r = plan_spaces(p, algo, o);
  }
  MemoriesPlan out;
  out.moves = r.moves;
  if (!r.ok) {
    out.error = r.error;
    return out;
  }
  for (int m : r.space) out.space.push_back(p.memories[static_cast<size_t>(m)].name);
  std::vector<int64_t> peaks;
  raise_if_invalid(validate_spaces(p, out.space, r.offsets, &peaks), "plan of the memories");
  for (size_t m = 0; m < p.memories.size() && m < peaks.size(); ++m) out.peaks[p.memories[m].name] = peaks[m];
  out.found = true;
  out.offsets = r.offsets;
  return out;
}

SwapPlan plan_swaps_py(const Problem& p, int64_t capacity, const std::string& algo, double time_limit, int64_t bandwidth,
                       int channels, const std::vector<int64_t>& durations, bool split, bool allow_stall, bool exact,
                       int threads, int64_t seed) {
  check_problem(p, "<python>");
  if (capacity < 0) throw InputError("capacity: must be >= 0, got " + std::to_string(capacity));
  if (bandwidth < 0) throw InputError("bandwidth: must be >= 0 (0 = instantaneous copies), got " + std::to_string(bandwidth));
  if (channels < 1) throw InputError("channels: must be >= 1, got " + std::to_string(channels));
  for (int64_t d : durations)
    if (d <= 0) throw InputError("durations: every step needs a positive duration, got " + std::to_string(d));
  const SolveOptions o = run_options(algo, time_limit, threads, seed);
  SwapOptions so;
  so.bandwidth = bandwidth;
  so.channels = channels;
  so.durations = durations;
  so.split = split;
  so.allow_stall = allow_stall;
  so.exact = exact;
  SwapResult r;
  {
    py::gil_scoped_release release;
    r = plan_swaps(p, capacity, algo, o, so);
  }
  SwapPlan out;
  out.status = to_string(r.status);
  out.explain = r.explain;
  if (!r.solution) return out;
  const Validation v = validate_swaps(p, r.offsets, capacity, r.evictions, r.transfers, so);
  raise_if_invalid(v, "swap plan");
  out.status = to_string(Status::kFeasible);
  out.offsets = r.offsets;
  out.peak = v.peak;
  for (const Eviction& e : r.evictions) out.evictions.emplace_back(p.buffers[e.buffer].id, e.lo, e.hi);
  for (const Transfer& t : r.transfers)
    out.transfers.emplace_back(p.buffers[t.buffer].id, t.out ? "out" : "in", t.start, t.end);
  out.bytes_moved = r.bytes_moved;
  out.stall = r.stall;
  return out;
}

}  // namespace

void register_spaces_bindings(py::module_& m) {
  py::class_<MemoriesPlan>(m, "MemoriesPlan", "What plan_memories returns: each buffer's memory and offset.")
      .def_readonly("found", &MemoriesPlan::found, "True when every memory's plan fits.")
      .def_readonly("space", &MemoriesPlan::space, "space[i]: the memory of problem.buffers[i] ([] when not found).")
      .def_readonly("offsets", &MemoriesPlan::offsets, "offsets[i]: the offset inside that memory ([] when not found).")
      .def_readonly("peaks", &MemoriesPlan::peaks, "{memory: peak} of the plan.")
      .def_readonly("moves", &MemoriesPlan::moves, "Buffers moved to a slower memory after a packing failed.")
      .def_readonly("error", &MemoriesPlan::error, "Why not found (names the memory and what did not fit), else ''.");

  py::class_<SwapPlan>(m, "SwapPlan", "What plan_swaps returns: offsets, evictions and their copies.")
      .def_readonly("status", &SwapPlan::status, "feasible, infeasible (proven: a step no eviction relieves) or no_plan.")
      .def_property_readonly("found", [](const SwapPlan& s) { return s.offsets.has_value(); }, "True when a plan was found.")
      .def_readonly("offsets", &SwapPlan::offsets, "offsets[i] for problem.buffers[i] (it comes back there), or None.")
      .def_readonly("peak", &SwapPlan::peak, "The plan's peak (at most the capacity), or None.")
      .def_readonly("evictions", &SwapPlan::evictions, "(buffer id, lo, hi): absent during steps [lo, hi).")
      .def_readonly("transfers", &SwapPlan::transfers, "(buffer id, 'out' or 'in', start, end): the copies' steps.")
      .def_readonly("bytes_moved", &SwapPlan::bytes_moved, "Bytes copied out and back in.")
      .def_readonly("stall", &SwapPlan::stall, "Time units the copies delay the compute (allow_stall).")
      .def_readonly("explain", &SwapPlan::explain, "Why not found (the step and its live buffers), else ''.");

  m.def("plan_memories", &plan_memories_py, py::arg("problem"), py::arg("algo") = find_solver("auto") ? "auto" : "greedy",
        py::arg("time_limit") = 10.0, py::arg("threads") = 1, py::arg("seed") = 1,
        "Assigns each buffer a memory of problem.memories (its spaces, preferred first; densest buffers to\n"
        "the fastest memory while its LOAD fits) and plans each memory's offsets with `algo` (memories.h).\n"
        "The plan is checked independently before it is returned.");
  m.def("plan_swaps", &plan_swaps_py, py::arg("problem"), py::arg("capacity"),
        py::arg("algo") = find_solver("auto") ? "auto" : "greedy", py::arg("time_limit") = 10.0,
        py::arg("bandwidth") = 0, py::arg("channels") = 1, py::arg("durations") = std::vector<int64_t>{},
        py::arg("split") = false, py::arg("allow_stall") = false, py::arg("exact") = false, py::arg("threads") = 1,
        py::arg("seed") = 1,
        "Fits `capacity` by copying evictable buffers out between two uses (swap.h): bandwidth in bytes per\n"
        "time unit (0: instantaneous), channels copies at once, durations time units per step, split (may\n"
        "come back elsewhere), allow_stall (copies need not be hidden), exact (fewest bytes, <= 16 windows).\n"
        "The plan is checked independently before it is returned.");
}
