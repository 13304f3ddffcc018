// memplan: swapping buffers out of a memory that is too small (host/DRAM offload).
//
// Time is in integer steps; step t takes durations[t] time units (1 beyond the vector). A
// buffer marked evictable, with uses u_1 < u_2 < ... (Buffer::uses, default start and
// end - 1), may be absent during [lo, hi) between two consecutive uses u_k < lo < hi <= u_k+1
// as a gap of the existing gap model, so every offset solver handles it unchanged and the
// buffer comes back at the same offset. The copy out occupies the steps [lo - k_out, lo)
// right before the absence, the copy in [hi, hi + k_in) right after; the buffer is present
// during both. k is the fewest steps whose durations x bandwidth reach the buffer's size
// (bandwidth 0: copies are instantaneous, k = 0). Feasible iff lo - k_out > u_k and
// hi + k_in <= u_k+1. At most `channels` copies run in any step. Bytes moved = 2 x size
// per eviction. Copies are always hidden by construction, so the stall is 0.
//
// Planner (research note memory-spaces-and-swap.md §6): while some step's load exceeds the
// capacity, take the first such step, choose among the evictions covering it the one with
// the most size x overloaded steps covered (ties: fewer bytes, then buffer index), shrink it
// to the minimal window covering those steps, slide it outward within its feasible bounds
// when the copy channels are busy, apply it. Then plan offsets under the capacity; on failure
// (fragmentation) evict at the steps where an uncapacitated plan is higher than the capacity
// and repeat (at most max_rounds). Finally drop evictions, largest first, while the plan still
// fits. `exact` instead enumerates eviction sets by increasing bytes moved (small cases).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

struct SwapOptions {
  int64_t bandwidth = 0;               // bytes per time unit; 0 = instantaneous copies
  std::vector<int64_t> durations;      // time units of step t (1 beyond the vector)
  int channels = 1;                    // copies running at once
  int max_rounds = 8;                  // fragmentation rounds
  bool exact = false;                  // enumerate eviction sets (<= 16 candidate windows)
};

struct Eviction {
  size_t buffer = 0;
  int64_t lo = 0, hi = 0;              // absent during [lo, hi)
};

struct Transfer {
  size_t buffer = 0;
  bool out = true;                     // out: to the slow memory; in: back
  int64_t start = 0, end = 0;          // the copy runs during steps [start, end)
};

struct SwapResult {
  Status status = Status::kNoPlan;
  Problem problem;                     // the input with every eviction added as a gap
  std::optional<Solution> solution;    // offsets for `problem` within the capacity
  std::vector<Eviction> evictions;
  std::vector<Transfer> transfers;     // sorted by start
  int64_t bytes_moved = 0;
  int64_t stall = 0;
  int rounds = 0;                      // offset plans tried
  std::string explain;                 // why not, when status is not feasible
};

// Copy steps for `size` bytes leaving before step `lo` (out) or arriving from step `hi` (in).
int64_t copy_steps_out(int64_t size, int64_t lo, const SwapOptions& o);
int64_t copy_steps_in(int64_t size, int64_t hi, const SwapOptions& o);

// The uses of b (b.uses, else {start, end - 1}), sorted and unique.
std::vector<int64_t> uses_of(const Buffer& b);

SwapResult plan_swaps(const Problem& problem, int64_t capacity, const std::string& algo,
                      const SolveOptions& options, const SwapOptions& swap);

// Runs a swap plan in a runtime Arena (arena.h) step by step: a buffer's first use writes a
// pattern, a copy out saves its bytes to a host store when it ends, an absence overwrites
// its region with garbage, a copy in restores it when it ends, other buffers write their
// own patterns over reused bytes, and every use checks the bytes. Returns "" or the first
// corruption ("step 5: buffer a: bytes differ").
std::string execute_swaps(const Problem& original, const SwapResult& plan);

}  // namespace memplan
