// ONNX Runtime MemPatternPlanner: online best fit over the gaps between live blocks plus
// the gap under the historical peak, fed with the Alloc/Free trace in time order
// (heuristics.md §6a).
#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {

Plan onnxruntime_mem_pattern(const std::vector<Rec>& recs, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Plan plan;
  plan.offsets.assign(n, -1);
  // Trace: at equal times frees come before allocations (half-open lifetimes); allocations
  // at one time in buffer order.
  struct Event {
    int64_t time;
    int kind;  // 0 free, 1 alloc
    int32_t idx;
  };
  std::vector<Event> events;
  for (int32_t i = 0; i < n; ++i) {
    events.push_back({recs[i].start, 1, i});
    events.push_back({recs[i].end, 0, i});
  }
  // A total order (idx breaks ties), so the stable polled sort gives std::sort's result.
  if (!sort_until(events, [](const Event& a, const Event& b) {
        return std::tie(a.time, a.kind, a.idx) < std::tie(b.time, b.kind, b.idx);
      }, &dl)) {
    plan.complete = false;
    plan.detail = "time limit (onnxruntime mem pattern sort)";
    return plan;
  }
  // Pre-placed buffers are not part of ORT's model; to stay valid we treat each of them as
  // a live block for its whole lifetime *and* as an obstacle to any allocation whose
  // lifetime reaches it (so an earlier allocation cannot sit where it will appear).
  OverlapIndex fixed(recs, &dl);
  if (!index_or_give_up(fixed, plan, "onnxruntime")) return plan;
  for (int32_t i = 0; i < n; ++i)
    if (recs[i].fixed >= 0) fixed.insert(i);
  std::set<std::tuple<int64_t, int64_t, int32_t>> blocks;  // (offset, size, idx), live
  std::vector<char> is_live(n, 0);
  std::vector<std::pair<int64_t, int64_t>> walk;
  int64_t buffer_size = 0;  // historical peak
  int64_t steps = 0;
  for (const Event& e : events) {
    if (out_of_time(dl, steps, plan, "onnxruntime mem pattern")) return plan;
    const Rec& r = recs[e.idx];
    if (e.kind == 0) {
      blocks.erase({plan.offsets[e.idx], r.size, e.idx});
      is_live[e.idx] = 0;
      continue;
    }
    int64_t off;
    if (r.fixed >= 0) {
      off = r.fixed;
    } else {
      walk.clear();
      for (const auto& [o, s, j] : blocks) walk.push_back({o, s});
      bool extra = false;
      fixed.for_each(r.start, r.end, [&](int32_t j) {
        if (!is_live[j]) {
          walk.push_back({recs[j].fixed, recs[j].size});
          extra = true;
        }
      });
      if (extra) std::sort(walk.begin(), walk.end());
      int64_t current = 0, best = -1, best_waste = std::numeric_limits<int64_t>::max();
      for (const auto& [o, s] : walk) {
        const int64_t a = round_up(current, r.align);
        if (o >= a && o - a >= r.size && o - a - r.size < best_waste) {
          best_waste = o - a - r.size;
          best = a;
        }
        current = std::max(current, sat_add(o, s));
      }
      const int64_t a = round_up(current, r.align);
      if (buffer_size > a && buffer_size - a >= r.size && buffer_size - a - r.size < best_waste)
        best = a;  // the gap under the historical peak
      off = best >= 0 ? best : a;
    }
    plan.offsets[e.idx] = off;
    blocks.insert({off, r.size, e.idx});
    is_live[e.idx] = 1;
    buffer_size = std::max(buffer_size, sat_add(off, r.size));
  }
  plan.total = buffer_size;
  return plan;
}

void register_onnxruntime(std::vector<SolverInfo>& out) {
  add_solver(out, "onnxruntime-mem-pattern",
             "ONNX Runtime MemPatternPlanner: online best fit over the Alloc/Free trace",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return onnxruntime_mem_pattern(recs, dl);
             });
}

}  // namespace memplan::baselines
