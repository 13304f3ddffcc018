// memplan: lower bounds and instance statistics.
#pragma once

#include <cstdint>

#include "memplan/problem.h"

namespace memplan {

// LOAD: the largest total size live at one instant, by an event sweep in which ends come
// before starts at equal times (half-open lifetimes). Gaps reduce a buffer's contribution
// to its window width (0 for an absent stretch). Buffers linked by in-place reuse
// (inplace_of, through any number of links) count once per instant, as their widest live
// member: a plan may let them share one address (it need not), and no other buffer may
// share their bytes, so every valid plan's peak is >= LOAD. O(n log n).
int64_t compute_load(const Problem& p);

// The highest end of a pre-placed buffer, max(offset + size) (0 when none is fixed): every
// plan's peak reaches it. A two-ended pool's high-end buffers count their offsets from the
// top, so they are left out. O(n).
int64_t fixed_top(const Problem& p);

// The lower bound solvers start from: max(LOAD, fixed_top). O(n log n).
int64_t lower_bound_of(const Problem& p);

struct InstanceStats {
  int64_t buffers = 0;
  int64_t time_min = 0, time_max = 0;    // span of all lifetimes
  int64_t distinct_times = 0;
  int64_t size_min = 0, size_max = 0;    // h_min, h_max
  double size_ratio = 0;                 // h_max / h_min
  int64_t total_size = 0;
  int64_t load = 0;
  int64_t max_live_buffers = 0;          // most buffers live at one instant
  double overlap_density = 0;            // overlapping pairs / all pairs
  int64_t overlapping_pairs = 0;
  int64_t fixed = 0, aligned = 0, with_gaps = 0;
};

// O(n log n): overlapping pairs are counted by a sweep, not enumerated.
InstanceStats compute_stats(const Problem& p);

}  // namespace memplan
