// memplan: the driver layer, between the library entry memplan::solve() (solver.h) and the
// solvers. It checks the problem, refuses a solver that cannot honour what the problem needs
// (Supports), lowers in-place reuse and groups (constraints.h) and two-ended pools
// (two_ended.h), runs the solver, derives the lower bound and the status, checks the
// capacity and validates the plan (validate.h). core/ never calls a solver; the driver does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "memplan/problem.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"

namespace memplan {

// Why `solver` cannot serve `p` as given, naming the solver and the feature (e.g.
// "algorithm 'dive' needs interval lifetimes; the input has explicit conflicts ..."), or ""
// when it can. Features the driver lowers away (in-place, groups, two-ended pools) never
// make a solver unfit.
std::string unsupported_feature(const Problem& p, const SolverInfo& solver);

// The driver's lower bound on every plan's peak: LOAD (in-place chains merged), every
// pre-placed buffer's top and, under explicit conflicts, a clique of the conflict relation
// (conflict_lower_bound). Sound: each is a set of buffers that must be pairwise disjoint.
// solve() derives the clique part after the solver has run, in the time left, for solvers
// that do not declare proves_optimal (those derive it themselves from their own graph).
int64_t driver_lower_bound(const Problem& p, const std::function<bool()>& stop = {});

// Its part on the time axis: LOAD (in-place chains merged) and the pre-placed buffers' tops.
// O(n log n). -1 when `deadline` passed before the sweep was done (its sort polls it).
int64_t interval_lower_bound(const Problem& p, const Deadline* deadline = nullptr);

// The bound used under explicit conflicts (Problem::conflicts non-empty): today the greedy
// clique bound of the timeline module's conflict graph (timeline.h); 0 when the graph is
// above 40M pairs, `stop` says so, or any buffer has gaps (the graph ignores them). One
// function, so a stronger sound bound (the max-weight antichain when conflicts come from a
// partial order) can replace it here. `graph`: p's conflict graph when the caller has built
// it already (else it is built here).
int64_t conflict_lower_bound(const Problem& p, const std::function<bool()>& stop = {},
                             const ConflictGraph* graph = nullptr);

}  // namespace memplan
