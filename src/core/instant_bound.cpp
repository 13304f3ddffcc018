// The instant-subset lower bound (instant_bound.h): a cutting-plane loop over relaxations
// that keep a growing set of instants.
#include "memplan/instant_bound.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>

#include "core/arith.h"
#include "memplan/bounds.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

constexpr size_t kMaxSeeds = 4;

// Overlapping bytes among `live` (buffer indices with offsets): after sorting by offset,
// each buffer's bytes below the highest end so far.
int64_t overlap_bytes(std::vector<int32_t> live, const std::vector<int64_t>& off, const Problem& p) {
  std::sort(live.begin(), live.end(), [&](int32_t a, int32_t b) { return off[a] < off[b]; });
  int64_t top = 0, bytes = 0;
  for (int32_t b : live) {
    const int64_t end = sat_add(off[b], p.buffers[b].size);
    if (off[b] < top) bytes = sat_add(bytes, std::min(top, end) - off[b]);
    top = std::max(top, end);
  }
  return bytes;
}

std::string list(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(v[i]);
  }
  return out;
}

}  // namespace

std::vector<int32_t> peak_sections(const Sections& s, size_t at_most) {
  std::vector<int32_t> out;
  if (s.total.empty()) return out;
  const int64_t top = *std::max_element(s.total.begin(), s.total.end());
  for (int32_t k = 0; k < s.count() && out.size() < at_most; ++k)
    if (s.total[k] == top && (k == 0 || s.total[k - 1] != top)) out.push_back(k);
  return out;
}

int64_t peak_granule(const Problem& p) {
  int64_t g = 0;
  for (const Buffer& b : p.buffers) {
    if (!relaxable(b)) return 1;
    g = std::gcd(g, b.size);
    if (b.alignment > 1) g = std::gcd(g, b.alignment);
    if (b.offset) g = std::gcd(g, *b.offset);
  }
  return std::max<int64_t>(g, 1);
}

InstantBound instant_bound(const Problem& p, int64_t start, std::vector<int64_t> seed, const DecideInstants& decide,
                           const Deadline& deadline, const std::function<void(const std::string&)>& log) {
  InstantBound out;
  out.bound = start;
  if (!relaxable(p) || p.buffers.empty()) return out;
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  const Sections s = sections_of(p);
  const int64_t g = peak_granule(p);
  // The set as sections (section k starts at s.times[k]); a seed time falls in its section.
  std::set<int32_t> chosen;
  for (int64_t t : seed) {
    const auto it = std::upper_bound(s.times.begin(), s.times.end(), t);
    const int32_t k = static_cast<int32_t>(it - s.times.begin()) - 1;
    if (k >= 0 && k < s.count()) chosen.insert(k);
  }
  if (chosen.empty())
    for (int32_t k : peak_sections(s, kMaxSeeds)) chosen.insert(k);
  while (!deadline.expired()) {
    std::vector<int64_t> instants;
    for (int32_t k : chosen) instants.push_back(s.times[k]);
    out.instants = instants;
    const Problem r = instants_problem(p, instants);
    ++out.decisions;
    const InstantDecision d = decide(r, out.bound);
    const std::string what = "instant_bound: instants=" + std::to_string(instants.size()) +
                             " buffers=" + std::to_string(r.buffers.size()) + " capacity=" + std::to_string(out.bound);
    if (d.refuted) {
      out.refutations.push_back({instants, out.bound, static_cast<int64_t>(r.buffers.size()), d.nodes});
      if (log) log(what + " refuted nodes=" + std::to_string(d.nodes) + " at=" + list(instants));
      out.bound = sat_add(out.bound, g) / g * g;  // round_up(C + 1, g)
      continue;
    }
    if (!d.offsets || d.offsets->size() != r.buffers.size()) {
      out.undecided = true;
      if (log) log(what + " undecided nodes=" + std::to_string(d.nodes));
      return out;
    }
    // Spread the relaxation's plan over the whole: kept buffers (in p's order) get offsets.
    std::vector<int64_t> off(n, -1);
    std::vector<char> kept(n, 0);
    for (int32_t b = 0, j = 0; b < n; ++b) {
      const auto first = chosen.lower_bound(s.lo[b]);
      if (first != chosen.end() && *first < s.hi[b]) kept[b] = 1, off[b] = (*d.offsets)[j++];
    }
    int32_t add = -1;
    int64_t worst = 0;
    std::vector<std::vector<int32_t>> live(s.count());
    for (int32_t b = 0; b < n; ++b)
      if (kept[b])
        for (int32_t k = s.lo[b]; k < s.hi[b]; ++k) live[k].push_back(b);
    for (int32_t k = 0; k < s.count(); ++k) {
      if (chosen.count(k)) continue;
      const int64_t bytes = overlap_bytes(live[k], off, p);
      if (bytes > worst || (bytes == worst && bytes > 0 && s.total[k] > s.total[add])) add = k, worst = bytes;
    }
    std::string why = "collision bytes=" + std::to_string(worst);
    if (add < 0) {  // no collision: place the rest by first fit, largest first
      std::vector<int32_t> rest;
      for (int32_t b = 0; b < n; ++b)
        if (!kept[b]) rest.push_back(b);
      std::stable_sort(rest.begin(), rest.end(),
                       [&](int32_t a, int32_t b) { return p.buffers[a].size > p.buffers[b].size; });
      // The core placement engine (O(log n)-ish per query, not a scan of every buffer): the
      // kept buffers at the relaxation's offsets, then each of the rest at its lowest fitting
      // offset. A pre-placed buffer keeps its offset (a clash is left to validate below).
      PlacementEngine engine(p);
      for (int32_t b = 0; b < n; ++b)
        if (kept[b]) engine.place(b, off[b]);
      for (int32_t b : rest) {
        if (p.buffers[b].offset) {
          off[b] = *p.buffers[b].offset;
        } else {
          const int64_t at = engine.find_offset(b);
          off[b] = sat_add(at, p.buffers[b].size) <= out.bound ? at : -1;
        }
        if (off[b] >= 0) {
          engine.place(b, off[b]);
          continue;
        }
        for (int32_t k = s.lo[b]; k < s.hi[b]; ++k)
          if (!chosen.count(k) && (add < 0 || s.total[k] > s.total[add])) add = k;
        why = "left out: '" + p.buffers[b].id + "' does not fit";
        break;
      }
    }
    if (add < 0) {
      const Validation v = validate(p, off, out.bound);
      if (v.ok) {
        out.plan = off;
        if (log) log(what + " fits the whole: peak=" + std::to_string(v.peak));
        return out;
      }
      // A pre-placed buffer left out may clash: add the first section not yet in the set.
      for (int32_t k = 0; k < s.count() && add < 0; ++k)
        if (!chosen.count(k)) add = k;
      why = "plan invalid: " + (v.errors.empty() ? std::string("?") : v.errors.front());
      if (add < 0) return out;  // every section in: cannot happen (the relaxation is the whole)
    }
    chosen.insert(add);
    if (log)
      log(what + " fits nodes=" + std::to_string(d.nodes) + "; added " + std::to_string(s.times[add]) + " (" + why + ")");
  }
  return out;
}

}  // namespace memplan
