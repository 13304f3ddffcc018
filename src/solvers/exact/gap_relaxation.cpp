#include "solvers/exact/gap_relaxation.h"

#include <bit>
#include <unordered_set>

namespace memplan::exact {

std::optional<GapRelaxation> relax_gaps(const Problem& p) {
  std::unordered_set<std::string> inplace_targets;
  for (const Buffer& b : p.buffers)
    if (!b.inplace_of.empty()) inplace_targets.insert(b.inplace_of);
  GapRelaxation g;
  g.relaxed = p;
  g.relaxed.buffers.clear();
  g.relaxed.memories.clear();
  // Clocks describe the original rows (the time axis [start, end) is what is searched).
  g.relaxed.clock_dim = 0;
  g.relaxed.clock_lower.clear();
  g.relaxed.clock_upper.clear();
  for (const Buffer& b : p.buffers) {
    g.first.push_back(static_cast<int32_t>(g.relaxed.buffers.size()));
    if (b.gaps.empty()) {
      g.count.push_back(1);
      g.lo.push_back(0);
      g.relaxed.buffers.push_back(b);
      continue;
    }
    if (!b.inplace_of.empty() || inplace_targets.count(b.id) || !b.group.empty() || b.from_top) return std::nullopt;
    const std::vector<Piece> pieces = pieces_of(b);
    g.count.push_back(static_cast<int32_t>(pieces.size()));
    for (size_t k = 0; k < pieces.size(); ++k) {
      const Piece& q = pieces[k];
      Buffer c;
      c.id = b.id + "#" + std::to_string(k);
      c.start = q.start;
      c.end = q.end;
      c.size = q.hi - q.lo;
      // offset + lo is a multiple of the largest power of two dividing both the alignment
      // and lo (alignments are powers of two).
      const uint64_t low = q.lo == 0 ? 0 : std::bit_cast<uint64_t>(q.lo) & (~std::bit_cast<uint64_t>(q.lo) + 1);
      c.alignment = low == 0 ? b.alignment : std::min<int64_t>(b.alignment, static_cast<int64_t>(low));
      if (b.offset) c.offset = *b.offset + q.lo;
      g.lo.push_back(q.lo);
      g.relaxed.buffers.push_back(std::move(c));
    }
  }
  return g;
}

std::optional<std::vector<int64_t>> join_pieces(const GapRelaxation& g, const std::vector<int64_t>& offsets) {
  std::vector<int64_t> out(g.first.size());
  for (size_t i = 0; i < g.first.size(); ++i) {
    const size_t f = static_cast<size_t>(g.first[i]);
    if (g.count[i] == 0) {
      out[i] = 0;  // a buffer whose every piece is empty occupies nothing
      continue;
    }
    out[i] = offsets[f] - g.lo[f];
    for (int32_t k = 1; k < g.count[i]; ++k)
      if (offsets[f + static_cast<size_t>(k)] - g.lo[f + static_cast<size_t>(k)] != out[i]) return std::nullopt;
  }
  return out;
}

}  // namespace memplan::exact
