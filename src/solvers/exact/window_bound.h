// Internal: the window lower bound. A time window's buffers, clipped to it, form a smaller
// problem whose optimal peak bounds the whole's from below (window_problem, bounds.h): if no
// plan of the window fits C, nothing fits C. Windows of growing width around the peak
// sections are decided by the exact search at the current bound; each refuted capacity
// raises the bound. Every refutation is logged with its window and node count, and is
// reproducible: `memplan bound FILE --window FROM:TO --capacity C`.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::exact {

// The exact decision on a window at a capacity: whether it was proven infeasible, and the
// search's nodes.
struct WindowDecision {
  bool refuted = false;
  int64_t nodes = 0;
};
using DecideWindow = std::function<WindowDecision(const Problem& window, int64_t capacity, const Deadline&)>;

struct Refutation {
  int64_t from = 0, to = 0;  // the window [from, to) in time
  int64_t capacity = 0;      // no plan of the window has peak <= capacity
  int64_t nodes = 0;
};

struct WindowBound {
  int64_t bound = 0;  // >= the `start` passed in; a lower bound on every plan's peak
  std::vector<Refutation> refutations;
  int64_t windows = 0;  // windows tried
};

// Windows of the sections [c - h, c + h] around each peak section c (the first section of
// each run of largest total, at most four), h = 1, 2, 4, ... while the window is not the
// whole problem, each decided at the bound so far until it is not refuted; a refutation of
// C raises the bound to round_up(C + 1, granularity), sound when every optimal peak of `p`
// is a multiple of `granularity` (exact.cpp, bound_from). Each decision gets `deadline`
// itself: `decide` bounds its own work (exact.cpp: by node counts, so that the bound does not
// depend on the load). With gaps, conflicts, in-place links, groups or
// high-end buffers (window_problem refuses them) the bound stays `start`. `log` (may be empty) receives one line per refutation.
WindowBound window_bound(const Problem& p, int64_t start, int64_t granularity, const DecideWindow& decide,
                         const Deadline& deadline, const std::function<void(const std::string&)>& log = {});

}  // namespace memplan::exact
