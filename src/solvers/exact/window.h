// Internal: the peak window. On real models the memory is tight only around the time of
// peak load: elsewhere there is room to spare. So: cut out a time window around the peak
// section, solve it exactly at the target (the buffers live through the whole window are
// set aside and stacked on top: each of them is an unbroken band over the window), fix
// the offsets of every buffer live in the window, and place the rest around them by
// first fit (every standard order, until one fits under the target). bert_large and bert_nezha reach LOAD this way (a window of 129 sections: 130
// buffers, solved in 0.01 s), where neither the search nor any peer got there whole.
// A heuristic: a window plan that the rest cannot be fitted around proves nothing.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"
#include "solvers/exact/search.h"

namespace memplan::exact {

// Decides a (smaller) problem at a capacity: offsets of a plan within it, or nullopt.
using Decide = std::function<std::optional<std::vector<int64_t>>(const Problem&, int64_t capacity, const Deadline&)>;

// A plan of `p` with peak <= target from the window of sections [s - half, s + half] around
// the first section of largest total, or nullopt. `decide` solves the window.
std::optional<std::vector<int64_t>> window_plan(const Problem& p, const Instance& in, int64_t target, int32_t half,
                                                const Decide& decide, const Deadline& deadline);

}  // namespace memplan::exact
