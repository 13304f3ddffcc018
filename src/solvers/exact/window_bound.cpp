#include "solvers/exact/window_bound.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/arith.h"
#include "memplan/bounds.h"
#include "memplan/instant_bound.h"
#include "memplan/timeline.h"

namespace memplan::exact {
namespace {

constexpr size_t kMaxCenters = 4;

}  // namespace

WindowBound window_bound(const Problem& p, int64_t start, int64_t granularity, const DecideWindow& decide,
                         const Deadline& deadline, const std::function<void(const std::string&)>& log) {
  WindowBound out;
  out.bound = start;
  if (!relaxable(p)) return out;
  const Sections s = sections_of(p);
  const std::vector<int32_t> centers = peak_sections(s, kMaxCenters);
  const int32_t count = s.count();
  const int64_t g = std::max<int64_t>(granularity, 1);
  for (int32_t h = 1; !deadline.expired(); h *= 2) {
    bool narrower = false;  // some window of this width is not the whole problem
    for (int32_t c : centers) {
      const int32_t lo = std::max(c - h, 0), hi = std::min(c + h + 1, count);
      if (lo == 0 && hi == count) continue;  // the whole: the search's own job
      narrower = true;
      const int64_t from = s.times[lo], to = s.times[hi];  // section k is [times[k], times[k+1])
      const Problem w = window_problem(p, from, to);
      ++out.windows;
      while (!deadline.expired()) {
        const WindowDecision d = decide(w, out.bound, deadline);  // `decide` bounds its own work
        if (!d.refuted) break;
        out.refutations.push_back({from, to, out.bound, d.nodes});
        if (log)
          log("window_bound: window [" + std::to_string(from) + "," + std::to_string(to) + ") buffers=" +
              std::to_string(w.buffers.size()) + " refuted capacity=" + std::to_string(out.bound) +
              " nodes=" + std::to_string(d.nodes));
        out.bound = sat_add(out.bound, 1);
        out.bound = sat_add(out.bound, g - 1) / g * g;
      }
    }
    if (!narrower || h > count) break;
  }
  return out;
}

}  // namespace memplan::exact
