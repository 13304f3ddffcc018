// Read -> solve (short limit) -> validate: a CSV problem of at most 64 buffers solved by the
// solver the first byte picks (every registered one is reachable); a returned plan must pass
// the independent checker and respect the capacity.
#include <sstream>

#include "fuzz_common.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  if (size < 2 || size > 4096) return 0;
  const std::vector<SolverInfo>& solvers = all_solvers();
  const SolverInfo& solver = solvers[data[0] % solvers.size()];
  std::istringstream in(fuzz::text(data + 1, size - 1));
  Problem p;
  try {
    p = read_csv(in, "fuzz.csv").problem;
  } catch (const InputError&) {
    return 0;
  }
  if (p.buffers.size() > 64) return 0;
  SolveOptions opt;
  opt.time_limit_seconds = 0.05;
  opt.threads = 1;
  const SolveResult r = solve(p, solver.name, opt);
  if (!r.solution) return 0;
  const Validation v = validate(p, r.solution->offsets, capacity_of(p, opt));
  if (!v.ok) {
    std::fprintf(stderr, "%s: %s\n", solver.name.c_str(), v.errors.front().c_str());
    fuzz::fail("solver returned a plan the checker rejects");
  }
  if (v.peak != r.solution->peak) fuzz::fail("reported peak differs from the plan's");
  if (r.lower_bound > r.solution->peak) fuzz::fail("lower bound above a valid plan's peak");
  return 0;
}
