#include "memplan/arena.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include "memplan/validate.h"

namespace memplan {

void Arena::Free::operator()(std::byte* p) const { std::free(p); }

Arena::Arena(const Problem& problem, const Solution& plan) : offsets_(plan.offsets) {
  const Validation v = validate(problem, plan.offsets);
  if (!v.ok) throw std::invalid_argument("arena: invalid plan: " + v.errors.front());
  size_t align = alignof(std::max_align_t);
  for (const Buffer& b : problem.buffers) align = std::max(align, static_cast<size_t>(b.alignment));
  size_ = static_cast<size_t>(v.peak);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded = std::max(align, (size_ + align - 1) / align * align);
  block_.reset(static_cast<std::byte*>(std::aligned_alloc(align, rounded)));
  if (!block_) throw std::bad_alloc();
  base_ = block_.get();
  for (size_t i = 0; i < problem.buffers.size(); ++i) index_.emplace(problem.buffers[i].id, i);
}

}  // namespace memplan
