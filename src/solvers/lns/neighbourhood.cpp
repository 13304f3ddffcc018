#include "solvers/lns/neighbourhood.h"

#include <algorithm>
#include <climits>

#include "core/arith.h"

namespace memplan::lns {

namespace {
constexpr double kJitter = 0.02;
}  // namespace

std::vector<int32_t> pick(const Problem& p, const std::vector<int64_t>& offsets, const Draw& draw) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  int64_t lo = INT64_MAX, hi = INT64_MIN, peak = 1;
  for (int32_t i = 0; i < n; ++i) {
    lo = std::min(lo, p.buffers[i].start);
    hi = std::max(hi, p.buffers[i].end);
    peak = std::max(peak, sat_add(offsets[i], p.buffers[i].size));
  }
  const double horizon = n > 0 ? std::max(1.0, static_cast<double>(hi) - static_cast<double>(lo)) : 1.0;
  std::vector<std::pair<double, int32_t>> scored;
  uint64_t state = draw.seed;
  for (int32_t i = 0; i < n; ++i) {
    const Buffer& b = p.buffers[i];
    const double jitter = kJitter * static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
    if (b.offset) continue;
    const int64_t top = sat_add(offsets[i], b.size);
    if (i == draw.anchor) {
      scored.push_back({-1.0, i});
      continue;
    }
    const double dt = draw.center < b.start ? static_cast<double>(b.start) - static_cast<double>(draw.center)
                      : draw.center >= b.end ? static_cast<double>(draw.center) - static_cast<double>(b.end - 1)
                                             : 0.0;
    const double da = static_cast<double>(peak - top) / static_cast<double>(peak);
    scored.push_back({(1 - draw.lambda) * dt / horizon + draw.lambda * da + jitter, i});
  }
  std::sort(scored.begin(), scored.end());
  std::vector<int32_t> freed;
  for (const auto& [score, i] : scored)
    if (score < 0 || freed.size() < draw.size) freed.push_back(i);
  std::sort(freed.begin(), freed.end());
  return freed;
}

std::vector<int32_t> context_of(const Problem& p, const std::vector<int32_t>& freed) {
  // The union of the freed lifetimes as disjoint sorted runs [start, end).
  std::vector<std::pair<int64_t, int64_t>> lives;
  for (int32_t i : freed) lives.push_back({p.buffers[i].start, p.buffers[i].end});
  std::sort(lives.begin(), lives.end());
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (const auto& l : lives) {
    if (!runs.empty() && l.first < runs.back().second) runs.back().second = std::max(runs.back().second, l.second);
    else runs.push_back(l);
  }
  std::vector<char> is_freed(p.buffers.size(), 0);
  for (int32_t i : freed) is_freed[i] = 1;
  std::vector<int32_t> context;
  for (int32_t i = 0; i < static_cast<int32_t>(p.buffers.size()); ++i) {
    if (is_freed[i]) continue;
    const Buffer& b = p.buffers[i];
    // The first run ending after b starts: b overlaps the union iff that run starts before b ends.
    auto it = std::upper_bound(runs.begin(), runs.end(), b.start,
                               [](int64_t t, const std::pair<int64_t, int64_t>& r) { return t < r.second; });
    if (it != runs.end() && it->first < b.end) context.push_back(i);
  }
  return context;
}

Sub sub_of(const Problem& p, const std::vector<int64_t>& offsets, const std::vector<int32_t>& freed,
           int64_t target) {
  Sub s;
  const std::vector<int32_t> context = context_of(p, freed);
  s.ids = freed;
  s.ids.insert(s.ids.end(), context.begin(), context.end());
  s.problem = subproblem(p, s.ids);
  s.problem.capacity = target;
  std::vector<int32_t> keep;  // positions in s.ids, dropping context wholly above the target
  for (size_t k = 0; k < s.ids.size(); ++k) {
    Buffer& b = s.problem.buffers[k];
    if (k >= freed.size()) {
      const int64_t at = offsets[s.ids[k]];
      if (at >= target) continue;
      b.offset = at;
      if (sat_add(at, b.size) > target) b.size = target - at, b.gaps.clear();
    }
    keep.push_back(static_cast<int32_t>(k));
  }
  if (keep.size() < s.ids.size()) {
    std::vector<int32_t> ids;
    for (int32_t k : keep) ids.push_back(s.ids[k]);
    s.problem = subproblem(s.problem, keep);
    s.ids = std::move(ids);
  }
  return s;
}

}  // namespace memplan::lns
