// Plans three buffers with memplan's library API, checks the plan, prints it as JSON.
#include <iostream>

#include "memplan/bounds.h"
#include "memplan/io_json.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

int main() {
  memplan::Problem problem;
  // id, start, end (exclusive), size in bytes
  problem.buffers = {{"input", 0, 2, 1024}, {"hidden", 1, 3, 4096}, {"output", 2, 4, 1024}};
  memplan::SolveOptions options;
  options.time_limit_seconds = 1.0;
  const memplan::SolveResult result = memplan::solve(problem, "greedy", options);
  if (!result.solution) return 1;
  const memplan::Validation check = memplan::validate(problem, result.solution->offsets);
  std::cout << "peak=" << result.solution->peak << " load=" << memplan::compute_load(problem)
            << " valid=" << (check.ok ? "yes" : "no") << "\n"
            << memplan::problem_to_json(problem, &result.solution->offsets);
  return check.ok ? 0 : 1;
}
