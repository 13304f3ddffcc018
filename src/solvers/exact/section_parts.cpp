#include "solvers/exact/section_parts.h"

#include <bit>

namespace memplan::exact {

SectionParts::SectionParts(int32_t sections)
    : live_(sections, 0), cross_(static_cast<size_t>(sections) + 1, 0),
      cuts_((static_cast<size_t>(sections) + 64) / 64, ~uint64_t{0}), lives_(cuts_.size(), 0) {}

void SectionParts::change(int32_t lo, int32_t hi, int32_t d) {
  // The span's sections and the boundaries inside it (lo + 1 .. hi - 1).
  for (int32_t s = lo; s < hi; ++s) {
    live_[s] += d;
    set_bit(lives_, s, live_[s] > 0);
    if (s > lo) {
      cross_[s] += d;
      set_bit(cuts_, s, cross_[s] == 0);
    }
  }
}

int32_t SectionParts::next(const std::vector<uint64_t>& bits, int32_t from, int32_t limit) {
  if (from >= limit) return limit;
  size_t w = static_cast<size_t>(from) >> 6;
  uint64_t word = bits[w] & (~uint64_t{0} << (from & 63));
  const size_t last = static_cast<size_t>(limit - 1) >> 6;
  while (word == 0) {
    if (++w > last) return limit;
    word = bits[w];
  }
  const int32_t b = static_cast<int32_t>(w * 64 + static_cast<size_t>(std::countr_zero(word)));
  return b < limit ? b : limit;
}

}  // namespace memplan::exact
