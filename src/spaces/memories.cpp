#include "memplan/memories.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "memplan/explain.h"
#include "spaces/max_tree.h"

namespace memplan {

std::vector<int> allowed_spaces(const Problem& p, const Buffer& b) {
  if (b.spaces.empty()) return {0};
  std::vector<int> out;
  for (const std::string& s : b.spaces) {
    if (s.empty()) continue;  // "sram||dram"
    int m = -1;
    for (size_t k = 0; k < p.memories.size(); ++k)
      if (p.memories[k].name == s) m = static_cast<int>(k);
    if (m < 0) throw std::invalid_argument("buffer '" + b.id + "': unknown memory '" + s + "'");
    out.push_back(m);
  }
  return out;
}

Problem memory_subproblem(const Problem& p, const std::vector<int>& space, int m,
                          std::vector<size_t>* index) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (space[i] == m) ids.push_back(static_cast<int32_t>(i)), index->push_back(i);
  Problem sub = subproblem(p, ids);
  const Memory& mem = p.memories[static_cast<size_t>(m)];
  sub.capacity = mem.capacity;
  for (Buffer& b : sub.buffers) b.alignment = std::max(b.alignment, mem.alignment);
  return sub;
}

namespace {

// Compressed time axis of the problem: index of each distinct start/end.
struct Axis {
  std::vector<int64_t> t;
  explicit Axis(const Problem& p) {
    for (const Buffer& b : p.buffers) {
      t.push_back(b.start);
      t.push_back(b.end);
    }
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
  }
  size_t at(int64_t v) const { return static_cast<size_t>(std::lower_bound(t.begin(), t.end(), v) - t.begin()); }
};

double density(const Buffer& b) {
  const int64_t acc = b.accesses >= 0 ? b.accesses
                      : static_cast<int64_t>(b.uses.empty() ? (b.end - b.start > 1 ? 2 : 1) : b.uses.size());
  return static_cast<double>(acc) / static_cast<double>(b.end - b.start);
}

// Admits buffers in `order` to their first memory whose LOAD stays within its capacity.
// Returns false (with `error`) when a buffer fits none of its memories.
bool admit(const Problem& p, const std::vector<size_t>& order, const std::vector<std::vector<int>>& allowed,
           std::vector<int>& space, std::string& error, bool swap) {
  const Axis axis(p);
  std::vector<MaxTree> load(p.memories.size(), MaxTree(axis.t.size()));
  for (size_t i : order) {
    const Buffer& b = p.buffers[i];
    const size_t lo = axis.at(b.start), hi = axis.at(b.end);
    space[i] = -1;
    for (int m : allowed[i]) {
      const auto& cap = p.memories[static_cast<size_t>(m)].capacity;
      // An evictable buffer pinned to the fast memory: the swap planner makes room for it.
      const bool evicts = swap && m == 0 && b.evictable && allowed[i].size() == 1;
      if (!evicts && cap && load[static_cast<size_t>(m)].max(lo, hi) + b.size > *cap) continue;
      if (!evicts) load[static_cast<size_t>(m)].add(lo, hi, b.size);  // evictables: not counted
      space[i] = m;
      break;
    }
    if (space[i] < 0) {  // say why each memory refused it (not only "too small")
      error = "buffer '" + b.id + "' (" + std::to_string(b.size) + " bytes, live [" + std::to_string(b.start) + "," +
              std::to_string(b.end) + ")) fits none of its memories:";
      for (size_t k = 0; k < allowed[i].size(); ++k) {
        const size_t m = static_cast<size_t>(allowed[i][k]);
        const int64_t cap = *p.memories[m].capacity;  // only a capped memory refuses
        error += std::string(k ? ";" : "") + " " + p.memories[m].name + " (capacity " + std::to_string(cap) +
                 (b.size > cap ? ": smaller than the buffer)"
                               : ", already holding " + std::to_string(load[m].max(lo, hi)) +
                                     " bytes of buffers live with it)");
      }
      if (b.spaces.empty() && p.memories.size() > 1)
        error += " (a buffer that lists no memories may use the first only: list others in its 'space' column or "
                 "\"spaces\" field, e.g. " + p.memories[0].name + "|" + p.memories[1].name + ")";
      return false;
    }
  }
  return true;
}

// Plans offsets memory by memory; a memory that does not pack moves some of its least dense
// (baseline: smallest) movable buffers live at its highest-load instant to their next memory.
SpacesResult pack(const Problem& p, const std::vector<std::vector<int>>& allowed, std::vector<int> space,
                  const std::string& algo, const SolveOptions& options, bool by_density, const SwapOptions* swap,
                  int swap_to) {
  SpacesResult r;
  r.swap_to = swap_to;
  std::vector<Buffer> copies;
  const Deadline deadline(options.time_limit_seconds, options.cancel);
  r.offsets.assign(p.buffers.size(), 0);
  r.peak.assign(p.memories.size(), 0);
  for (size_t m = 0; m < p.memories.size(); ++m) {
    for (;;) {
      std::vector<size_t> idx;
      Problem sub = memory_subproblem(p, space, static_cast<int>(m), &idx);
      if (static_cast<int>(m) == swap_to)  // the evicted copies live here
        for (Buffer c : copies) c.alignment = std::max(c.alignment, p.memories[m].alignment), sub.buffers.push_back(c);
      if (sub.buffers.empty()) break;
      SolveOptions o = options;
      o.capacity = p.memories[m].capacity;
      o.explain = false;
      o.time_limit_seconds = std::max(0.01, deadline.remaining_seconds() / static_cast<double>(p.memories.size() - m));
      SolveResult sr;
      if (m == 0 && swap && o.capacity) {
        const SwapResult sw = plan_swaps(sub, *o.capacity, algo, o, *swap);
        sr.status = sw.status;
        if (sw.solution) {
          sr.solution = Solution{sw.offsets, sw.solution->peak};
          r.evictions = sw.evictions;
          r.transfers = sw.transfers;
          for (Eviction& e : r.evictions) e.buffer = idx[e.buffer];
          for (Transfer& x : r.transfers) x.buffer = idx[x.buffer];
          r.bytes_moved = sw.bytes_moved;
          r.stall = sw.stall;
          copies = copy_buffers(p, r);
        }
      } else {
        sr = solve(sub, algo, o);
      }
      if (sr.solution) {
        for (size_t k = 0; k < idx.size(); ++k) r.offsets[idx[k]] = sr.solution->offsets[k];
        if (static_cast<int>(m) == swap_to)
          r.copy_offsets.assign(sr.solution->offsets.begin() + static_cast<std::ptrdiff_t>(idx.size()),
                                sr.solution->offsets.end());
        r.peak[m] = sr.solution->peak;
        break;
      }
      // Move one buffer on: the least dense one live at the highest-load instant whose
      // allowed list goes on after m.
      const LoadProfile lp = load_profile(sub);
      int64_t worst_t = 0, worst = -1;
      for (size_t k = 0; k < lp.times.size(); ++k)
        if (lp.load[k] > worst) worst = lp.load[k], worst_t = lp.times[k];
      // Movable buffers live there, least valuable first (density, or size for the
      // baseline); an eighth of them (at least one) moves, so big memories converge fast.
      std::vector<size_t> movable;
      for (size_t i : idx) {
        const Buffer& b = p.buffers[i];
        if (!(b.start <= worst_t && worst_t < b.end)) continue;
        const auto& al = allowed[i];
        const auto it = std::find(al.begin(), al.end(), static_cast<int>(m));
        if (it != al.end() && it + 1 != al.end()) movable.push_back(i);
      }
      if (movable.empty() || deadline.expired()) {
        r.error = "memory '" + p.memories[m].name + "': no plan fits its capacity (" + to_string(sr.status) + ")";
        return r;
      }
      std::stable_sort(movable.begin(), movable.end(), [&](size_t a, size_t b) {
        return by_density ? density(p.buffers[a]) < density(p.buffers[b]) : p.buffers[a].size < p.buffers[b].size;
      });
      movable.resize(std::max<size_t>(1, movable.size() / 8));
      for (size_t pick : movable) {
        const auto& al = allowed[pick];
        space[pick] = *(std::find(al.begin(), al.end(), static_cast<int>(m)) + 1);
        ++r.moves;
      }
    }
  }
  r.space = std::move(space);
  r.ok = true;
  return r;
}

SpacesResult plan_by_order(const Problem& p, const std::string& algo, const SolveOptions& options,
                           bool by_density, const SwapOptions* swap = nullptr) {
  SpacesResult r;
  if (p.memories.empty()) {
    r.error = "no memories declared";
    return r;
  }
  std::vector<std::vector<int>> allowed;
  for (const Buffer& b : p.buffers) allowed.push_back(allowed_spaces(p, b));
  // A contiguous group must stay in one memory: its members need one pinned memory.
  std::unordered_map<std::string, int> group_space;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const std::string& g = p.buffers[i].group;
    if (g.empty()) continue;
    if (allowed[i].size() != 1) {
      r.error = "buffer '" + p.buffers[i].id + "': a group member must be pinned to one memory";
      return r;
    }
    const auto [it, fresh] = group_space.emplace(g, allowed[i][0]);
    if (!fresh && it->second != allowed[i][0]) {
      r.error = "group '" + g + "' spans two memories";
      return r;
    }
  }
  std::vector<size_t> order(p.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool pa = allowed[a].size() == 1, pb = allowed[b].size() == 1;
    if (pa != pb) return pa;  // pinned first, so nothing takes the space they need
    const Buffer &x = p.buffers[a], &y = p.buffers[b];
    if (by_density) {
      const double da = density(x), db = density(y);
      if (da != db) return da > db;
    }
    return x.size > y.size;
  });
  std::vector<int> space(p.buffers.size(), -1);
  if (!admit(p, order, allowed, space, r.error, swap != nullptr)) return r;
  int to = -1;
  if (swap) {
    to = static_cast<int>(p.memories.size()) - 1;
    if (!swap->to.empty()) {
      to = -1;
      for (size_t m = 0; m < p.memories.size(); ++m)
        if (p.memories[m].name == swap->to) to = static_cast<int>(m);
    }
    if (to <= 0)
      throw std::invalid_argument("swap: 'to' must name a declared memory other than the first ('" +
                                  p.memories[0].name + "'), got '" + swap->to + "'");
    if (swap->split) throw std::invalid_argument("swap: split mode with several memories is not supported (use pinned)");
  }
  return pack(p, allowed, std::move(space), algo, options, by_density, swap, to);
}

}  // namespace

SpacesResult plan_spaces(const Problem& problem, const std::string& algo, const SolveOptions& options) {
  return plan_by_order(problem, algo, options, true);
}

SpacesResult plan_spaces_swap(const Problem& problem, const std::string& algo, const SolveOptions& options,
                              const SwapOptions& swap) {
  return plan_by_order(problem, algo, options, true, &swap);
}

std::vector<Buffer> copy_buffers(const Problem& problem, const SpacesResult& r) {
  std::vector<Buffer> out;
  for (const Eviction& e : r.evictions) {
    const Buffer& b = problem.buffers[e.buffer];
    Buffer c;
    c.id = b.id + "@" + std::to_string(e.lo);
    c.size = b.size;
    c.alignment = b.alignment;
    c.start = e.lo;
    c.end = e.hi;
    for (const Transfer& x : r.transfers)  // from its copy out's start to its copy in's end
      if (x.buffer == e.buffer && (x.out ? x.end == e.lo : x.start == e.hi))
        (x.out ? c.start : c.end) = x.out ? x.start : x.end;
    out.push_back(c);
  }
  return out;
}

SpacesResult plan_spaces_biggest_first(const Problem& problem, const std::string& algo,
                                       const SolveOptions& options) {
  return plan_by_order(problem, algo, options, false);
}

}  // namespace memplan
