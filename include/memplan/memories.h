// memplan: several memories (on-chip SRAM, DRAM, ...). Each buffer gets a memory and an
// offset inside it.
//
// Problem::memories are declared fastest first, each with a capacity (or none) and an
// alignment. A buffer's `spaces` lists the memories it may live in, preferred first (empty:
// the first declared memory); a single entry pins it there. The planner (as XLA's
// memory-space assignment and TVM USMP's pool fallback do): pinned buffers first, then the
// others in decreasing density = accesses / lifetime (bytes accessed per byte-time; accesses
// defaults to the number of uses) are admitted to their most preferred memory while its
// LOAD stays within its capacity, else to the next. Then every memory's offsets are planned
// with memplan::solve under its capacity and alignment; when a memory does not fit
// (fragmentation), the least dense eighth (at least one) of its movable buffers live at its
// highest-load instant move to their next memory and that memory is re-planned.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"
#include "memplan/swap.h"

namespace memplan {

struct SpacesResult {
  bool ok = false;
  std::vector<int> space;          // per buffer: index into problem.memories
  std::vector<int64_t> offsets;    // per buffer: offset inside its memory
  std::vector<int64_t> peak;       // per memory
  int moves = 0;                   // buffers moved to a slower memory after failed packings
  std::string error;               // why not ok (names the memory and what did not fit)
  // With swapping (plan_spaces_swap): evictions from memory 0 (buffer = input index), their
  // transfers, where each eviction's copy sits in the receiving memory, bytes and stall.
  std::vector<Eviction> evictions;
  std::vector<Transfer> transfers;
  std::vector<int64_t> copy_offsets;  // per eviction, in memory `swap_to`
  int swap_to = -1;
  int64_t bytes_moved = 0, stall = 0;
};

// The memory index of each name in b.spaces (empty spaces: {0}). Throws
// std::invalid_argument for an unknown name.
std::vector<int> allowed_spaces(const Problem& p, const Buffer& b);

// The buffers of memory `m` as a problem of its own (capacity and alignment of m; in-place
// links to buffers elsewhere dropped). `index` receives the original buffer indices.
Problem memory_subproblem(const Problem& p, const std::vector<int>& space, int m,
                          std::vector<size_t>* index);

SpacesResult plan_spaces(const Problem& problem, const std::string& algo,
                         const SolveOptions& options);

// Several memories with swapping (pinned mode only): as plan_spaces, except that an evictable
// buffer pinned to memory 0 (the fastest; e.g. only the accelerator reads it) is admitted
// there whatever its LOAD (and left out of the LOAD that admits the others), and memory 0 is planned by plan_swaps under its capacity; each eviction's copy then lives
// in memory `swap.to` (default: the last declared one) from the start of its copy out to the
// end of its copy in, as a buffer of the same size planned with that memory's own buffers.
// Memory 0 needs a capacity. Throws std::invalid_argument for split mode, or `to` naming
// memory 0 or no declared memory.
SpacesResult plan_spaces_swap(const Problem& problem, const std::string& algo, const SolveOptions& options,
                              const SwapOptions& swap);
// The copies of plan_spaces_swap as buffers ("id@lo", lifetime [out start, in end)), in
// r.evictions order.
std::vector<Buffer> copy_buffers(const Problem& problem, const SpacesResult& r);

// The baseline of the benchmark: buffers by size descending go to the first memory while
// its LOAD stays within capacity (no density), the rest to the next memories; a memory that
// does not pack gives up its smallest buffers at its highest-load instant.
SpacesResult plan_spaces_biggest_first(const Problem& problem, const std::string& algo,
                                       const SolveOptions& options);

}  // namespace memplan
