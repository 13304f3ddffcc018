// A proof path for problems with gaps. The exact search places a buffer with gaps as its
// full rectangle [start, end) x [offset, offset + size): a tightening, so its plans are
// plans but its refutations prove nothing. The relaxation below cuts each such buffer into
// its pieces (pieces_of) and lets every piece take its own offset. Every plan of the
// problem gives one of the relaxation (piece k at offset + lo_k, which keeps the piece's
// alignment below), so the relaxation's optimum, or any lower bound proven on it, is a lower
// bound of the problem, and a capacity the relaxation refutes is refuted. The relaxation has
// no gaps, so the exact search proves on it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memplan/problem.h"

namespace memplan::exact {

struct GapRelaxation {
  Problem relaxed;
  // Per buffer of the original: its first piece's index in `relaxed` and the piece count
  // (1 and its own row for a buffer without gaps).
  std::vector<int32_t> first;
  std::vector<int32_t> count;
  std::vector<int64_t> lo;  // per relaxed buffer: its byte offset inside the original buffer
};

// nullopt when some buffer with gaps takes part in in-place reuse (either end), a contiguous
// group or the two-ended pool's high side: cutting it apart would forbid what the problem
// allows (an in-place overlap, the group's adjacency), so it is no relaxation.
std::optional<GapRelaxation> relax_gaps(const Problem& p);

// A plan of the relaxation whose pieces agree (every piece of a buffer at the buffer's offset
// + lo) as the problem's offsets; nullopt when some buffer's pieces were placed apart.
std::optional<std::vector<int64_t>> join_pieces(const GapRelaxation& g, const std::vector<int64_t>& offsets);

}  // namespace memplan::exact
