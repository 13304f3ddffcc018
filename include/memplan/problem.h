// memplan: the problem model shared by every layer.
//
// A buffer lives during the half-open interval [start, end): two buffers conflict
// (must not overlap in memory) iff a.start < b.end && b.start < a.end. A buffer that ends
// at t may share addresses with one that starts at t.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memplan {

// A sub-interval [start, end) of a buffer's lifetime during which the buffer is absent
// (no window) or occupies only the bytes [window_lo, window_hi) of its extent
// (MiniMalloc's `lo-hi` and `lo-hi@wlo:whi` gap forms).
struct Gap {
  int64_t start = 0;
  int64_t end = 0;
  bool has_window = false;
  int64_t window_lo = 0;
  int64_t window_hi = 0;

  bool operator==(const Gap&) const = default;
};

struct Buffer {
  std::string id;
  int64_t start = 0;  // first instant the buffer is live
  int64_t end = 0;    // first instant it is dead again (exclusive)
  int64_t size = 0;   // bytes, > 0
  int64_t alignment = 1;              // power of two; offset % alignment == 0
  std::optional<int64_t> offset;      // pre-placed: the plan must put it exactly here
  int64_t hint = -1;                  // MiniMalloc's hint column, carried through, unused
  std::vector<Gap> gaps;              // sorted, disjoint, inside [start, end)
  // In-place reuse: this buffer may take over the memory of buffer `inplace_of` (same
  // offset), e.g. an elementwise op writing its output over its last-used input. The two
  // may then overlap in time without conflicting. See constraints.h.
  std::string inplace_of;
  // Contiguous group: buffers with the same non-empty `group` are laid out back to back in
  // increasing `group_index` (e.g. the inputs of a concat, or a framework's tensor list).
  std::string group;
  int64_t group_index = 0;
  // Two-ended pool: a buffer with from_top = true is placed in the pool's high end, which
  // grows down from the top (the capacity, or the tightest top when none is set), while the
  // others grow up from 0, leaving one free region in the middle (as TFLite Micro keeps
  // persistent tensors at the arena's head and scratch at its tail).
  bool from_top = false;
  // Memory spaces and swapping (memories.h, swap.h); defaults mean "one memory, no swap".
  std::vector<std::string> spaces;  // allowed memories, preferred first (empty: the first)
  std::vector<int64_t> uses;        // instants it is read/written (empty: start and end - 1)
  bool evictable = false;           // may be copied out between two uses (swap.h)
  int64_t accesses = -1;            // density weight (memories.h); -1: the number of uses

  bool operator==(const Buffer&) const = default;
};

// A memory a buffer may live in (memories.h). Declared fastest first.
struct Memory {
  std::string name;
  std::optional<int64_t> capacity;  // none: unbounded
  int64_t alignment = 1;            // every offset in it is a multiple (power of two)
};

struct Problem {
  std::vector<Buffer> buffers;
  std::optional<int64_t> capacity;  // peak must not exceed it when set
  std::vector<Memory> memories;     // empty: one memory (the capacity above)
  // Explicit extra conflicts (buffer index pairs), e.g. from a parallel-stream partial
  // order: each listed pair must not share bytes even if their lifetimes are disjoint on
  // the [start, end) axis. Empty for a plain interval problem. See timeline.h.
  std::vector<std::pair<int32_t, int32_t>> conflicts;
  // The partial order the conflicts came from, as vector clocks (clock_dim > 0; row-major,
  // n x clock_dim): buffer a is dead before b iff clock_upper(a) <= clock_lower(b)
  // componentwise, and two buffers neither of which is dead before the other must not share
  // bytes (validator rule 7). Each row has lower <= upper componentwise, not equal, so the
  // relation is a strict partial order. Readers and problem_from_streams/problem_from_clocks
  // (streams.h) also derive [start, end) and `conflicts` from it, so solvers that see only
  // those are safe; the clocks themselves feed the antichain bound and the validator.
  int32_t clock_dim = 0;
  std::vector<int64_t> clock_lower, clock_upper;
};

// A plan: offsets[i] belongs to problem.buffers[i].
struct Solution {
  std::vector<int64_t> offsets;
  int64_t peak = 0;  // max(offset + size); 0 for an empty problem
};

// True iff the lifetimes of a and b intersect (half-open intervals).
inline bool lifetimes_overlap(const Buffer& a, const Buffer& b) {
  return a.start < b.end && b.start < a.end;
}

// One rectangle of a buffer's footprint: during [start, end) it occupies the bytes
// [offset + lo, offset + hi). A buffer without gaps has one piece {start, end, 0, size}.
struct Piece {
  int64_t start = 0;
  int64_t end = 0;
  int64_t lo = 0;
  int64_t hi = 0;
};

// The footprint of a buffer as pieces in time order (gaps cut holes or narrow windows).
// Pieces with an empty window are dropped.
std::vector<Piece> pieces_of(const Buffer& b);

// True when some of b's bytes are in memory at instant t (inside its lifetime, not in a gap
// without a window or with an empty one).
bool present_at(const Buffer& b, int64_t t);

// max(offset + size) over all buffers (0 for none). Offsets must match the problem.
int64_t peak_of(const Problem& p, const std::vector<int64_t>& offsets);

// The buffers `ids` of `p` (distinct indices, in this order) as a problem of their own: the
// capacity kept, memories dropped; the explicit conflicts between two of them and their
// vector clocks kept, renumbered; in-place links to buffers outside dropped. A plan of `p`
// restricted to them is a plan of it (so its optimum bounds p's from below). Throws
// std::invalid_argument for an index out of range or repeated.
Problem subproblem(const Problem& p, const std::vector<int32_t>& ids);

// subproblem() of each of the disjoint `parts` at once: O(n + conflicts) in all, where one
// call per part would be that much per part.
std::vector<Problem> subproblems(const Problem& p, const std::vector<std::vector<int32_t>>& parts);

}  // namespace memplan
