// The max-weight antichain bound (bounds.h) by weighted Dilworth: min flow = max flow
// complement on a sparse order network, antichain read from a residual cut.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "memplan/bounds.h"

namespace memplan {
namespace {

constexpr int64_t kInf = INT64_MAX / 2;

// Max flow by Dinic (level graph + blocking flow with current-arc pointers, iterative so
// that long chains do not exhaust the stack). Arc e's reverse is e ^ 1.
struct FlowNet {
  std::vector<int32_t> to;
  std::vector<int64_t> cap;
  std::vector<int32_t> tail;
  int32_t nodes = 0;

  void arc(int32_t u, int32_t v, int64_t c) {
    tail.push_back(u), to.push_back(v), cap.push_back(c);
    tail.push_back(v), to.push_back(u), cap.push_back(0);
  }

  // Runs until no augmenting path is left or `stop` says so; returns the nodes reachable
  // from `s` in the final residual graph (as levels >= 0).
  std::vector<int32_t> run(int32_t s, int32_t t, const std::function<bool()>& stop, bool& finished) {
    const int32_t m = static_cast<int32_t>(to.size());
    std::vector<int32_t> first(nodes + 1, 0), arcs(m);
    for (int32_t e = 0; e < m; ++e) ++first[tail[e] + 1];
    std::partial_sum(first.begin(), first.end(), first.begin());
    {
      std::vector<int32_t> fill(first.begin(), first.end() - 1);
      for (int32_t e = 0; e < m; ++e) arcs[fill[tail[e]]++] = e;
    }
    // The arcs in CSR order, each with its reverse's position: the scans below read
    // contiguous memory instead of going through arcs[k] to to[] and cap[] (1.4x faster on
    // generated 4-stream programs of 40k-80k buffers, where every phase scans ~1.6M arcs).
    std::vector<int32_t> pos(m), cto(m), crev(m);
    std::vector<int64_t> ccap(m);
    for (int32_t k = 0; k < m; ++k) pos[arcs[k]] = k;
    for (int32_t k = 0; k < m; ++k) cto[k] = to[arcs[k]], ccap[k] = cap[arcs[k]], crev[k] = pos[arcs[k] ^ 1];
    std::vector<int32_t> level(nodes), it(nodes), queue(nodes), path;
    // Levels from s. A phase needs them only up to t's level (`full` = false stops there);
    // the set returned must be all of the residual graph's reach (`full`).
    auto bfs = [&](bool full) {
      std::fill(level.begin(), level.end(), -1);
      level[s] = 0;
      size_t head = 0, size = 0;
      queue[size++] = s;
      while (head < size) {
        const int32_t u = queue[head++];
        if (!full && level[t] >= 0 && level[u] >= level[t]) break;
        for (int32_t k = first[u]; k < first[u + 1]; ++k)
          if (ccap[k] > 0 && level[cto[k]] < 0) level[cto[k]] = level[u] + 1, queue[size++] = cto[k];
      }
      return level[t] >= 0;
    };
    finished = false;
    while (bfs(false)) {
      if (stop && stop()) {
        bfs(true);
        return level;
      }
      std::copy(first.begin(), first.end() - 1, it.begin());
      path.clear();  // arcs (CSR positions) from s to the current node
      int32_t u = s;
      while (true) {
        if (u == t) {
          int64_t push = kInf;
          for (int32_t k : path) push = std::min(push, ccap[k]);
          size_t cut = path.size();
          for (size_t k = path.size(); k-- > 0;) {
            ccap[path[k]] -= push, ccap[crev[path[k]]] += push;
            if (ccap[path[k]] == 0) cut = k;
          }
          path.resize(cut);  // back to the tail of the first saturated arc
          u = path.empty() ? s : cto[path.back()];
          continue;
        }
        bool advanced = false;
        for (; it[u] < first[u + 1]; ++it[u]) {
          const int32_t k = it[u];
          if (ccap[k] > 0 && level[cto[k]] == level[u] + 1) {
            path.push_back(k);
            u = cto[k];
            advanced = true;
            break;
          }
        }
        if (advanced) continue;
        if (u == s) break;
        level[u] = -1;  // dead end for this phase
        path.pop_back();
        u = path.empty() ? s : cto[path.back()];
        ++it[u];
      }
    }
    // t was not reached, so that search ran to the end: `level` is the whole reach.
    finished = true;
    return level;
  }
};

bool dominates(const int64_t* x, const int64_t* y, size_t S) {  // x >= y componentwise
  for (size_t t = 0; t < S; ++t)
    if (x[t] < y[t]) return false;
  return true;
}

}  // namespace

std::optional<Antichain> antichain_bound(const Problem& p, const std::function<bool()>& stop, int64_t max_arcs) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  const size_t S = static_cast<size_t>(p.clock_dim);
  if (S == 0 || p.clock_lower.size() != n * S || p.clock_upper.size() != n * S) return std::nullopt;
  int64_t total = 0;
  for (const Buffer& b : p.buffers) {
    if (!b.inplace_of.empty()) return std::nullopt;
    if (b.size > kInf / 4 - total) return std::nullopt;
    total += b.size;
  }
  const int64_t* lo = p.clock_lower.data();
  const int64_t* up = p.clock_upper.data();
  // Distinct lower clocks in a linear extension order (sum of components, then lexicographic).
  std::vector<int64_t> sum(n, 0);
  for (int32_t i = 0; i < n; ++i)
    for (size_t t = 0; t < S; ++t) sum[i] += lo[i * S + t];
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto lex_less = [&](int32_t a, int32_t b) {
    if (sum[a] != sum[b]) return sum[a] < sum[b];
    return std::lexicographical_compare(lo + a * S, lo + (a + 1) * S, lo + b * S, lo + (b + 1) * S);
  };
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return lex_less(a, b) || (!lex_less(b, a) && a < b); });
  std::vector<int32_t> clock_of(n);  // buffer -> distinct lower clock
  std::vector<int32_t> rep;          // distinct clock -> a buffer having it
  for (int32_t i : order) {
    if (rep.empty() || lex_less(rep.back(), i)) rep.push_back(i);
    clock_of[i] = static_cast<int32_t>(rep.size()) - 1;
  }
  // Greedy chains: each clock joins the first chain whose last clock it dominates. In
  // the order above a dominated clock always comes first, so each chain is increasing.
  std::vector<std::vector<int32_t>> chains;  // distinct clock ids, increasing
  for (int32_t d = 0; d < static_cast<int32_t>(rep.size()); ++d) {
    bool placed = false;
    for (auto& c : chains)
      if (dominates(lo + rep[d] * S, lo + rep[c.back()] * S, S)) {
        c.push_back(d), placed = true;
        break;
      }
    if (!placed) {
      chains.push_back({d});
      if (static_cast<int64_t>(chains.size()) * n > max_arcs) return std::nullopt;
    }
  }
  // Nodes: 0 source, 1 sink, 2 + a: out(a), 2 + n + a: in(a), 2 + 2n + d: lower clock d.
  // Flow source -> out(a) -> (order arcs) -> in(b) -> sink. The order is transitive and
  // out(a) reaches in(b) iff a < b, so this bipartite form (weighted Dilworth / Fulkerson)
  // needs no in(b) -> out(b) arcs: max flow = total - max antichain weight.
  FlowNet net;
  const int32_t D = static_cast<int32_t>(rep.size());
  net.nodes = 2 + 2 * n + D;
  auto out = [&](int32_t a) { return 2 + a; };
  auto in = [&](int32_t a) { return 2 + n + a; };
  auto clk = [&](int32_t d) { return 2 + 2 * n + d; };
  for (int32_t a = 0; a < n; ++a) {
    net.arc(0, out(a), p.buffers[a].size);
    net.arc(in(a), 1, p.buffers[a].size);
    net.arc(clk(clock_of[a]), in(a), kInf);
  }
  // Along each chain, successor arcs. (Extra power-of-two stride arcs, for shorter paths,
  // made Dinic 4.5 times slower on the generated 10k-buffer 4-stream program.)
  for (const auto& c : chains)
    for (size_t k = 0; k + 1 < c.size(); ++k) net.arc(clk(c[k]), clk(c[k + 1]), kInf);
  // a < b iff up(a) <= lo(b): along each chain the first clock that dominates up(a), and
  // from there every later one, which is exactly the chain's part after a.
  for (int32_t a = 0; a < n; ++a)
    for (const auto& c : chains) {
      auto k = std::partition_point(c.begin(), c.end(),
                                    [&](int32_t d) { return !dominates(lo + rep[d] * S, up + a * S, S); });
      if (k != c.end()) net.arc(out(a), clk(*k), kInf);
    }
  bool finished = false;
  const std::vector<int32_t> level = net.run(0, 1, stop, finished);
  // X = reachable from the source. No infinite arc leaves X (its residual never drops to
  // 0), so {v : out(v) in X, in(v) not in X} is an antichain: a path out(a) -> in(b) for
  // a < b would have to leave X along infinite arcs. Its weight is at least total minus
  // the cut's capacity (a buffer with in(v) in X, out(v) not, only lowers that), which is
  // total minus the max flow when the flow is maximum: then it is a heaviest antichain.
  Antichain r;
  r.exact = finished;
  for (int32_t v = 0; v < n; ++v)
    if (level[out(v)] >= 0 && level[in(v)] < 0) r.members.push_back(v), r.weight += p.buffers[v].size;
  return r;
}

}  // namespace memplan
