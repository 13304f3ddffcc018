// Internal: the neighbourhoods of the large-neighbourhood search (lns.cpp). A neighbourhood
// is a set of buffers freed from a plan; every other buffer keeps its offset. The freed ones
// and the kept ones that share an instant with one of them form a sub-problem whose kept
// buffers are pre-placed (Buffer::offset), so a plan of it, merged back, is a plan of the
// whole with the same constraints.
#pragma once

#include <cstdint>
#include <vector>

#include "memplan/problem.h"

namespace memplan::lns {

// How a neighbourhood is drawn: around instant `center`, the `size` movable buffers of
// smallest score (1 - lambda) * dt / horizon + lambda * (peak - top) / peak + jitter, where dt
// is the distance in time from the buffer's lifetime to `center` (0 when live there) and top
// its offset + size. lambda = 0: a time window around the center (every address); lambda = 1:
// the highest buffers over the whole horizon; in between, a band below the peak around it.
// `jitter` (one value in [0, kJitter) per buffer) breaks ties differently per draw.
struct Draw {
  int32_t anchor = -1;  // a buffer above the target, freed whatever its score (-1: none)
  int64_t center = 0;
  double lambda = 0;
  size_t size = 0;
  uint64_t seed = 0;
};

// The buffers to free: the anchor, then the best-scored other movable buffers up to
// `draw.size` in all. Pre-placed buffers (Buffer::offset) are never freed. Sorted by index.
std::vector<int32_t> pick(const Problem& p, const std::vector<int64_t>& offsets, const Draw& draw);

// The kept buffers whose lifetimes overlap some freed buffer's (the only ones the freed can
// collide with), sorted by index. O(n log f) for f freed.
std::vector<int32_t> context_of(const Problem& p, const std::vector<int32_t>& freed);

// subproblem(p, freed + context) with each context buffer pre-placed at its offset in
// `offsets` and the capacity `target`. A context buffer reaching above the target (one of
// those still to be moved down, left where it is by this step) keeps only its part below the
// target, [offset, target), as a full rectangle (none when it lies wholly above): the freed
// buffers must stay below the target, so they can only meet that part, and a plan of the
// sub-problem merged back is a plan of the whole whose buffers above the target are those
// kept there. Returns the problem and the whole's index of each of its buffers.
struct Sub {
  Problem problem;
  std::vector<int32_t> ids;
};
Sub sub_of(const Problem& p, const std::vector<int64_t>& offsets, const std::vector<int32_t>& freed,
           int64_t target);

}  // namespace memplan::lns
