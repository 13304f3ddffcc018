// The production scheduling heuristics, reimplemented from the research note's
// descriptions (§3 XLA, §4 Inductor), on one block at a time, plus the local search.
#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>

#include "schedule/heuristics.h"

namespace memplan::sched {

namespace {

using Key = std::tuple<int64_t, int64_t, int64_t>;  // smaller first; then graph position

// In-block predecessors not yet scheduled, per local index.
std::vector<int32_t> in_degrees(const BlockView& b) {
  std::vector<int32_t> deg(b.size(), 0);
  for (int32_t i = 0; i < b.size(); ++i) {
    const int32_t v = b.node(i);
    for (const int32_t* u = b.m->preds.begin(v); u != b.m->preds.end(v); ++u) deg[i] += b.pred_inside(*u);
  }
  return deg;
}

// List scheduling with priorities read from the state before every choice: the ready
// operator of smallest key (ties: graph position) runs next. O(width) per step; past the
// deadline the rest runs in ready-list order (O(1) per step).
std::vector<int32_t> greedy(const BlockView& b, Sweep& s, const Clock& clock,
                            const std::function<Key(int32_t v, const Sweep&)>& key) {
  std::vector<int32_t> deg = in_degrees(b), ready, order;
  for (int32_t i = 0; i < b.size(); ++i)
    if (deg[i] == 0) ready.push_back(i);
  s.mark();
  bool late = false;
  while (!ready.empty()) {
    size_t best = 0;
    Key best_key{};
    if (!late && (order.size() & 255) == 255) late = clock.expired();
    for (size_t r = 0; !late && r < ready.size(); ++r) {
      const Key k = key(b.node(ready[r]), s);
      if (r == 0 || k < best_key || (k == best_key && ready[r] < ready[best])) {
        best = r;
        best_key = k;
      }
    }
    const int32_t v = b.node(ready[best]);
    ready[best] = ready.back();
    ready.pop_back();
    order.push_back(v);
    s.run(v);
    for (const int32_t* w = b.m->succs.begin(v); w != b.m->succs.end(v); ++w)
      if (b.succ_inside(*w) && --deg[b.local(*w)] == 0) ready.push_back(b.local(*w));
  }
  s.rollback();
  return order;
}

// Post-order DFS: from each root in turn, visit the unvisited in-block predecessors in
// the order `preds_of` lists them, emit a node after them. Iterative (deep chains).
std::vector<int32_t> post_order(const BlockView& b, const std::vector<int32_t>& roots,
                                const std::function<std::vector<int32_t>(int32_t v)>& preds_of) {
  std::vector<char> visited(b.size(), 0);
  std::vector<int32_t> order;
  struct Frame { int32_t v; std::vector<int32_t> preds; size_t next; };
  std::vector<Frame> stack;
  for (int32_t r : roots) {
    if (visited[b.local(r)]) continue;
    visited[b.local(r)] = 1;
    stack.push_back({r, preds_of(r), 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.preds.size()) {
        const int32_t u = f.preds[f.next++];
        if (!visited[b.local(u)]) {
          visited[b.local(u)] = 1;
          stack.push_back({u, preds_of(u), 0});
        }
        continue;
      }
      order.push_back(f.v);
      stack.pop_back();
    }
  }
  return order;
}

std::vector<int32_t> inside_preds(const BlockView& b, int32_t v) {
  std::vector<int32_t> p;
  for (const int32_t* u = b.m->preds.begin(v); u != b.m->preds.end(v); ++u)
    if (b.pred_inside(*u)) p.push_back(*u);
  return p;
}

// Block sinks (no successor inside the block) in graph order.
std::vector<int32_t> sinks(const BlockView& b) {
  std::vector<int32_t> r;
  for (int32_t i = 0; i < b.size(); ++i) {
    const int32_t v = b.node(i);
    bool inner = false;
    for (const int32_t* w = b.m->succs.begin(v); w != b.m->succs.end(v); ++w) inner |= b.succ_inside(*w);
    if (!inner) r.push_back(v);
  }
  return r;
}

int64_t sat_add(int64_t a, int64_t b, int64_t cap) { return std::min(cap, a > cap - b ? cap : a + b); }

// XLA's DFS scheduler: operands visited by decreasing cumulative extra users, then
// decreasing cumulative bytes (both summed over predecessors, so double-counted in a DAG,
// and capped as XLA does), then graph position.
std::vector<int32_t> xla_dfs(const BlockView& b) {
  const Model& m = *b.m;
  int64_t total_bytes = 0;
  for (int32_t i = 0; i < b.size(); ++i) total_bytes = sat_add(total_bytes, m.alloc[b.node(i)], INT64_MAX);
  std::vector<int64_t> users(b.size()), bytes(b.size());
  for (int32_t i = 0; i < b.size(); ++i) {  // graph order: predecessors first
    const int32_t v = b.node(i);
    int64_t u = std::max(0, m.succs.size(v) - 1), s = m.alloc[v];
    for (int32_t p : inside_preds(b, v)) {
      u = sat_add(u, users[b.local(p)], b.size());
      s = sat_add(s, bytes[b.local(p)], total_bytes);
    }
    users[i] = u;
    bytes[i] = s;
  }
  auto by_key = [&](std::vector<int32_t> list) {
    std::sort(list.begin(), list.end(), [&](int32_t x, int32_t y) {
      const int32_t a = b.local(x), c = b.local(y);
      return std::make_tuple(-users[a], -bytes[a], a) < std::make_tuple(-users[c], -bytes[c], c);
    });
    return list;
  };
  return post_order(b, by_key(sinks(b)), [&](int32_t v) { return by_key(inside_preds(b, v)); });
}

// Inductor's DFS: nodes by ascending size (outputs + inputs), unmet dependencies first in
// the same order, emitted in post-order.
std::vector<int32_t> inductor_dfs(const BlockView& b) {
  const Model& m = *b.m;
  std::vector<int64_t> size(b.size());
  for (int32_t i = 0; i < b.size(); ++i) {
    const int32_t v = b.node(i);
    size[i] = m.alloc[v];
    for (const int32_t* f = m.reads.begin(v); f != m.reads.end(v); ++f) size[i] += m.bytes[*f];
  }
  auto by_size = [&](std::vector<int32_t> list) {
    std::stable_sort(list.begin(), list.end(), [&](int32_t x, int32_t y) {
      return std::make_pair(size[b.local(x)], b.local(x)) < std::make_pair(size[b.local(y)], b.local(y));
    });
    return list;
  };
  std::vector<int32_t> all(b.size());
  for (int32_t i = 0; i < b.size(); ++i) all[i] = b.node(i);
  return post_order(b, by_size(all), [&](int32_t v) { return by_size(inside_preds(b, v)); });
}

// Inductor's BFS: first ready, first run (the step at which the last predecessor ran).
std::vector<int32_t> bfs(const BlockView& b) {
  std::vector<int32_t> deg = in_degrees(b), order;
  using Item = std::pair<int64_t, int32_t>;  // (ready since, local index)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (int32_t i = 0; i < b.size(); ++i)
    if (deg[i] == 0) ready.push({-1, i});
  while (!ready.empty()) {
    const int32_t v = b.node(ready.top().second);
    ready.pop();
    const auto step = static_cast<int64_t>(order.size());
    order.push_back(v);
    for (const int32_t* w = b.m->succs.begin(v); w != b.m->succs.end(v); ++w)
      if (b.succ_inside(*w) && --deg[b.local(*w)] == 0) ready.push({step, b.local(*w)});
  }
  return order;
}

}  // namespace

const char* heuristic_name(Heuristic h) {
  switch (h) {
    case Heuristic::kGraph: return "graph";
    case Heuristic::kXlaList: return "xla-list";
    case Heuristic::kXlaDfs: return "xla-dfs";
    case Heuristic::kXlaPostorder: return "xla-postorder";
    case Heuristic::kLpmf: return "lpmf";
    case Heuristic::kBfs: return "bfs";
    case Heuristic::kInductorDfs: return "inductor-dfs";
  }
  return "?";
}

std::vector<int32_t> heuristic_order(Heuristic h, const BlockView& b, Sweep& s, const Clock& clock) {
  const Model& m = *b.m;
  switch (h) {
    case Heuristic::kGraph: {
      std::vector<int32_t> order(b.size());
      for (int32_t i = 0; i < b.size(); ++i) order[i] = b.node(i);
      return order;
    }
    case Heuristic::kXlaList:
      // Highest (bytes freed - bytes defined) first, then most users (XLA's list
      // scheduler; "defined" net of an in-place reuse). The freed bytes of a buffer's
      // last reader change as its other readers run: read afresh at every step.
      return greedy(b, s, clock, [&](int32_t v, const Sweep& st) {
        const int64_t defined = m.alloc[v] + m.scratch[v] - st.savings(v);
        return Key{defined - st.freed(v), -m.succs.size(v), 0};
      });
    case Heuristic::kXlaDfs: return xla_dfs(b);
    case Heuristic::kXlaPostorder: {
      return post_order(b, sinks(b), [&](int32_t v) { return inside_preds(b, v); });
    }
    case Heuristic::kLpmf:
      // Least peak memory first: (max(memory at this step, peak so far), size - freed).
      return greedy(b, s, clock, [&](int32_t v, const Sweep& st) {
        const int64_t here = st.mem(v);
        return Key{std::max(here, st.peak()), m.alloc[v] + m.scratch[v] - st.savings(v) - st.freed(v), 0};
      });
    case Heuristic::kBfs: return bfs(b);
    case Heuristic::kInductorDfs: return inductor_dfs(b);
  }
  return {};
}

BlockScore score_block(const std::vector<int32_t>& order, Sweep& s) {
  s.mark();
  for (int32_t v : order) s.run(v);
  const BlockScore r{s.peak(), s.area()};
  s.rollback();
  return r;
}

BlockScore local_search(const BlockView& b, Sweep& s, std::vector<int32_t>& order,
                        int64_t evals, std::mt19937_64& rng, const Clock& clock) {
  BlockScore cur = score_block(order, s);
  const int32_t n = b.size();
  if (n < 3) return cur;
  std::vector<int32_t> where(n);  // local index -> position in `order`
  for (int32_t k = 0; k < n; ++k) where[b.local(order[k])] = k;
  auto move = [&](int32_t from, int32_t to) {
    if (from < to)
      std::rotate(order.begin() + from, order.begin() + from + 1, order.begin() + to + 1);
    else
      std::rotate(order.begin() + to, order.begin() + from, order.begin() + from + 1);
    for (int32_t k = std::min(from, to); k <= std::max(from, to); ++k) where[b.local(order[k])] = k;
  };
  for (int64_t e = 0; e < evals; ++e) {
    if ((e & 63) == 0 && clock.expired()) break;
    const auto i = static_cast<int32_t>(rng() % static_cast<uint64_t>(n));
    const int32_t v = order[i];
    int32_t lo = 0, hi = n - 1;  // where v may go
    for (const int32_t* u = b.m->preds.begin(v); u != b.m->preds.end(v); ++u)
      if (b.pred_inside(*u)) lo = std::max(lo, where[b.local(*u)] + 1);
    for (const int32_t* w = b.m->succs.begin(v); w != b.m->succs.end(v); ++w)
      if (b.succ_inside(*w)) hi = std::min(hi, where[b.local(*w)] - 1);
    if (hi - lo < 1) continue;
    auto t = static_cast<int32_t>(lo + rng() % static_cast<uint64_t>(hi - lo));
    if (t >= i) ++t;  // any place in [lo, hi] but i
    move(i, t);
    const BlockScore next = score_block(order, s);
    if (next < cur || !(cur < next)) {
      cur = next;
    } else {
      move(t, i);
    }
  }
  return cur;
}

BlockStart capture_start(const BlockView& b, const Sweep& s) {
  BlockStart st;
  st.live = s.live();
  st.step = s.step();
  for (int32_t i = 0; i < b.size(); ++i) {
    const int32_t v = b.node(i);
    for (const int32_t* f = b.m->reads.begin(v); f != b.m->reads.end(v); ++f)
      if (std::find(st.families.begin(), st.families.end(), *f) == st.families.end()) {
        st.families.push_back(*f);
        st.remaining.push_back(s.remaining(*f));
      }
  }
  return st;
}

}  // namespace memplan::sched
