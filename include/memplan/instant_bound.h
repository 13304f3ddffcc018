// memplan: the instant-subset lower bound, a cutting-plane loop over instants_problem
// (bounds.h). Each relaxation keeps the buffers live at a chosen set of instants and only
// their conflicts there, so its optimum bounds the whole's from below; when a relaxation
// is refuted at C (no plan has peak <= C), no plan of the whole does either. When it fits,
// its plan is spread back over the whole horizon and an instant where that plan breaks is
// added. Every refutation is logged and reproducible with
// `memplan bound FILE --instants T1,T2,... --capacity C`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

class Deadline;  // solver.h
struct Sections;  // timeline.h

// The first section of each run of sections at the largest total, at most `at_most` of
// them, in time order: where the window and instant bounds start.
std::vector<int32_t> peak_sections(const Sections& s, size_t at_most);

// The granule of a problem's peaks: the gcd of its sizes, its alignments above 1 and its
// pre-placed offsets (1 with gaps, in-place links or groups). An optimal plan can be pushed
// down until each offset is 0, a pre-placed one, or another buffer's end rounded up to an
// alignment, so every optimal peak is a multiple of it: when no plan fits C, none fits
// below round_up(C + 1, granule), and a lower bound above best - granule proves best
// optimal.
int64_t peak_granule(const Problem& p);

// A decision on a relaxation at a capacity: refuted (proven: no plan fits), or a plan's
// offsets (in the relaxation's buffer order), or neither (out of budget); and the nodes spent.
struct InstantDecision {
  bool refuted = false;
  std::optional<std::vector<int64_t>> offsets;
  int64_t nodes = 0;
};
using DecideInstants = std::function<InstantDecision(const Problem& relaxation, int64_t capacity)>;

struct InstantRefutation {
  std::vector<int64_t> instants;  // sorted times
  int64_t capacity = 0;           // no plan of instants_problem(p, instants) has peak <= capacity
  int64_t buffers = 0;            // buffers in that relaxation
  int64_t nodes = 0;
};

struct InstantBound {
  // >= the `start` passed in; a lower bound on every plan's peak once a capacity was refuted
  // (or when `start` is one)
  int64_t bound = 0;
  std::vector<InstantRefutation> refutations;
  std::vector<int64_t> instants;                 // the last set decided
  int64_t decisions = 0;                         // relaxations decided (or tried)
  // A valid plan of p with peak <= bound: bound is the optimum when it is a lower bound.
  std::optional<std::vector<int64_t>> plan;
  bool undecided = false;                        // the last decision ran out of budget
};

// The loop. The set starts as `seed` (times; empty: the first section of each run of
// sections at the largest total, at most four) and C as `start` (a known lower bound, e.g.
// LOAD). Each step decides instants_problem(p, set) at C: refuted: C becomes
// round_up(C + 1, granule) (sound: peak_granule), same set; fits: its plan is spread over the
// whole (every kept buffer at its offset) and the section not yet in the set whose buffers
// collide most (overlapping bytes; ties: larger load, then earlier) is added; with no
// collision, the buffers left out are placed by first fit (largest first) below C; if all fit
// the plan is validated and returned (C is then the optimum, if a lower bound), else the section of largest
// load in the lifetime of the first one that did not fit is added. Ends on a plan, an
// undecided decision, or the deadline. With conflicts, gaps, in-place links, groups or
// high-end buffers (instants_problem refuses them) the bound stays `start`. `log` (may be
// empty) gets one line per decision.
InstantBound instant_bound(const Problem& p, int64_t start, std::vector<int64_t> seed, const DecideInstants& decide,
                           const Deadline& deadline, const std::function<void(const std::string&)>& log = {});

}  // namespace memplan
