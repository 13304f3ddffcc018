// memplan: two-ended pools. Buffers with Buffer::from_top are planned as their own problem
// and mirrored into the top of the pool; the rest grow up from address 0. memplan::solve
// does this automatically when any buffer has from_top set.
#pragma once

#include <string>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

bool has_two_ends(const Problem& p);

// Plans the low end with half the time limit and the given capacity C, then the high end
// within C - low peak; high offsets are top - (offset + padded size) with top = C rounded
// down to the high end's largest alignment (or, without a capacity, the tightest aligned top).
// detail reports low_peak, high_peak and free_middle. Throws std::invalid_argument when an
// in-place chain or group spans both ends, or a pre-placed high buffer has no capacity.
// Explicit conflicts (Problem::conflicts) follow their buffers into their end. Part of the
// driver layer (src/driver/): each end is solved through memplan::solve with `algo`.
SolveResult solve_two_ended(const Problem& p, const std::string& algo, const SolveOptions& options);
SolveResult solve_two_ended(const Problem& p, const SolverInfo& algo, const SolveOptions& options);

}  // namespace memplan
