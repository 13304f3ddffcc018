// memplan: in-place reuse and contiguous groups, lowered onto the plain model so that every
// solver supports them without knowing about them.
//
// Lowering (done by memplan::solve automatically):
// - an in-place chain a <- b <- c (b.inplace_of = a, c.inplace_of = b) becomes one buffer
//   at one offset whose footprint at each instant is [0, largest present member size) (a
//   member is absent in its gaps, which have no window): gaps with windows describe the
//   stair shape exactly;
// - a contiguous group becomes one buffer of the members' total size over the union of their
//   lifetimes (conservative: a member's bytes stay reserved while another member lives).
// Plans for the lowered problem lift back by offset deltas. Because lowering forces the
// sharing and reserves group hulls, it restricts the plan space: solvers' own optimality
// proofs then apply to the lowered problem only, so solve() reports the plain lower bound
// below instead.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

bool has_constraints(const Problem& p);

class Deadline;  // solver.h

struct Lowering {
  Problem problem;             // what solvers see
  std::vector<int32_t> rep;    // original buffer -> lowered buffer
  std::vector<int64_t> delta;  // original offset = lowered offset + delta
  bool complete = true;        // false: the deadline passed first; the rest is unusable
};

// What lower_constraints throws: the buffer (index into the problem) and its field
// ("inplace" or "group") at fault, so that a reader can name the line.
struct ConstraintError : std::invalid_argument {
  ConstraintError(size_t buffer_index, std::string field_name, const std::string& what)
      : std::invalid_argument(what), buffer(buffer_index), field(std::move(field_name)) {}
  size_t buffer;
  std::string field;
};

// Throws ConstraintError for inconsistent constraints (unknown in-place target, two buffers
// reusing the same one, cycles, a group member that cannot be aligned, two members of a
// group at one index, disagreeing fixed offsets, gaps with windows combined with in-place). With a deadline it is polled
// throughout (O(n) hash index, O(n log n) group sorts): once it has passed, the result has
// complete = false.
Lowering lower_constraints(const Problem& p, const Deadline* deadline = nullptr);
std::vector<int64_t> lift_offsets(const Lowering& l, const std::vector<int64_t>& lowered);

// What occupies memory over time under in-place reuse: each in-place chain merged into one
// buffer (at each instant [0, largest present member size), as lower_constraints merges
// it), every other buffer as it is. Load profiles (explain.h) and the swap planner read it:
// the members of a chain counted apart made a step look overloaded that is not (an in-place
// ReLU over its input counted twice). `chains`, when given, gets the chains the merged
// buffers come from (buffer indices head to tail, one per merged buffer). Throws as
// lower_constraints does on bad in-place links.
std::vector<Buffer> inplace_merged(const Problem& p, std::vector<std::vector<int32_t>>* chains = nullptr);

// A lower bound on the peak of any valid plan under the constraints: LOAD after merging
// in-place chains (members sharing an address occupy only the largest live one).
int64_t constrained_lower_bound(const Problem& p);

}  // namespace memplan
