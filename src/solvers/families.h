// Internal: each solver family registers its solvers here (see src/portfolio/registry.cpp).
#pragma once

#include <vector>

#include "memplan/solver.h"

namespace memplan {

void register_greedy(std::vector<SolverInfo>& out);
void register_conflict_greedy(std::vector<SolverInfo>& out);  // explicit conflicts
void register_exact(std::vector<SolverInfo>& out);
void register_search(std::vector<SolverInfo>& out);  // order-search metaheuristics
void register_portfolio(std::vector<SolverInfo>& out);
void register_baselines(std::vector<SolverInfo>& out);  // production allocators
void register_idealloc(std::vector<SolverInfo>& out);
void register_lns(std::vector<SolverInfo>& out);  // large-neighbourhood search over exact

}  // namespace memplan
