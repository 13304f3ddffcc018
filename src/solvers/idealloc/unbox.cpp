// idealloc: unboxing to loose offsets (§3.7 of shared/research/idealloc.md) and one
// randomized iteration's squeeze order (§3.8).
#include <algorithm>
#include <limits>
#include <numeric>

#include "core/arith.h"
#include "solvers/idealloc/idealloc.h"

namespace memplan::idealloc {

namespace {

// a * b for a, b >= 0, saturating at INT64_MAX.
int64_t sat_mul_nonneg(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::numeric_limits<int64_t>::max();
  return r;
}

struct Pending {
  int32_t job;
  int64_t offset;
};

// Places `job` (a buffer or a box) at `offset`: buffers record it, boxes are pushed.
void put(const Arena& arena, int32_t job, int64_t offset, std::vector<int64_t>& loose,
         std::vector<Pending>& stack) {
  const Job& j = arena.jobs[job];
  if (j.child_count > 0) stack.push_back({job, offset});
  else if (j.buffer >= 0) loose[size_t(j.buffer)] = offset;  // the dummy (-1) is dropped
}

}  // namespace

// Boxes are laid out with interval-graph colouring at every level: the top-level boxes (one
// common height) in rows, and inside a box: a single child at the box's offset; children
// that never overlap in time all at the box's offset; otherwise each exact-size class
// coloured into rows, the classes stacked from the box's offset in a random order (idealloc
// iterates a hash map there). Offsets are only a priority key: a box's re-coloured contents
// may exceed its height.
std::vector<int64_t> unbox(const Arena& arena, std::span<const int32_t> top, int32_t buffers,
                           std::mt19937_64& rng) {
  RandomSource src(rng);
  return unbox(arena, top, buffers, src);
}

std::vector<int64_t> unbox(const Arena& arena, std::span<const int32_t> top, int32_t buffers,
                           DecisionSource& src) {
  std::vector<int64_t> loose(size_t(buffers), std::numeric_limits<int64_t>::max());
  thread_local std::vector<Pending> stack;
  thread_local std::vector<int32_t> kids, births, row, by_birth;
  thread_local std::vector<std::pair<size_t, size_t>> classes;
  stack.clear();
  {
    colour_into(arena, top, row, by_birth);
    int64_t h = 0;
    for (int32_t b : top) h = std::max(h, arena.jobs[b].height);
    for (size_t i = 0; i < top.size(); ++i) put(arena, top[i], sat_mul_nonneg(row[i], h), loose, stack);
  }
  while (!stack.empty()) {
    const Pending p = stack.back();
    stack.pop_back();
    const auto s = arena.kids(p.job);
    if (s.size() == 1) {
      put(arena, s[0], p.offset, loose, stack);
      continue;
    }
    // The children by (height, birth, index): the order of the classes below.
    kids.assign(s.begin(), s.end());
    std::sort(kids.begin(), kids.end(), [&](int32_t a, int32_t b) {
      const Job &x = arena.jobs[a], &y = arena.jobs[b];
      if (x.height != y.height) return x.height < y.height;
      return x.birth != y.birth ? x.birth < y.birth : a < b;
    });
    // Non-overlapping siblings: all at the box's offset. Checked on the children by birth
    // (the order of equal births does not change the answer); when all heights are equal
    // (boxes of boxes, one size class) `kids` is already in that order.
    const std::vector<int32_t>* by_start = &kids;
    if (arena.jobs[kids.front()].height != arena.jobs[kids.back()].height) {
      births.assign(kids.begin(), kids.end());
      std::sort(births.begin(), births.end(), [&](int32_t a, int32_t b) {
        return arena.jobs[a].birth < arena.jobs[b].birth;
      });
      by_start = &births;
    }
    bool disjoint = true;
    int64_t reach = std::numeric_limits<int64_t>::min();
    for (int32_t c : *by_start) {
      if (arena.jobs[c].birth < reach) {
        disjoint = false;
        break;
      }
      reach = std::max(reach, arena.jobs[c].death);
    }
    if (disjoint) {
      for (int32_t c : kids) put(arena, c, p.offset, loose, stack);
      continue;
    }
    // Exact-size classes, in random order, each coloured into rows.
    classes.clear();
    for (size_t a = 0; a < kids.size();) {
      size_t b = a;
      while (b < kids.size() && arena.jobs[kids[b]].height == arena.jobs[kids[a]].height) ++b;
      classes.push_back({a, b});
      a = b;
    }
    src.order_classes(classes);
    int64_t base = p.offset;
    for (const auto& [a, b] : classes) {
      const std::span<const int32_t> cls(kids.data() + a, b - a);
      const int64_t h = arena.jobs[cls[0]].height;
      const int32_t rows = colour_into(arena, cls, row, by_birth);
      for (size_t i = 0; i < cls.size(); ++i)
        put(arena, cls[i], sat_add(base, sat_mul_nonneg(row[i], h)), loose, stack);
      base = sat_add(base, sat_mul_nonneg(rows, h));
    }
  }
  return loose;
}

// A stable LSD radix sort (8-bit digits over the span of the offsets) of the indices.
std::vector<int32_t> order_by_offset(const std::vector<int64_t>& loose) {
  const size_t n = loose.size();
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (n == 0) return order;
  const auto [mn, mx] = std::minmax_element(loose.begin(), loose.end());
  const int64_t lo = *mn;
  const uint64_t span = uint64_t(*mx) - uint64_t(lo);
  thread_local std::vector<int32_t> tmp;
  tmp.resize(n);
  for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += 8) {
    size_t count[257] = {};
    auto digit = [&](int32_t i) { return ((uint64_t(loose[size_t(i)]) - uint64_t(lo)) >> shift) & 255; };
    for (int32_t i : order) ++count[digit(i) + 1];
    for (size_t b = 0; b < 256; ++b) count[b + 1] += count[b];
    for (int32_t i : order) tmp[count[digit(i)]++] = i;
    order.swap(tmp);
  }
  return order;
}

IterationOrder iteration_order(const Prepared& prep, const EpsilonChoice& eps,
                               std::mt19937_64& rng) {
  RandomSource src(rng);
  return iteration_order(prep, eps, src);
}

IterationOrder iteration_order(const Prepared& prep, const EpsilonChoice& eps,
                               DecisionSource& src) {
  // Per-thread arena: copying the base keeps the capacity of earlier iterations.
  thread_local Arena arena;
  thread_local std::vector<int32_t> jobs, top;
  arena.jobs.assign(prep.base.jobs.begin(), prep.base.jobs.end());
  arena.children.assign(prep.base.children.begin(), prep.base.children.end());
  jobs.resize(arena.jobs.size());
  std::iota(jobs.begin(), jobs.end(), 0);
  // Theorem 16's first phase while safe, then one final Corollary 15 with H = h_max / mu_f
  // (idealloc's replacement for Theorem 16's second phase).
  jobs = rogue(arena, std::move(jobs), eps.eps, src);
  top.clear();
  corollary15_into(arena, jobs, eps.final_height, eps.mu_final, src, top);
  IterationOrder out;
  out.boxes = int64_t(top.size());
  out.order = order_by_offset(unbox(arena, top, prep.originals, src));
  return out;
}

}  // namespace memplan::idealloc
