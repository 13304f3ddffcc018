// memplan: the driver layer, between the library entry memplan::solve() (solver.h) and the
// solvers. It checks the problem, refuses a solver that cannot honour what the problem needs
// (Supports), lowers in-place reuse and groups (constraints.h) and two-ended pools
// (two_ended.h), runs the solver, derives the lower bound and the status, checks the
// capacity and validates the plan (validate.h). core/ never calls a solver; the driver does.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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

// The driver's lower bound on every plan's peak: lower_bound_of (bounds.h: LOAD with in-place
// chains merged, every pre-placed buffer's top) and, under explicit conflicts, a clique of
// the conflict relation (conflict_lower_bound). Sound: each is a set of buffers that must be pairwise disjoint.
// solve() derives the clique part after the solver has run, in the time left, for solvers
// that do not declare proves_optimal (those derive it themselves from their own graph).
int64_t driver_lower_bound(const Problem& p, const std::function<bool()>& stop = {});

// Pre-placed buffers that collide with each other (or stick out of `capacity`) make every
// plan impossible: the first collision the validator finds, or "" when there is none;
// nullopt when `deadline` passed first (validate polls it: 1M pre-placed buffers are one
// O(n log n) check). solve() answers kInfeasible on a collision.
std::optional<std::string> fixed_collision(const Problem& p, std::optional<int64_t> capacity,
                                           const Deadline* deadline = nullptr);

// The bound used under explicit conflicts (Problem::conflicts non-empty): today the greedy
// clique bound of the timeline module's conflict graph (timeline.h); 0 when the graph is
// above 40M pairs, `stop` says so, or any buffer has gaps (the graph ignores them). One
// function, so a stronger sound bound (the max-weight antichain when conflicts come from a
// partial order) can replace it here. `graph`: p's conflict graph when the caller has built
// it already (else it is built here).
int64_t conflict_lower_bound(const Problem& p, const std::function<bool()>& stop = {},
                             const ConflictGraph* graph = nullptr);

}  // namespace memplan
