#include "solvers/families.h"

namespace memplan {

const std::vector<SolverInfo>& all_solvers() {
  static const std::vector<SolverInfo> solvers = [] {
    std::vector<SolverInfo> out;
    register_greedy(out);
    register_exact(out);
    register_portfolio(out);  // first in the listing
    register_baselines(out);
    register_search(out);
    register_idealloc(out);
    register_lns(out);
    return out;
  }();
  return solvers;
}

const SolverInfo* find_solver(const std::string& name) {
  for (const SolverInfo& s : all_solvers())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace memplan
