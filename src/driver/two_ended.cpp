// Two-ended pools (two_ended.h): the driver plans each end as its own problem.
#include "memplan/two_ended.h"

#include <memory>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

#include "core/arith.h"
#include "memplan/bounds.h"

namespace memplan {

bool has_two_ends(const Problem& p) {
  for (const Buffer& b : p.buffers)
    if (b.from_top) return true;
  return false;
}

SolveResult solve_two_ended(const Problem& p, const std::string& algo, const SolveOptions& options) {
  const SolverInfo* info = find_solver(algo);
  if (!info) throw std::invalid_argument("unknown algorithm '" + algo + "' (see 'memplan list')");
  return solve_two_ended(p, *info, options);
}

SolveResult solve_two_ended(const Problem& p, const SolverInfo& algo, const SolveOptions& options) {
  const auto cap = capacity_of(p, options);
  std::unordered_set<std::string> reused_ids;
  for (const Buffer& b : p.buffers)
    if (!b.inplace_of.empty()) reused_ids.insert(b.inplace_of);
  Problem low, high;
  std::vector<size_t> low_of, high_of;
  int64_t high_align = 1;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    Buffer b = p.buffers[i];
    // Mirroring reverses address order and pads sizes, which would break in-place sharing
    // (same offset) and group adjacency, so those stay in the low end.
    const bool reused = !b.inplace_of.empty() || reused_ids.count(b.id);
    if (b.from_top && (reused || !b.group.empty()))
      throw std::invalid_argument("buffer '" + b.id +
                                  "': in-place reuse and contiguous groups are supported only in the low end of a two-ended pool");
    b.from_top = false;
    if (!p.buffers[i].from_top) {
      low.buffers.push_back(std::move(b));
      low_of.push_back(i);
      continue;
    }
    // Mirrored: a padded extent keeps the mirrored offset aligned.
    high_align = std::max(high_align, b.alignment);
    b.size = align_up(b.size, b.alignment);
    for (Gap& g : b.gaps)
      if (g.has_window) std::tie(g.window_lo, g.window_hi) = std::pair(b.size - g.window_hi, b.size - g.window_lo);
    if (b.offset) {
      if (!cap) throw std::invalid_argument("buffer '" + b.id + "': a pre-placed high-end buffer needs a capacity");
      b.offset = (*cap / high_align * high_align) - *b.offset - b.size;
      if (*b.offset < 0) throw std::invalid_argument("buffer '" + b.id + "': pre-placed above the capacity");
    }
    high.buffers.push_back(std::move(b));
    high_of.push_back(i);
  }
  // Explicit conflicts follow their buffers into their end; a pair across the ends needs
  // nothing (the ends never share bytes).
  std::vector<int32_t> end_index(p.buffers.size());
  for (size_t k = 0; k < low_of.size(); ++k) end_index[low_of[k]] = static_cast<int32_t>(k);
  for (size_t k = 0; k < high_of.size(); ++k) end_index[high_of[k]] = static_cast<int32_t>(k);
  for (const auto& [a, b] : p.conflicts)
    if (p.buffers[a].from_top == p.buffers[b].from_top)
      (p.buffers[a].from_top ? high : low).conflicts.emplace_back(end_index[a], end_index[b]);
  SolveOptions half = options;
  half.time_limit_seconds = options.time_limit_seconds > 0 ? options.time_limit_seconds / 2 : 0;
  // A start plan (SolveOptions::initial) split into the ends: the low buffers' offsets as
  // they are, the high ones mirrored from the top (known only under a capacity).
  std::shared_ptr<const std::vector<int64_t>> low_initial, high_initial;
  if (options.initial && options.initial->size() == p.buffers.size()) {
    auto l = std::make_shared<std::vector<int64_t>>();
    for (size_t i : low_of) l->push_back((*options.initial)[i]);
    low_initial = std::move(l);
    if (cap) {
      auto h = std::make_shared<std::vector<int64_t>>();
      for (size_t k = 0; k < high_of.size(); ++k)
        h->push_back(*cap / high_align * high_align - (*options.initial)[high_of[k]] - high.buffers[k].size);
      high_initial = std::move(h);
    }
  }
  half.initial = high_initial;
  half.explain = false;  // the caller explains the whole problem
  // Under a capacity the low end is decided below the capacity less the room the high end
  // needs at least (its lower bound), then, failing that, below the whole capacity (each
  // in a quarter of the limit): decided at the whole capacity alone, a solver may fill it
  // (peak-window stacked its bands at the top) and leave the high end no room. Without a
  // capacity it is minimized, in half the limit.
  SolveOptions low_options = half;
  low_options.initial = low_initial;
  const int64_t top_cap = cap ? *cap / high_align * high_align : 0;
  const int64_t high_needs = cap ? align_up(lower_bound_of(high), high_align) : 0;
  std::vector<std::optional<int64_t>> low_caps;
  if (!cap) low_caps = {std::nullopt};
  else if (top_cap - high_needs >= 0 && top_cap - high_needs < *cap) low_caps = {top_cap - high_needs, *cap};
  else low_caps = {*cap};
  if (low_caps.size() > 1 && low_options.time_limit_seconds > 0) low_options.time_limit_seconds /= 2;
  SolveResult lo;
  SolveResult r;
  for (const std::optional<int64_t>& c : low_caps) {
    low_options.capacity = c;
    low.capacity = c;
    lo = solve(low, algo, low_options);
    r.iterations += lo.iterations;
    r.nodes = sat_add(r.nodes, lo.nodes);
    if (lo.solution) break;
  }
  if (!lo.solution) {
    r.status = lo.status == Status::kInfeasible ? Status::kInfeasible : Status::kNoPlan;
    r.detail = "reason=low_end_" + std::string(to_string(lo.status));
    return r;
  }
  if (cap) {
    half.capacity = *cap / high_align * high_align - align_up(lo.solution->peak, high_align);
    if (*half.capacity < 0) {  // no room left above the low end (a capacity < 0 is bad input to solve)
      r.status = Status::kNoPlan;
      r.detail = "reason=high_end_no_room";
      return r;
    }
  }
  SolveResult hi = solve(high, algo, half);
  r.iterations += hi.iterations;
  r.nodes = sat_add(r.nodes, hi.nodes);
  if (!hi.solution) {
    r.status = Status::kNoPlan;
    r.detail = "reason=high_end_" + std::string(to_string(hi.status));
    return r;
  }
  const int64_t top = cap ? *cap / high_align * high_align
                          : align_up(lo.solution->peak, high_align) + align_up(hi.solution->peak, high_align);
  Solution plan;
  plan.offsets.assign(p.buffers.size(), 0);
  for (size_t k = 0; k < low_of.size(); ++k) plan.offsets[low_of[k]] = lo.solution->offsets[k];
  for (size_t k = 0; k < high_of.size(); ++k)
    plan.offsets[high_of[k]] = top - hi.solution->offsets[k] - high.buffers[k].size;
  plan.peak = peak_of(p, plan.offsets);
  r.status = Status::kFeasible;
  r.solution = std::move(plan);
  r.detail = "low_peak=" + std::to_string(lo.solution->peak) + " high_peak=" +
             std::to_string(hi.solution->peak) + " free_middle=" +
             std::to_string(top - lo.solution->peak - hi.solution->peak);
  return r;
}

}  // namespace memplan
