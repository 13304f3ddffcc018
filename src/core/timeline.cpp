#include "memplan/timeline.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>

#include "core/arith.h"
#include "core/polled.h"

namespace memplan {

Sections sections_of(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& size, const std::function<bool()>& stop) {
  Sections s;
  const size_t n = start.size();
  s.times.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) s.times.push_back(start[i]), s.times.push_back(end[i]);
  if (!sort_until_stop(s.times, std::less<>(), stop)) return Sections{};
  s.times.erase(std::unique(s.times.begin(), s.times.end()), s.times.end());
  const int32_t count = std::max<int32_t>(static_cast<int32_t>(s.times.size()) - 1, 0);
  s.lo.resize(n), s.hi.resize(n);
  auto at = [&](int64_t t) {
    return static_cast<int32_t>(std::lower_bound(s.times.begin(), s.times.end(), t) - s.times.begin());
  };
  for (size_t i = 0; i < n; ++i) {
    if ((i & 4095) == 4095 && stop && stop()) return Sections{};
    s.lo[i] = at(start[i]), s.hi[i] = at(end[i]);
  }
  // Section totals by a difference array.
  std::vector<int64_t> diff(count + 1, 0);
  for (size_t i = 0; i < n; ++i) diff[s.lo[i]] += size[i], diff[s.hi[i]] -= size[i];
  s.total.assign(count, 0);
  int64_t run = 0;
  for (int32_t k = 0; k < count; ++k) s.total[k] = (run += diff[k]);
  return s;
}

Sections sections_of(const Problem& p) {
  std::vector<int64_t> start, end, size;
  for (const Buffer& b : p.buffers) start.push_back(b.start), end.push_back(b.end), size.push_back(b.size);
  return sections_of(start, end, size);
}

std::vector<int64_t> section_pressure(const Sections& sec) {
  const int32_t s = sec.count();
  std::vector<std::vector<int64_t>> table = {sec.total};
  for (int32_t w = 1; 2 * w <= s; w *= 2) {
    const std::vector<int64_t>& prev = table.back();
    std::vector<int64_t> next(static_cast<size_t>(s - 2 * w + 1));
    for (size_t k = 0; k < next.size(); ++k) next[k] = std::max(prev[k], prev[k + static_cast<size_t>(w)]);
    table.push_back(std::move(next));
  }
  std::vector<int64_t> pressure(sec.lo.size(), 0);
  for (size_t i = 0; i < sec.lo.size(); ++i) {
    const int32_t lo = sec.lo[i], hi = sec.hi[i];
    if (lo >= hi) continue;
    const int j = std::bit_width(static_cast<uint32_t>(hi - lo)) - 1;
    pressure[i] = std::max(table[j][lo], table[j][hi - (1 << j)]);
  }
  return pressure;
}

std::vector<int32_t> order_by_start(const std::vector<int64_t>& start, const std::function<bool()>& stop) {
  std::vector<int32_t> ids(start.size());
  std::iota(ids.begin(), ids.end(), 0);
  // A total order (ties by id): the stable polled sort gives the one answer.
  if (!sort_until_stop(ids, [&](int32_t a, int32_t b) { return start[a] != start[b] ? start[a] < start[b] : a < b; },
                       stop))
    return {};
  return ids;
}

std::vector<int32_t> overlap_degrees(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                                     const std::function<bool()>& stop) {
  std::vector<int64_t> starts(start), ends(end);
  if (!sort_until_stop(starts, std::less<>(), stop) || !sort_until_stop(ends, std::less<>(), stop)) return {};
  std::vector<int32_t> out(start.size());
  for (size_t i = 0; i < start.size(); ++i) {
    if ((i & 4095) == 4095 && stop && stop()) return {};
    // Others overlapping i: start_j < end_i, less those with end_j <= start_i, less i.
    const int64_t a = std::lower_bound(starts.begin(), starts.end(), end[i]) - starts.begin();
    const int64_t b = std::upper_bound(ends.begin(), ends.end(), start[i]) - ends.begin();
    out[i] = static_cast<int32_t>(a - b - 1);
  }
  return out;
}

int64_t overlapping_pairs(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                          const std::function<bool()>& stop) {
  std::vector<int64_t> starts(start), ends(end);
  if (!sort_until_stop(starts, std::less<>(), stop) || !sort_until_stop(ends, std::less<>(), stop)) return -1;
  int64_t pairs = 0, live = 0;
  size_t e = 0, seen = 0;
  for (int64_t s : starts) {
    if ((++seen & 4095) == 0 && stop && stop()) return -1;
    while (e < ends.size() && ends[e] <= s) ++e, --live;
    pairs += live;
    ++live;
  }
  return pairs;
}

namespace {

// The sweep behind overlap_lists and conflict_graph: calls emit(a, i) for every overlapping
// pair, a started earlier in `by_start` order. Returns false when `stop` (polled every 256
// buffers) says so.
template <class Emit>
bool sweep_overlaps(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                    const std::vector<int32_t>& by_start, const std::function<bool()>& stop, Emit&& emit) {
  // Active buffers kept in a vector; a buffer leaves when its end <= the next start.
  std::vector<int32_t> active;
  int32_t seen = 0;
  for (int32_t i : by_start) {
    if ((++seen & 255) == 0 && stop && stop()) return false;
    size_t w = 0;
    for (int32_t a : active)
      if (end[a] > start[i]) active[w++] = a;
    active.resize(w);
    for (int32_t a : active) emit(a, i);
    active.push_back(i);
  }
  return true;
}

// Adjacency lists (CSR) of n vertices from `each_pair(edge)`, which calls edge(a, b) once per
// pair and returns false when stopped: built in two such passes, counting then filling, so
// no list of all pairs is ever held (it was the largest structure: 8 bytes a pair next to
// the CSR's 8); with `counts` (each vertex's pairs, known) the filling pass alone. Each list
// in the order of the pairs. false when a pass was stopped.
template <class EachPair>
bool csr_of_pairs(int32_t n, EachPair&& each_pair, std::vector<int64_t>& begin, std::vector<int32_t>& adj,
                  const std::vector<int32_t>* counts = nullptr) {
  begin.assign(n + 1, 0);
  if (counts) {
    for (int32_t i = 0; i < n; ++i) begin[i + 1] = (*counts)[i];
  } else if (!each_pair([&](int32_t a, int32_t b) { ++begin[a + 1], ++begin[b + 1]; })) {
    return false;
  }
  for (int32_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  adj.resize(begin[n]);
  std::vector<int64_t> fill(begin.begin(), begin.end() - 1);
  return each_pair([&](int32_t a, int32_t b) { adj[fill[a]++] = b, adj[fill[b]++] = a; });
}

}  // namespace

bool overlap_lists(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                   const std::vector<int32_t>& by_start, std::vector<int64_t>& begin, std::vector<int32_t>& adj,
                   const std::function<bool()>& stop, const std::vector<int32_t>* degrees) {
  return csr_of_pairs(
      static_cast<int32_t>(start.size()),
      [&](auto&& edge) { return sweep_overlaps(start, end, by_start, stop, edge); }, begin, adj, degrees);
}

std::vector<int32_t> inplace_components(const Problem& p) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::unordered_map<std::string_view, int32_t> index;
  for (int32_t i = 0; i < n; ++i)
    if (!p.buffers[i].inplace_of.empty()) index.emplace(p.buffers[i].inplace_of, -1);
  if (index.empty()) return {};
  for (int32_t i = 0; i < n; ++i)
    if (auto it = index.find(p.buffers[i].id); it != index.end() && it->second < 0) it->second = i;
  std::vector<int32_t> parent(n);
  for (int32_t i = 0; i < n; ++i) parent[i] = i;
  auto root = [&](int32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int32_t i = 0; i < n; ++i)
    if (auto it = index.find(p.buffers[i].inplace_of); it != index.end() && it->second >= 0)
      parent[root(i)] = root(it->second);
  for (int32_t i = 0; i < n; ++i) parent[i] = root(i);
  return parent;
}

// Plain buffers: one event per piece. In-place components: the component contributes the
// widest of its live members' pieces, kept in a multiset of live widths per component.
int64_t interval_load(const Problem& p, const Deadline* deadline) {
  Poll poll(deadline);
  const std::vector<int32_t> comp = inplace_components(p);
  struct CEvent {
    int64_t time;
    int64_t delta;  // negative for an end: sorts before starts at equal times
    int32_t comp;
  };
  std::vector<CEvent> ev;
  ev.reserve(2 * p.buffers.size());
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    const int32_t k = comp.empty() ? static_cast<int32_t>(i) : comp[i];
    if (b.gaps.empty()) {
      ev.push_back({b.start, b.size, k});
      ev.push_back({b.end, -b.size, k});
      continue;
    }
    for (const Piece& pc : pieces_of(b)) {
      ev.push_back({pc.start, pc.hi - pc.lo, k});
      ev.push_back({pc.end, -(pc.hi - pc.lo), k});
    }
  }
  if (!sort_until(ev, [](const CEvent& a, const CEvent& b) {
        return a.time != b.time ? a.time < b.time : a.delta < b.delta;
      }, deadline))
    return -1;
  // Components of two or more buffers get a multiset of live widths (slot[k] + 1 indexes
  // it; slot[k] == -1 for a single buffer).
  std::vector<int32_t> slot;
  int32_t shared = 0;
  if (!comp.empty()) {
    std::vector<int32_t> members(p.buffers.size(), 0);
    for (int32_t k : comp) ++members[k];
    slot.assign(p.buffers.size(), -1);
    for (size_t k = 0; k < members.size(); ++k)
      if (members[k] > 1) slot[k] = shared++;
  }
  std::vector<std::multiset<int64_t>> widths(shared);
  int64_t live = 0, load = 0;
  for (const CEvent& e : ev) {
    if (poll()) return -1;
    if (slot.empty() || slot[e.comp] < 0) {
      live = sat_add(live, e.delta);
    } else {
      std::multiset<int64_t>& w = widths[slot[e.comp]];
      const int64_t before = w.empty() ? 0 : *w.rbegin();
      if (e.delta > 0) w.insert(e.delta);
      else w.erase(w.find(-e.delta));
      live = sat_add(live, (w.empty() ? 0 : *w.rbegin()) - before);
    }
    load = std::max(load, live);
  }
  return load;
}

std::vector<int64_t> ends_covering_conflicts(const Problem& p, const std::function<bool()>& stop) {
  const int64_t n = static_cast<int64_t>(p.buffers.size());
  std::vector<int64_t> end(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) end[i] = p.buffers[i].end;
  for (size_t k = 0; k < p.conflicts.size(); ++k) {
    if ((k & 0xffff) == 0 && stop && stop()) return {};
    const auto [a, b] = p.conflicts[k];
    if (a < 0 || b < 0 || a >= n || b >= n || a == b) continue;  // check_problem refuses these
    const Buffer &x = p.buffers[a], &y = p.buffers[b];
    // Against the original lifetimes: a pair apart there meets at the later one's start.
    if (x.end <= y.start) end[a] = std::max(end[a], y.start + 1);
    else if (y.end <= x.start) end[b] = std::max(end[b], x.start + 1);
  }
  return end;
}

bool conflict_graph(const Problem& p, ConflictGraph& g, int64_t max_pairs, const std::function<bool()>& stop) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  g = ConflictGraph{};
  std::vector<int64_t> start(n), end(n);
  for (int32_t i = 0; i < n; ++i) start[i] = p.buffers[i].start, end[i] = p.buffers[i].end;
  const int64_t count = overlapping_pairs(start, end, stop);
  if (count < 0 || count + static_cast<int64_t>(p.conflicts.size()) > max_pairs) return false;
  const std::vector<int32_t> by_start = order_by_start(start, stop);
  if (by_start.size() != start.size()) return false;  // stopped
  auto stopped = [&] { return stop && stop(); };
  // In-place exemption: a buffer and the one it takes over (a direct inplace_of link).
  std::unordered_map<std::string_view, int32_t> index;
  for (int32_t i = 0; i < n; ++i)
    if (!p.buffers[i].inplace_of.empty()) index.emplace(p.buffers[i].inplace_of, -1);
  if (!index.empty())
    for (int32_t i = 0; i < n; ++i)
      if (auto it = index.find(p.buffers[i].id); it != index.end()) it->second = i;
  auto exempt = [&](int32_t a, int32_t b) {
    auto linked = [&](int32_t x, int32_t y) {
      if (p.buffers[x].inplace_of.empty()) return false;
      auto it = index.find(p.buffers[x].inplace_of);
      return it != index.end() && it->second == y;
    };
    return !index.empty() && (linked(a, b) || linked(b, a));
  };
  // Every pair (overlap sweep, then the explicit list) passed to `edge`, in each of
  // csr_of_pairs' two passes. Polled per 256 sweep steps and per 2^20 explicit pairs.
  auto each_pair = [&](auto&& edge) {
    auto keep = [&](int32_t a, int32_t b) {
      if (a != b && !exempt(a, b)) edge(a, b);
    };
    if (!sweep_overlaps(start, end, by_start, stop, keep)) return false;
    int64_t seen = 0;
    for (auto [a, b] : p.conflicts) {
      if ((++seen & 0xFFFFF) == 0 && stopped()) return false;
      keep(a, b);
    }
    return true;
  };
  if (stopped() || !csr_of_pairs(n, each_pair, g.begin, g.adj)) return false;
  // Sort each list, drop repeats (an explicit conflict that also overlaps) and close the
  // gaps they leave (the write position never passes the read position, so the lists move
  // down in place).
  int64_t w = 0;
  for (int32_t i = 0; i < n; ++i) {
    const auto lo = g.adj.begin() + g.begin[i], hi = g.adj.begin() + g.begin[i + 1];
    std::sort(lo, hi);
    const auto last = std::unique(lo, hi);
    g.begin[i] = w;
    w = std::copy(lo, last, g.adj.begin() + w) - g.adj.begin();
    if ((i & 4095) == 4095 && stopped()) return false;
  }
  g.begin[n] = w;
  g.adj.resize(w);
  return true;
}

const ConflictGraph* conflict_graph_of(const Problem& p, const ConflictGraph* given, ConflictGraph& own,
                                       int64_t max_pairs, const std::function<bool()>& stop) {
  if (given) return given;
  return conflict_graph(p, own, max_pairs, stop) ? &own : nullptr;
}

}  // namespace memplan

namespace memplan {

int64_t greedy_clique_bound(const ConflictGraph& g, const std::vector<int64_t>& size, int64_t budget,
                            const std::function<bool()>& stop) {
  const int32_t n = static_cast<int32_t>(size.size());
  int64_t best = 0;
  for (int64_t s : size) best = std::max(best, s);
  auto adjacent = [&](int32_t a, int32_t b) {
    return std::binary_search(g.adj.begin() + g.begin[a], g.adj.begin() + g.begin[a + 1], b);
  };
  // Heaviest buffers first: their cliques are the likeliest to be heavy.
  std::vector<int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return size[a] != size[b] ? size[a] > size[b] : a < b; });
  std::vector<int32_t> nb, clique;
  // The stop is polled every 65536 units of work (256 vertices were up to 0.2 s on dense
  // graphs).
  int64_t work = 0, scanned = 0, next_poll = 0;  // scanned: neighbours read, for the poll only
  for (int32_t v : ids) {
    if (work > budget) break;
    scanned += 1 + g.begin[v + 1] - g.begin[v];
    if (stop && work + scanned >= next_poll) {
      if (stop()) break;
      next_poll = work + scanned + 65536;
    }
    nb.assign(g.adj.begin() + g.begin[v], g.adj.begin() + g.begin[v + 1]);
    std::sort(nb.begin(), nb.end(), [&](int32_t a, int32_t b) { return size[a] != size[b] ? size[a] > size[b] : a < b; });
    clique.assign(1, v);
    int64_t w = size[v];
    for (int32_t u : nb) {
      bool all = true;
      for (size_t k = 1; k < clique.size() && all; ++k) all = adjacent(u, clique[k]), ++work;
      if (all) clique.push_back(u), w = sat_add(w, size[u]);
    }
    work += static_cast<int64_t>(nb.size());
    best = std::max(best, w);
  }
  return best;
}

}  // namespace memplan
