// TFLite core CPU arena: ArenaPlanner's allocation order + SimpleMemoryArena::Allocate's
// best fit (heuristics.md §1.2).
#include <algorithm>
#include <limits>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {

Plan tflite_cpu_arena(const std::vector<Rec>& recs, int64_t tensor_alignment,
                      const Deadline& dl) {
  return arena_best_fit(recs, tensor_alignment, true, dl);
}

Plan arena_best_fit(const std::vector<Rec>& recs, int64_t tensor_alignment, bool sort,
                    const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Plan plan;
  if (n == 0) return plan;
  int64_t t_min = recs[0].start, t_max = recs[0].end;
  for (const Rec& r : recs) {
    t_min = std::min(t_min, r.start);
    t_max = std::max(t_max, r.end);
  }
  // Order: tensors living for the whole inference (allocated at the first node, never
  // deallocated) first by index; then size desc, then allocation node asc, then index.
  auto whole = [&](int32_t i) { return recs[i].start == t_min && recs[i].end == t_max; };
  InsertionList list(recs, plan, dl, "tflite-cpu");
  if (!plan.complete) return plan;
  std::vector<int32_t> order = list.commit_fixed();  // pre-placed: occupied from the start
  auto commit = [&](int32_t i, int64_t off) { list.commit(i, off); };
  const auto less = [&](int32_t a, int32_t b) {
    if (whole(a) != whole(b)) return whole(a);
    if (whole(a)) return false;  // by index
    if (recs[a].size != recs[b].size) return recs[a].size > recs[b].size;
    return recs[a].start < recs[b].start;
  };
  if (sort && !sort_or_give_up(order, dl, plan, "tflite-cpu arena", less)) return plan;
  std::vector<Hit> hits;
  int64_t steps = 0;
  for (int32_t i : order) {
    if (out_of_time(dl, steps, plan, "tflite-cpu arena")) return plan;
    const Rec& r = recs[i];
    const int64_t align = std::max(tensor_alignment, r.align);
    // ordered_allocs_ is kept sorted by offset (upper_bound insert: equal offsets in
    // insertion order); non-overlapping entries are skipped by the source.
    list.hits(r.start, r.end, hits);
    int64_t current = 0, best = -1, best_fit = std::numeric_limits<int64_t>::max();
    for (const Hit& h : hits) {
      const int64_t aligned = round_up(current, align);
      if (sat_add(aligned, r.size) <= h.offset && h.offset - aligned < best_fit) {
        best = aligned;
        best_fit = h.offset - current;  // quirk kept: stored fit is unaligned
      }
      current = std::max(current, sat_add(h.offset, recs[h.idx].size));
      if (best_fit == 0) break;  // zero-waste early exit (never hit for size > 0)
    }
    if (best < 0) best = round_up(current, align);
    commit(i, best);
  }
  return plan;
}

void register_tflite_cpu(std::vector<SolverInfo>& out) {
  add_solver(out, "tflite-cpu-arena",
             "TFLite core ArenaPlanner/SimpleMemoryArena best fit (buffer alignment only)",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return tflite_cpu_arena(recs, 1, dl);
             });
  add_solver(out, "tflite-cpu-arena-64",
             "TFLite core ArenaPlanner/SimpleMemoryArena best fit with its default 64-byte alignment",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return tflite_cpu_arena(recs, 64, dl);
             });
}

}  // namespace memplan::baselines
