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
// per eviction. Such copies are hidden, so the stall (stall_of) is 0.
//
// Split mode (note §4, "relocatable"; MSA's prefetch into a fresh chunk): the buffer is cut
// into pieces [start, lo_1), [hi_1, lo_2), ..., [hi_k, end) with offsets of their own, so
// it may come back elsewhere; the copy in writes to the new offset. Everything else is as
// in pinned mode. Stall mode (allow_stall): when no eviction with hidden copies covers an
// overloaded step, any absence strictly between two uses may be used; its copies are
// clipped to the idle steps, queue on the channels, and stall_of gives the compute time lost.
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
#include <utility>
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
  bool split = false;                  // split mode (below): the buffer may come back elsewhere
  bool allow_stall = false;            // stall mode (below): copies need not be hidden
  std::string to;                      // with memories: the memory receiving the copies
};

struct Eviction {
  size_t buffer = 0;
  int64_t lo = 0, hi = 0;              // absent during [lo, hi)
  int64_t back = -1;                   // split mode: its offset from hi on (-1: unchanged)
};

struct Transfer {
  size_t buffer = 0;
  bool out = true;                     // out: to the slow memory; in: back
  int64_t start = 0, end = 0;          // the copy runs during steps [start, end)
};

struct SwapResult {
  Status status = Status::kNoPlan;
  Problem problem;                     // what was planned: the input with every eviction as a
                                       // gap (pinned) or cut into pieces id#k (split mode)
  std::vector<size_t> origin;          // per buffer of `problem`: its input buffer
  std::optional<Solution> solution;    // offsets for `problem` within the capacity
  std::vector<int64_t> offsets;        // per input buffer: its offset until its first eviction
                                       // (Eviction::back gives the offset after each one)
  std::vector<Eviction> evictions;
  std::vector<Transfer> transfers;     // sorted by start
  int64_t bytes_moved = 0;
  int64_t stall = 0;                   // stall_of(evictions): time units the copies delay compute
  int rounds = 0;                      // offset plans tried
  // Bytes evicted (sum of sizes) when each offset plan of steps 3-4 (LOAD-driven evictions,
  // then fragmentation rounds) was tried; strictly increasing (note §8.4).
  std::vector<int64_t> round_bytes;
  std::string explain;                 // why not, when status is not feasible
};

// Copy steps for `size` bytes leaving before step `lo` (out) or arriving from step `hi` (in).
int64_t copy_steps_out(int64_t size, int64_t lo, const SwapOptions& o);
int64_t copy_steps_in(int64_t size, int64_t hi, const SwapOptions& o);

// The uses of b (b.uses, else {start, end - 1}), sorted and unique.
std::vector<int64_t> uses_of(const Buffer& b);

// The copy windows of an eviction: the out copy runs in [first, e.lo), the in copy in
// [e.hi, second). Hidden copies get their full length (copy_steps_*); in stall mode they are
// clipped to the idle steps between the two uses around the absence.
std::pair<int64_t, int64_t> copy_span(const Problem& p, const Eviction& e, const SwapOptions& o);

// Stall: run the steps in order, step t lasting durations[t] time units, and the copies on
// `channels` channels in the order of their planned start (outs before ins, then buffer),
// each copy taking size / bandwidth time units on the first free channel. An out copy may
// start once the use before the absence has ended and must end before step lo starts (the
// region is reused from lo); an in copy may start once step hi - 1 has ended and must end
// before the next use starts. A step waits for the copies it needs; the stall is the total
// wait, in time units rounded up (0 with bandwidth 0). Hidden copies (the default planner)
// never wait, so the stall is 0 unless allow_stall.
int64_t stall_of(const Problem& p, const std::vector<Eviction>& evictions, const SwapOptions& o);

// Split mode cuts only buffers without in-place links, groups, a fixed offset or side=high;
// the others keep the same offset (a gap), as in pinned mode.
bool splittable(const Problem& p, size_t i);

// Plans swaps to fit `capacity` (steps of the research note §6; README "Swapping"). Status
// kInfeasible only with a proof: some step's load, with every buffer that has an idle window
// there away, is above the capacity (none is claimed at a step where two members of an
// in-place chain are live: their footprint is shared, not a sum).
// Otherwise, when no plan is found, kNoPlan and `explain` says where it stopped.
SwapResult plan_swaps(const Problem& problem, int64_t capacity, const std::string& algo,
                      const SolveOptions& options, const SwapOptions& swap);

// Runs a swap plan in a runtime Arena (arena.h) step by step: a buffer's first use writes a
// pattern, a copy out saves its bytes to a host store when it ends, an absence overwrites
// its region with garbage, a copy in restores it when it ends, other buffers write their
// own patterns over reused bytes, and every use checks the bytes. Returns "" or the first
// corruption ("step 5: buffer a: bytes differ").
std::string execute_swaps(const Problem& original, const SwapResult& plan);

}  // namespace memplan
