// memplan: the independent plan checker. It is written from the specification of each
// feature (problem.h, constraints.h, two_ended.h, README) and shares no code with the solvers
// or the constraint lowering: it uses the plain data structs only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

struct Validation {
  bool ok = true;
  int64_t peak = 0;
  std::vector<std::string> errors;  // the first violations, in words (at most max_errors)
  // false: the deadline passed before the check ended; ok is then false too and the last
  // error says so (the plan is neither accepted nor known to be wrong).
  bool complete = true;
};

// A plan is valid iff every rule below holds (capacity: the argument, else problem.capacity).
//  1. Shape: one offset per buffer; the problem itself is well formed (size > 0,
//     start < end, alignment a power of two, gaps sorted, disjoint, inside the lifetime,
//     windows inside [0, size]; in-place targets exist, differ from the buffer, are reused by
//     at most one buffer and form no cycle).
//  2. Per buffer: offset >= 0, offset % alignment == 0, offset + size fits 64 bits and is
//     <= capacity, and a pre-placed buffer sits exactly at its `offset`.
//  3. Footprints: a buffer occupies, during each piece of its lifetime, the bytes
//     [offset + lo, offset + hi) (lo = 0, hi = size outside gaps; a gap's window or nothing
//     inside one). Two buffers whose pieces intersect in time (half-open) must not intersect
//     in bytes, unless they share memory in place: b with inplace_of = a shares with a iff
//     both sit at the same offset; sharing is transitive along a chain a <- b <- c, so two
//     chain members share iff every member between them (inclusive) sits at that one offset
//     (e.g. a and c at 0 with b at 64 do not share). Sharing members may overlap arbitrarily
//     (any sizes); every other buffer must avoid the union of their footprints.
//  4. Contiguous groups: the members of a group, ordered by group_index (ties: input order),
//     sit back to back: offset[next] == offset[prev] + size[prev].
//  5. Two-ended pool (any buffer with from_top): every low buffer ends at or below the
//     offset of every high (from_top) buffer, so the free middle is one region; with a
//     capacity C, the high end grows down from top = C rounded down to the largest alignment
//     of the high buffers, so every high buffer ends at or below that top.
//  6. Explicit conflicts (problem.conflicts): each listed pair names two distinct buffers,
//     and their extents [offset, offset + size) are disjoint (whatever their lifetimes and
//     gaps), unless the two share memory in place (rule 3). O(#pairs).
//  7. Vector clocks (problem.clock_dim > 0): each buffer has clock_dim components in
//     clock_lower and clock_upper, lower <= upper componentwise and not equal, and no
//     in-place link; two buffers whose extents [offset, offset + size) share a byte (whatever
//     their lifetimes and gaps) must be ordered: upper(a) <= lower(b) componentwise, or the
//     reverse. O(n (log n + clock_dim)) by a sweep over addresses.
// O(n log n) by a sweep over time with an ordered map of occupied address segments (plus,
// for a group of k buffers sharing in place, at most O(k) segment updates per member).
// With a deadline, the check polls it (every 4096 events, and in its sort) and stops once it
// has passed (Validation::complete = false).
Validation validate(const Problem& problem, const std::vector<int64_t>& offsets,
                    std::optional<int64_t> capacity = std::nullopt, int max_errors = 10,
                    const Deadline* deadline = nullptr);

// validate()'s verdict with the exact offsets and capacity it was given. A solver that
// declares Supports::checks_plans (`auto`, which checks a member's plan before sharing it)
// hands it on in SolveResult::check; solve() reuses the verdict only when the plan it
// returns has these very offsets and solve() checks against this capacity (else it checks
// the plan again), so one plan is checked once.
struct PlanCheck {
  std::vector<int64_t> offsets;
  std::optional<int64_t> capacity;
  Validation verdict;
};

}  // namespace memplan
