// Internal: the portfolio behind solver `auto` (auto.cpp), with its members looked up
// through `find` (find_solver in the library; tests substitute members to check what the
// portfolio does with an invalid plan or an exception).
#pragma once

#include <functional>
#include <string>

#include "memplan/solver.h"

namespace memplan {

using MemberLookup = std::function<const SolverInfo*(const std::string&)>;

SolveResult run_portfolio(const Problem& p, const SolveOptions& opt, const MemberLookup& find);

}  // namespace memplan
