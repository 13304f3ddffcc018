// Compiled with -fexceptions (see mlir/CMakeLists.txt): every memplan call is wrapped here.
#include "Bridge.h"

#include <exception>

#include "memplan/bounds.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace memplan_mlir {

ArenaPlan plan_arena(const ArenaRequest& request) noexcept {
  ArenaPlan out;
  try {
    memplan::Problem problem;
    for (const ArenaItem& it : request.items) {
      memplan::Buffer b;
      b.id = it.id;
      b.size = it.size;
      b.alignment = it.alignment;
      b.start = it.start;
      b.end = it.end;
      problem.buffers.push_back(b);
    }
    if (request.capacity > 0) problem.capacity = request.capacity;
    if (!memplan::find_solver(request.algo)) {
      out.error = "unknown algorithm '" + request.algo + "'";
      return out;
    }
    out.load = memplan::compute_load(problem);
    memplan::SolveOptions options;
    options.time_limit_seconds = request.time_limit_seconds;
    const memplan::SolveResult r = memplan::solve(problem, request.algo, options);
    out.status = memplan::to_string(r.status);
    if (!r.solution) {
      out.error = "no plan (" + out.status + ")";
      return out;
    }
    // Never trust a plan blindly: the checker shares no code with the solvers.
    const memplan::Validation v = memplan::validate(problem, r.solution->offsets);
    if (!v.ok || v.peak != r.solution->peak) {
      out.error = "memplan returned an invalid plan";
      if (!v.errors.empty()) out.error += ": " + v.errors.front();
      return out;
    }
    out.offsets = r.solution->offsets;
    out.peak = r.solution->peak;
    out.ok = true;
  } catch (const std::exception& e) {
    out = ArenaPlan{};
    out.error = e.what();
  } catch (...) {
    out = ArenaPlan{};
    out.error = "unknown error in memplan";
  }
  return out;
}

}  // namespace memplan_mlir
