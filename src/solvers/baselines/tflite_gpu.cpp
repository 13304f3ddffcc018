// TFLite GPU delegate memory_management strategies (heuristics.md §1.1): the shared-object
// strategies (NAIVE, EQUALITY, GREEDY_IN_ORDER, GREEDY_BY_BREADTH, GREEDY_BY_SIZE objects,
// MINCOSTFLOW, GREEDY_BEST) laid out by ObjectsToOffsets, GREEDY_BY_SIZE offsets, and the
// GPU backends' "as deployed" choice between the two.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {
namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
// Min-cost flow: the source's Bellman-Ford solver up to this many reuse edges, the exact
// assignment solver on the full graph up to kFullFlowEdges, then near-size candidates.
constexpr int64_t kSourceFlowEdges = 150'000;
constexpr int64_t kFullFlowEdges = 8'000'000;
constexpr int kNearCandidates = 128;

// Record indices stably sorted by one lifetime end (ties by index). The sort polls `dl`
// (if any): empty once it has passed (1M records: ~0.1 s of CPU).
std::vector<int32_t> sorted_by(const std::vector<Rec>& recs, int64_t Rec::*key, const Deadline* dl) {
  std::vector<int32_t> order(recs.size());
  std::iota(order.begin(), order.end(), 0);
  if (!sort_until(order, [&](int32_t a, int32_t b) { return recs[a].*key < recs[b].*key; }, dl)) return {};
  return order;
}

// Marks `o` given up at the time limit.
Objects& gave_up(Objects& o, const char* who) {
  o.complete = false;
  o.detail = std::string("time limit (") + who + ")";
  return o;
}

// Records sorted by (first_task, index): the order EQUALITY / GREEDY_IN_ORDER / MINCOSTFLOW
// assume their input is in (§1.1 spec step 3).
std::vector<int32_t> by_first(const std::vector<Rec>& recs, const Deadline* dl = nullptr) {
  return sorted_by(recs, &Rec::start, dl);
}

// In-use objects keyed by (last_task of the current tenant, object id), smallest first.
using InUse = std::priority_queue<std::pair<int64_t, int32_t>,
                                  std::vector<std::pair<int64_t, int32_t>>, std::greater<>>;

// Elementary time segments: distinct event times t_k; segment k is [t_k, t_{k+1}). All
// integer tasks inside a segment have the same profile, so the segment stands for them
// (task id = t_k, its first task). Its sort polls the deadline (2M times for 1M tensors:
// ~0.1 s of CPU): empty once it has passed.
std::vector<int64_t> event_times(const std::vector<Rec>& recs, const Deadline& dl) {
  std::vector<int64_t> t;
  for (const Rec& r : recs) {
    t.push_back(r.start);
    t.push_back(r.end);
  }
  if (!sort_until(t, std::less<int64_t>(), &dl)) return {};
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

// Tensors sorted by last task; for row i the source's `finished` list is the prefix of
// those with last_task < first_task(i).
std::vector<int32_t> by_last_task(const std::vector<Rec>& recs, const Deadline* dl = nullptr) {
  return sorted_by(recs, &Rec::end, dl);
}

// For each tensor i: how many tensors (a prefix of by_last) finished before first_task(i).
std::vector<int32_t> finished_before(const std::vector<Rec>& recs, const std::vector<int32_t>& rows,
                                     const std::vector<int32_t>& by_last) {
  std::vector<int32_t> count(recs.size());
  size_t f = 0;
  for (int32_t i : rows) {
    while (f < by_last.size() && recs[by_last[f]].last() < recs[i].start) ++f;
    count[i] = static_cast<int32_t>(f);
  }
  return count;
}

// Min-cost flow extraction: in `rows` order, each tensor that opens a new object starts a
// chain following `succ` (the tensor that took its object over); the object is as large as
// the largest tensor of its chain.
void add_chains(const std::vector<Rec>& recs, const std::vector<int32_t>& rows,
                const std::vector<char>& opens, const std::vector<int32_t>& succ, Objects& o) {
  for (int32_t i : rows) {
    if (!opens[i]) continue;
    const int32_t obj = static_cast<int32_t>(o.sizes.size());
    o.sizes.push_back(0);
    for (int32_t x = i; x >= 0; x = succ[x]) {
      o.ids[x] = obj;
      o.sizes[obj] = std::max(o.sizes[obj], recs[x].size);
    }
  }
}

}  // namespace

Objects tflite_gpu_naive(const std::vector<Rec>& recs) {
  Objects o;
  for (size_t i = 0; i < recs.size(); ++i) {
    o.ids.push_back(static_cast<int32_t>(i));
    o.sizes.push_back(recs[i].size);
  }
  return o;
}

Objects tflite_gpu_equality(const std::vector<Rec>& recs, const Deadline& dl) {
  Objects o;
  o.ids.assign(recs.size(), -1);
  InUse in_use;
  std::unordered_map<int64_t, std::vector<int32_t>> free_by_size;  // LIFO stacks
  const std::vector<int32_t> rows = by_first(recs, &dl);
  if (rows.size() != recs.size()) return gave_up(o, "tflite-gpu equality sort");
  int64_t steps = 0;
  for (int32_t i : rows) {
    if ((++steps & 1023) == 0 && dl.expired()) return gave_up(o, "tflite-gpu equality");
    while (!in_use.empty() && in_use.top().first < recs[i].start) {  // last < first (inclusive)
      const int32_t obj = in_use.top().second;
      in_use.pop();
      free_by_size[o.sizes[obj]].push_back(obj);
    }
    auto it = free_by_size.find(recs[i].size);
    int32_t obj;
    if (it != free_by_size.end() && !it->second.empty()) {
      obj = it->second.back();
      it->second.pop_back();
    } else {
      obj = static_cast<int32_t>(o.sizes.size());
      o.sizes.push_back(recs[i].size);
    }
    o.ids[i] = obj;
    in_use.push({recs[i].last(), obj});
  }
  return o;
}

Objects tflite_gpu_greedy_in_order(const std::vector<Rec>& recs, const Deadline& dl) {
  Objects o;
  o.ids.assign(recs.size(), -1);
  InUse in_use;
  std::set<std::pair<int64_t, int32_t>> pool;  // (object size, object id)
  const std::vector<int32_t> rows = by_first(recs, &dl);
  if (rows.size() != recs.size()) return gave_up(o, "tflite-gpu greedy-in-order sort");
  int64_t steps = 0;
  for (int32_t i : rows) {
    if ((++steps & 1023) == 0 && dl.expired()) return gave_up(o, "tflite-gpu greedy-in-order");
    while (!in_use.empty() && in_use.top().first < recs[i].start) {
      const int32_t obj = in_use.top().second;
      in_use.pop();
      pool.insert({o.sizes[obj], obj});
    }
    const int64_t size = recs[i].size;
    int32_t obj;
    if (pool.empty()) {
      obj = static_cast<int32_t>(o.sizes.size());
      o.sizes.push_back(size);
    } else {
      auto a = pool.lower_bound({size, 0});  // smallest object >= size
      auto chosen = a;
      if (a == pool.end()) {
        chosen = std::prev(a);  // largest object < size
      } else if (a != pool.begin()) {
        const auto b = std::prev(a);
        // Switch to the smaller object only when it wastes strictly less (A wins ties).
        if (size - b->first < a->first - size) chosen = b;
      }
      obj = chosen->second;
      pool.erase(chosen);
      o.sizes[obj] = std::max(o.sizes[obj], size);
    }
    o.ids[i] = obj;
    in_use.push({recs[i].last(), obj});
  }
  return o;
}

Objects tflite_gpu_greedy_by_breadth(const std::vector<Rec>& recs, const Deadline& dl) {
  Objects o;
  o.ids.assign(recs.size(), -1);
  const std::vector<int64_t> times = event_times(recs, dl);
  if (times.empty() && !recs.empty()) {
    o.complete = false;
    o.detail = "time limit (greedy-by-breadth event times)";
    return o;
  }
  // Breadth of every segment by a sweep (ends before starts at equal times).
  std::vector<int64_t> breadth(times.empty() ? 0 : times.size() - 1, 0);
  {
    std::vector<int64_t> delta(times.size() + 1, 0);
    Poll poll(&dl);  // two binary searches a tensor (1M: ~0.2 s of CPU)
    for (const Rec& r : recs) {
      if (poll()) {
        o.complete = false;
        o.detail = "time limit (greedy-by-breadth sweep)";
        return o;
      }
      const size_t a = std::lower_bound(times.begin(), times.end(), r.start) - times.begin();
      const size_t b = std::lower_bound(times.begin(), times.end(), r.end) - times.begin();
      delta[a] += r.size;
      delta[b] -= r.size;
    }
    int64_t live = 0;
    for (size_t k = 0; k < breadth.size(); ++k) breadth[k] = (live += delta[k]);
  }
  std::vector<int32_t> tasks;
  for (size_t k = 0; k < breadth.size(); ++k)
    if (breadth[k] > 0) tasks.push_back(static_cast<int32_t>(k));
  // Breadth descending, ties by task id ascending.
  if (!sort_or_give_up(tasks, dl, o, "tflite-gpu greedy-by-breadth",
                       [&](int32_t a, int32_t b) { return breadth[a] > breadth[b]; }))
    return o;
  // Unassigned tensors, indexed by time, so a task profile only lists the unassigned ones
  // (the source skips assigned tensors; the visiting order among the rest is the same).
  OverlapIndex live(recs, &dl);
  if (!index_or_give_up(live, o, "greedy-by-breadth")) return o;
  live.insert_all();
  std::vector<std::map<int64_t, int64_t>> schedule;  // per object: tenant start -> end
  int64_t steps = 0;
  for (int32_t k : tasks) {
    std::vector<int32_t> profile = live.query(times[k], times[k] + 1);
    if (profile.empty()) continue;
    std::sort(profile.begin(), profile.end(), [&](int32_t a, int32_t b) {
      return recs[a].size != recs[b].size ? recs[a].size > recs[b].size : a < b;
    });
    for (int32_t r : profile) {
      if ((++steps & 63) == 0 && dl.expired()) {
        o.complete = false;
        o.detail = "time limit (greedy-by-breadth)";
        return o;
      }
      const Rec& rr = recs[r];
      int32_t best = -1;
      for (int32_t obj = 0; obj < static_cast<int32_t>(o.sizes.size()); ++obj) {
        // Compatible iff no tenant interval intersects r's.
        const auto& s = schedule[obj];
        auto it = s.lower_bound(rr.start);
        if (it != s.end() && it->first < rr.end) continue;
        if (it != s.begin() && std::prev(it)->second > rr.start) continue;
        if (best < 0) {
          best = obj;
        } else if (o.sizes[best] < rr.size) {
          if (o.sizes[obj] > o.sizes[best]) best = obj;  // grow the largest
        } else if (o.sizes[obj] >= rr.size && o.sizes[obj] < o.sizes[best]) {
          best = obj;  // tightest object that already covers r
        }
      }
      if (best < 0) {
        best = static_cast<int32_t>(o.sizes.size());
        o.sizes.push_back(rr.size);
        schedule.emplace_back();
      }
      o.sizes[best] = std::max(o.sizes[best], rr.size);
      schedule[best][rr.start] = rr.end;
      o.ids[r] = best;
      live.erase(r);
    }
  }
  return o;
}

std::vector<int64_t> tflite_gpu_positional_maximums(const std::vector<Rec>& recs, const Deadline& dl) {
  // PM[k] = max over tasks of the k-th largest live size. Between consecutive events the
  // profile is constant, so one sweep over segments suffices.
  std::vector<int64_t> pm;
  const std::vector<int64_t> times = event_times(recs, dl);
  OverlapIndex all(recs, &dl);
  if (!all.complete()) return pm;  // the deadline passed: callers check it
  all.insert_all();
  std::vector<int64_t> sizes;
  for (size_t k = 0; k + 1 < times.size(); ++k) {
    if ((k & 63) == 0 && dl.expired()) break;  // O(live log live) a segment: Y_1 takes seconds
    sizes.clear();
    all.for_each(times[k], times[k] + 1, [&](int32_t j) { sizes.push_back(recs[j].size); });
    std::sort(sizes.rbegin(), sizes.rend());
    if (pm.size() < sizes.size()) pm.resize(sizes.size(), 0);
    for (size_t p = 0; p < sizes.size(); ++p) pm[p] = std::max(pm[p], sizes[p]);
  }
  return pm;
}

Objects tflite_gpu_greedy_by_size_objects(const std::vector<Rec>& recs, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Objects o;
  o.ids.assign(n, -1);
  const std::vector<int64_t> pm = tflite_gpu_positional_maximums(recs, dl);
  if (dl.expired()) {
    o.complete = false;
    o.detail = "time limit (greedy-by-size objects)";
    return o;
  }
  // PM is non-increasing (each task's sizes are sorted decreasing, and a maximum of
  // non-increasing sequences is one), so the first p with PM[p] < size is a binary search:
  // the source's scan is O(n * |PM|), 1M buffers all live at once took 142 s of CPU.
  std::vector<int64_t> position(n);
  for (int32_t i = 0; i < n; ++i) {
    const auto first_below = std::partition_point(pm.begin(), pm.end(), [&](int64_t v) { return v >= recs[i].size; });
    position[i] = static_cast<int64_t>(first_below - pm.begin()) - 1;
  }
  // Temporal distance between disjoint intervals (inclusive source terms); kInf if they
  // overlap.
  auto dist = [&](int32_t a, int32_t b) -> int64_t {
    if (overlap(recs[a], recs[b])) return kInf;
    return recs[b].start > recs[a].last() ? recs[b].start - recs[a].last()
                                          : recs[a].start - recs[b].last();
  };
  // The source keeps an (unassigned tensors x objects) distance table: O(n m) memory,
  // 2.9 G entries on Y_1. We keep the same information in O(n m / 64 + n): a bit per
  // (object, tensor) saying "the object has a tenant overlapping the tensor" (its table
  // entry is infinite), and each object's tenants sorted by time (they are disjoint), from
  // which a finite entry, the smallest gap to a tenant, is recomputed by binary search
  // when the source rescans a row. Same decisions, same output.
  const size_t words = (static_cast<size_t>(n) + 63) / 64;
  std::vector<std::vector<uint64_t>> blocked;  // [object][tensor bit]
  std::vector<std::vector<int32_t>> tenants;   // [object] -> tensors sorted by start
  auto is_blocked = [&](int32_t obj, int32_t q) {
    return (blocked[obj][static_cast<size_t>(q) >> 6] >> (q & 63)) & 1;
  };
  auto block = [&](int32_t obj, int32_t q) {
    blocked[obj][static_cast<size_t>(q) >> 6] |= uint64_t{1} << (q & 63);
  };
  auto table_entry = [&](int32_t q, int32_t obj) -> int64_t {  // the source's d[q][obj]
    if (is_blocked(obj, q)) return kInf;
    const auto& t = tenants[obj];
    auto it = std::lower_bound(t.begin(), t.end(), recs[q].start,
                               [&](int32_t a, int64_t s) { return recs[a].start < s; });
    int64_t d = kInf;
    if (it != t.end()) d = std::min(d, dist(q, *it));
    if (it != t.begin()) d = std::min(d, dist(q, *std::prev(it)));
    return d;
  };
  std::vector<int64_t> best_dist(n, kInf);
  std::vector<int32_t> best_obj(n, -1);
  std::vector<int32_t> unassigned(n);
  std::iota(unassigned.begin(), unassigned.end(), 0);
  for (int32_t step = 0; step < n; ++step) {
    if (dl.expired()) {
      o.complete = false;
      o.detail = "time limit (greedy-by-size objects)";
      return o;
    }
    // Highest priority: smaller position, then smaller best_dist, then larger size; the
    // first in index order wins ties (unassigned stays in index order).
    size_t pick = 0;
    for (size_t k = 1; k < unassigned.size(); ++k) {
      const int32_t a = unassigned[k], b = unassigned[pick];
      if (position[a] != position[b] ? position[a] < position[b]
          : best_dist[a] != best_dist[b] ? best_dist[a] < best_dist[b]
                                         : recs[a].size > recs[b].size)
        pick = k;
    }
    const int32_t r = unassigned[pick];
    unassigned.erase(unassigned.begin() + pick);
    int32_t obj;
    const bool fresh = best_dist[r] == kInf;
    if (fresh) {
      obj = static_cast<int32_t>(o.sizes.size());
      o.sizes.push_back(recs[r].size);
      blocked.emplace_back(words, 0);
      tenants.emplace_back();
    } else {
      obj = best_obj[r];
      o.sizes[obj] = std::max(o.sizes[obj], recs[r].size);
    }
    o.ids[r] = obj;
    int64_t visited = 0;
    for (int32_t q : unassigned) {
      // One step updates every unassigned tensor's row (rescanning some): on Y_1 a step
      // alone can take seconds, so the deadline is checked inside it too.
      if ((++visited & 63) == 0 && dl.expired()) {
        o.complete = false;
        o.detail = "time limit (greedy-by-size objects)";
        return o;
      }
      if (!fresh && is_blocked(obj, q)) continue;  // entry already infinite
      const int64_t dq = dist(q, r);
      if (dq == kInf) {
        block(obj, q);
        if (!fresh && best_obj[q] == obj) {
          // Rescan the row, first minimum in object id order wins (r is not yet in
          // tenants[obj], which is blocked for q anyway).
          best_dist[q] = kInf;
          best_obj[q] = -1;
          for (int32_t k = 0; k < static_cast<int32_t>(tenants.size()); ++k) {
            if (k == obj) continue;  // just blocked
            const int64_t e = table_entry(q, k);
            if (e < best_dist[q]) {
              best_dist[q] = e;
              best_obj[q] = k;
            }
          }
        }
        continue;
      }
      if (dq < best_dist[q]) {
        best_dist[q] = dq;
        best_obj[q] = obj;
      }
    }
    auto& t = tenants[obj];
    t.insert(std::upper_bound(t.begin(), t.end(), recs[r].start,
                              [&](int64_t s, int32_t a) { return s < recs[a].start; }),
             r);
  }
  return o;
}

// The source's successive shortest paths (layered Bellman-Ford), exactly as written; used
// while the reuse graph is small, so its tie-breaking (which optimal flow) is the source's.
static Objects min_cost_flow_source(const std::vector<Rec>& recs, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Objects o;
  o.ids.assign(n, -1);
  struct Edge {
    int32_t to;
    int32_t cap;
    int64_t cost;
  };
  std::vector<Edge> edges;
  std::vector<std::vector<int32_t>> adj(2 * n + 2);
  const int32_t source = 2 * n, sink = 2 * n + 1;
  auto L = [](int32_t i) { return i; };
  auto R = [n](int32_t i) { return n + i; };
  auto add_edge = [&](int32_t u, int32_t v, int64_t cost) {
    adj[u].push_back(static_cast<int32_t>(edges.size()));
    edges.push_back({v, 1, cost});
    adj[v].push_back(static_cast<int32_t>(edges.size()));
    edges.push_back({u, 0, -cost});
  };
  constexpr int64_t kMaxEdges = 4'000'000;
  InUse queue;  // (last_task, tensor)
  std::vector<int32_t> finished;
  std::vector<int32_t> new_object_edge(n);
  for (int32_t i : by_first(recs)) {
    while (!queue.empty() && queue.top().first < recs[i].start) {
      finished.push_back(queue.top().second);
      queue.pop();
    }
    if (static_cast<int64_t>(edges.size()) + 2 * (3 + static_cast<int64_t>(finished.size())) >
        2 * kMaxEdges) {
      o.complete = false;
      o.detail = "too large for min-cost flow (> 4M edges)";
      return o;
    }
    add_edge(source, L(i), 0);
    add_edge(R(i), sink, 0);
    new_object_edge[i] = static_cast<int32_t>(edges.size());
    add_edge(source, R(i), recs[i].size);
    for (int32_t j : finished) add_edge(L(j), R(i), std::max<int64_t>(0, recs[i].size - recs[j].size));
    queue.push({recs[i].last(), i});
  }
  // Successive shortest paths; Bellman-Ford processing the queue in rounds (layers).
  const int32_t V = 2 * n + 2;
  std::vector<int64_t> dist(V);
  std::vector<int32_t> parent(V);
  std::vector<char> queued(V);
  for (;;) {
    if (dl.expired()) {
      o.complete = false;
      o.detail = "time limit (min-cost flow)";
      return o;
    }
    std::fill(dist.begin(), dist.end(), kInf);
    std::fill(parent.begin(), parent.end(), -1);
    dist[source] = 0;
    std::vector<int32_t> layer{source}, next;
    while (!layer.empty()) {
      next.clear();
      std::fill(queued.begin(), queued.end(), 0);
      for (int32_t u : layer)
        for (int32_t e : adj[u]) {
          if (edges[e].cap <= 0) continue;
          const int32_t v = edges[e].to;
          if (dist[u] + edges[e].cost < dist[v]) {
            dist[v] = dist[u] + edges[e].cost;
            parent[v] = e;
            if (!queued[v]) {
              queued[v] = 1;
              next.push_back(v);
            }
          }
        }
      layer.swap(next);
    }
    if (dist[sink] == kInf) break;
    for (int32_t v = sink; v != source;) {
      const int32_t e = parent[v];
      edges[e].cap -= 1;
      edges[e ^ 1].cap += 1;
      v = edges[e ^ 1].to;
    }
  }
  // Extraction: each used "new object" edge starts a chain of saturated L_x -> R_y edges.
  std::vector<int32_t> succ(n, -1);
  for (int32_t x = 0; x < n; ++x)
    for (int32_t e : adj[L(x)])
      if ((e & 1) == 0 && edges[e].to >= n && edges[e].to < 2 * n && edges[e].cap == 0)
        succ[x] = edges[e].to - n;
  std::vector<char> opens(n);
  for (int32_t i = 0; i < n; ++i) opens[i] = edges[new_object_edge[i]].cap == 0;
  add_chains(recs, by_first(recs), opens, succ, o);
  return o;
}

// The same min-cost flow, solved as the assignment problem it is: every tensor i (row)
// takes exactly one "slot": its own new object (cost size_i, the source -> R_i edge) or the
// object of a finished tensor j (cost max(0, size_i - size_j), L_j -> R_i), each j handed
// on at most once. Rows are added in first_task order and each gets a shortest augmenting
// path by Dijkstra on reduced costs (Hungarian method with column potentials), which
// stops at the first free slot; the private new-object slot bounds every search. Exact
// (same minimum cost as the source's flow); ties between equal-cost flows may resolve
// differently. O(E log n) per search instead of the source's O(E n) Bellman-Ford rounds.
// `candidates[i]` lists the finished tensors row i may reuse.
static Objects min_cost_flow_assignment(const std::vector<Rec>& recs,
                                 const std::vector<std::vector<int32_t>>& candidates,
                                 const std::vector<int32_t>& rows, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Objects o;
  o.ids.assign(n, -1);
  // Columns: j in [0, n) = L_j (j's object handed on), n + i = row i's new object.
  auto cost = [&](int32_t i, int32_t col) -> int64_t {
    return col >= n ? recs[i].size : std::max<int64_t>(0, recs[i].size - recs[col].size);
  };
  std::vector<int64_t> v(2 * static_cast<size_t>(n), 0);  // column potentials
  std::vector<int32_t> owner(2 * static_cast<size_t>(n), -1);  // column -> row
  std::vector<int32_t> slot(n, -1);                          // row -> column
  std::vector<int64_t> dist(2 * static_cast<size_t>(n), kInf);
  std::vector<int32_t> pred(2 * static_cast<size_t>(n), -1);  // column -> row that reached it
  std::vector<char> done(2 * static_cast<size_t>(n), 0);
  std::vector<int32_t> touched, finalized;
  using Item = std::pair<int64_t, int32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  int64_t searches = 0;
  auto out_of_time = [&] {
    o.complete = false;
    o.detail = "time limit (min-cost flow)";
    return o;
  };
  for (int32_t i0 : rows) {
    // One search can visit most of a 1M-tensor graph: checked before each, and inside.
    if (dl.expired()) return out_of_time();
    // Row potential of the new row: the smallest cost - v, so reduced costs are >= 0.
    int64_t u0 = cost(i0, n + i0) - v[n + i0];
    for (int32_t j : candidates[i0]) u0 = std::min(u0, cost(i0, j) - v[j]);
    auto scan = [&](int32_t r, int64_t d, int64_t u) {
      auto relax = [&](int32_t col) {
        if (done[col]) return;
        const int64_t nd = d + cost(r, col) - u - v[col];
        if (nd < dist[col]) {
          if (dist[col] == kInf) touched.push_back(col);
          dist[col] = nd;
          pred[col] = r;
          heap.push({nd, col});
        }
      };
      relax(n + r);
      for (int32_t j : candidates[r]) relax(j);
    };
    scan(i0, 0, u0);
    int32_t sink = -1;
    int64_t dmin = 0;
    while (!heap.empty()) {
      if ((++searches & 4095) == 0 && dl.expired()) return out_of_time();
      const auto [d, col] = heap.top();
      heap.pop();
      if (done[col] || d != dist[col]) continue;
      if (owner[col] < 0) {
        sink = col;
        dmin = d;
        break;
      }
      done[col] = 1;
      finalized.push_back(col);
      const int32_t r = owner[col];
      scan(r, d, cost(r, col) - v[col]);  // matched edge has reduced cost 0
    }
    // Potentials: finalized columns move by d - dmin (keeps reduced costs >= 0).
    for (int32_t col : finalized) v[col] += dist[col] - dmin;
    // Augment along the alternating path ending at the free column.
    for (int32_t col = sink;;) {
      const int32_t r = pred[col];
      const int32_t prev = slot[r];
      slot[r] = col;
      owner[col] = r;
      if (r == i0) break;
      col = prev;
    }
    for (int32_t col : touched) {
      dist[col] = kInf;
      done[col] = 0;
      pred[col] = -1;
    }
    touched.clear();
    finalized.clear();
    heap = {};
  }
  // Extraction as the source: each row on its own new object starts a chain.
  std::vector<int32_t> succ(n, -1);
  for (int32_t i = 0; i < n; ++i)
    if (slot[i] < n) succ[slot[i]] = i;
  std::vector<char> opens(n);
  for (int32_t i = 0; i < n; ++i) opens[i] = slot[i] == n + i;
  add_chains(recs, rows, opens, succ, o);
  return o;
}

// The candidate lists of every row (all finished tensors, or the near_candidates closest
// in size), then the assignment solver.
static Objects min_cost_flow_with_candidates(const std::vector<Rec>& recs,
                                             const std::vector<int32_t>& rows,
                                             const std::vector<int32_t>& by_last,
                                             const std::vector<int32_t>& finished,
                                             int near_candidates, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  std::vector<std::vector<int32_t>> candidates(n);
  if (near_candidates <= 0) {
    for (int32_t i = 0; i < n; ++i) candidates[i].assign(by_last.begin(), by_last.begin() + finished[i]);
    return min_cost_flow_assignment(recs, candidates, rows, dl);
  }
  // Each row keeps the finished tensors closest in size: half at least as large (free
  // reuse, least waste) and half smaller (least growth); ties by latest finish.
  std::set<std::tuple<int64_t, int64_t, int32_t>> pool;  // (size, -end, id)
  int32_t f = 0;
  int64_t built = 0;
  for (int32_t i : rows) {
    if ((++built & 1023) == 0 && dl.expired()) break;  // the assignment then gives up at once
    for (; f < finished[i]; ++f) {
      const int32_t j = by_last[f];
      pool.insert({recs[j].size, -recs[j].end, j});
    }
    auto up = pool.lower_bound({recs[i].size, std::numeric_limits<int64_t>::min(), -1});
    auto down = up;
    for (int k = 0; k < near_candidates / 2 && up != pool.end(); ++k, ++up)
      candidates[i].push_back(std::get<2>(*up));
    for (int k = 0; k < near_candidates / 2 && down != pool.begin(); ++k)
      candidates[i].push_back(std::get<2>(*--down));
  }
  return min_cost_flow_assignment(recs, candidates, rows, dl);
}

Objects tflite_gpu_min_cost_flow_assignment(const std::vector<Rec>& recs, const Deadline& dl,
                                            int near_candidates) {
  const std::vector<int32_t> rows = by_first(recs, &dl), by_last = by_last_task(recs, &dl);
  if (rows.size() != recs.size() || by_last.size() != recs.size()) {
    Objects o;
    return gave_up(o, "tflite-gpu min-cost flow sort");
  }
  return min_cost_flow_with_candidates(recs, rows, by_last, finished_before(recs, rows, by_last),
                                       near_candidates, dl);
}

Objects tflite_gpu_min_cost_flow(const std::vector<Rec>& recs, const Deadline& dl) {
  // Small reuse graphs run the source's own solver (its tie-breaking); larger ones the
  // exact assignment solver; beyond kFullFlowEdges each row keeps near-size candidates
  // (documented departure, docs/baselines.md).
  const std::vector<int32_t> rows = by_first(recs, &dl), by_last = by_last_task(recs, &dl);
  if (rows.size() != recs.size() || by_last.size() != recs.size()) {
    Objects o;
    return gave_up(o, "tflite-gpu min-cost flow sort");
  }
  const std::vector<int32_t> finished = finished_before(recs, rows, by_last);
  const int64_t edges = std::accumulate(finished.begin(), finished.end(), int64_t{0});
  if (edges <= kSourceFlowEdges) return min_cost_flow_source(recs, dl);
  const int near = edges <= kFullFlowEdges ? 0 : kNearCandidates;
  Objects o = min_cost_flow_with_candidates(recs, rows, by_last, finished, near, dl);
  if (o.complete && near > 0)
    o.detail = "reuse candidates limited to the " + std::to_string(kNearCandidates) +
               " closest in size (graph has " + std::to_string(edges) + " edges)";
  return o;
}

Objects tflite_gpu_greedy_best(const std::vector<Rec>& recs, const Deadline& dl) {
  Objects by_size = tflite_gpu_greedy_by_size_objects(recs, dl);
  Objects breadth = tflite_gpu_greedy_by_breadth(recs, dl);
  if (!by_size.complete) return breadth;
  if (breadth.complete && breadth.total() < by_size.total()) return breadth;
  return by_size;
}

Plan tflite_gpu_greedy_by_size(const std::vector<Rec>& recs, int64_t base_align,
                               const Deadline& dl) {
  Plan plan;
  InsertionList list(recs, plan, dl, "tflite-gpu greedy-by-size");
  if (!plan.complete) return plan;
  std::vector<int32_t> order = list.commit_fixed();  // pre-placed: occupied from the start
  auto commit = [&](int32_t i, int64_t off) { list.commit(i, off); };
  if (!sort_or_give_up(order, dl, plan, "tflite-gpu greedy-by-size",
                       [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; }))
    return plan;
  std::vector<Hit> hits;
  int64_t steps = 0;
  for (int32_t i : order) {
    if (out_of_time(dl, steps, plan, "tflite-gpu greedy-by-size")) return plan;
    const Rec& r = recs[i];
    // The source walks its offset-ordered list (equal offsets in insertion order) and skips
    // tensors that do not overlap r; we sort just the overlapping ones the same way.
    list.hits(r.start, r.end, hits);
    int64_t prev = 0, best_gap = kInf, best_off = -1;
    for (const Hit& h : hits) {
      if (h.offset >= prev) {
        const int64_t gap = h.offset - prev;
        if (gap >= r.size && gap < best_gap) {
          best_gap = gap;
          best_off = prev;
        }
      }
      // Tops are aligned with the source's base alignment and (our addition) r's own.
      prev = std::max(prev, round_up(round_up(sat_add(h.offset, recs[h.idx].size), base_align),
                                     r.align));
    }
    if (best_off < 0) best_off = prev;
    commit(i, best_off);
  }
  return plan;
}

void register_tflite_gpu(std::vector<SolverInfo>& out) {
  auto objects_solver = [](Objects (*fn)(const std::vector<Rec>&, const Deadline&)) {
    return [fn](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
      return with_fixed_below(recs, [&](const std::vector<Rec>& free_recs) {
        return objects_to_offsets(free_recs, fn(free_recs, dl));
      });
    };
  };
  add_solver(out, "tflite-gpu-greedy-by-size",
             "TFLite GPU GREEDY_BY_SIZE offsets: size desc, best gap below overlapping tensors",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return tflite_gpu_greedy_by_size(recs, 1, dl);
             });
  add_solver(out, "tflite-gpu-greedy-by-size-objects",
             "TFLite GPU GREEDY_BY_SIZE shared objects (GreedyBySizeDistPriority), laid out",
             objects_solver(tflite_gpu_greedy_by_size_objects));
  add_solver(out, "tflite-gpu-greedy-by-breadth",
             "TFLite GPU GREEDY_BY_BREADTH shared objects, laid out back-to-back",
             objects_solver(tflite_gpu_greedy_by_breadth));
  add_solver(out, "tflite-gpu-greedy-in-order",
             "TFLite GPU GREEDY_IN_ORDER shared objects, laid out back-to-back",
             objects_solver([](const std::vector<Rec>& r, const Deadline& dl) {
               return tflite_gpu_greedy_in_order(r, dl);
             }));
  add_solver(out, "tflite-gpu-equality",
             "TFLite GPU EQUALITY shared objects (reuse equal sizes only), laid out",
             objects_solver([](const std::vector<Rec>& r, const Deadline& dl) {
               return tflite_gpu_equality(r, dl);
             }));
  add_solver(out, "tflite-gpu-naive", "TFLite GPU NAIVE: one object per tensor (no reuse)",
             objects_solver([](const std::vector<Rec>& r, const Deadline&) {
               return tflite_gpu_naive(r);
             }));
  add_solver(out, "tflite-gpu-min-cost-flow",
             "TFLite GPU MINCOSTFLOW shared objects (min-cost reuse chains), laid out",
             objects_solver(tflite_gpu_min_cost_flow));
  add_solver(out, "tflite-gpu-greedy-best",
             "TFLite GPU GREEDY_BEST: better of greedy-by-size objects and by-breadth",
             objects_solver(tflite_gpu_greedy_best));
  add_solver(out, "tflite-gpu-as-deployed",
             "TFLite GPU backends: GREEDY_BY_SIZE offsets unless GREEDY_BEST objects are smaller",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               Plan offsets = tflite_gpu_greedy_by_size(recs, 1, dl);
               if (!offsets.complete) return offsets;
               Plan objects = with_fixed_below(recs, [&](const std::vector<Rec>& free_recs) {
                 return objects_to_offsets(free_recs, tflite_gpu_greedy_best(free_recs, dl));
               });
               if (!objects.complete || offsets.total <= objects.total) {
                 offsets.detail = objects.complete ? "chose=offsets" : "chose=offsets (objects gave up)";
                 return offsets;
               }
               objects.detail = "chose=objects";
               return objects;
             });
}

}  // namespace memplan::baselines
