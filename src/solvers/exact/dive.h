// Internal: one descent of the canonical search, without backtracking and without section
// inference ("dive"). From each part it places the least (minimum offset, rank) candidate
// that passes the search's branching tests (capacity, dominance, twins, room above it, the
// tightest section), splitting and re-ranking parts as the search does; it gives up where
// the search would first have to backtrack for want of a candidate. Where the search's
// first descent never backtracks, both place the same buffers at the same offsets; the dive
// gets there in O(log n) per placement and overlap instead of a scan of the part per node
// (Y_1, 62k buffers: the search's descent to LOAD takes minutes, the dive about a second).
// A fast first probe for large inputs, not a proof of anything when it fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "solvers/exact/search.h"

namespace memplan::exact {

// Offsets of a plan with peak <= capacity, or nullopt (stranded buffers, or the deadline).
// `keys`: the preorder keys to re-rank parts by on decomposition (empty: never re-rank).
std::optional<std::vector<int64_t>> dive(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                                         const std::string& keys, const Deadline& deadline);

}  // namespace memplan::exact
