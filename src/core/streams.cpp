#include "memplan/streams.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <climits>
#include <map>
#include <stdexcept>
#include <string>

namespace memplan {

std::vector<int64_t> death_clocks(const std::vector<StreamBuffer>& bufs, int32_t streams) {
  const size_t S = static_cast<size_t>(streams);
  std::vector<int64_t> d(bufs.size() * S, 0);
  for (size_t i = 0; i < bufs.size(); ++i) {
    d[i * S + bufs[i].stream] = bufs[i].upper;
    for (auto [t, q] : bufs[i].reads) d[i * S + t] = std::max(d[i * S + t], q + 1);
  }
  return d;
}

// The clocks are joined at "join points": the ops that wait for an event (producers of
// buffers with `after`). The clock of any op is the clock of the last join point at or
// before it on its stream, with its own component raised to its index. Join points are
// evaluated in a topological order (Kahn) of the dependencies between them.
std::vector<int64_t> birth_clocks(const std::vector<StreamBuffer>& bufs, int32_t streams) {
  const int32_t n = static_cast<int32_t>(bufs.size());
  const size_t S = static_cast<size_t>(streams);
  for (int32_t i = 0; i < n; ++i) {
    const StreamBuffer& b = bufs[i];
    const std::string who = "buffer " + std::to_string(i);
    if (b.stream < 0 || b.stream >= streams || b.lower < 0 || b.upper <= b.lower)
      throw std::invalid_argument(who + ": stream or lifetime out of range");
    // The streams' ops together get one time each (problem_from_streams): bounded so that
    // their count stays below INT64_MAX.
    const int64_t max_op = INT64_MAX / (static_cast<int64_t>(streams) + 1);
    if (b.upper > max_op) throw std::invalid_argument(who + ": op position above " + std::to_string(max_op));
    for (int32_t a : b.after)
      if (a < 0 || a >= n || a == i) throw std::invalid_argument(who + ": bad 'after' index");
    for (auto [t, q] : b.reads)
      if (t < 0 || t >= streams || q < 0 || q >= max_op) throw std::invalid_argument(who + ": bad reader (stream, op)");
  }
  const std::vector<int64_t> death = death_clocks(bufs, streams);
  // Join points per stream, by position: (stream, position) -> id.
  std::vector<std::map<int64_t, int32_t>> joins(S);
  std::vector<std::pair<int32_t, int64_t>> where;  // id -> (stream, position)
  for (const StreamBuffer& b : bufs)
    if (!b.after.empty() && joins[b.stream].emplace(b.lower, static_cast<int32_t>(where.size())).second)
      where.emplace_back(b.stream, b.lower);
  const int32_t m = static_cast<int32_t>(where.size());
  // The last join point at or before position p on stream s, or -1.
  auto last_join = [&](int32_t s, int64_t p) -> int32_t {
    auto it = joins[s].upper_bound(p);
    return it == joins[s].begin() ? -1 : std::prev(it)->second;
  };
  // Sources of each join point: every use (stream, op) of every awaited buffer.
  std::vector<std::vector<std::pair<int32_t, int64_t>>> sources(m);
  for (const StreamBuffer& b : bufs)
    for (int32_t a : b.after)
      for (size_t t = 0; t < S; ++t)
        if (death[a * S + t] > 0) sources[joins[b.stream][b.lower]].emplace_back(static_cast<int32_t>(t), death[a * S + t] - 1);
  // Dependencies: the previous join on the same stream, and the join governing each source.
  std::vector<std::vector<int32_t>> users(m);
  std::vector<int32_t> indeg(m, 0);
  auto depend = [&](int32_t j, int32_t on) {
    if (on >= 0) users[on].push_back(j), ++indeg[j];
  };
  for (int32_t j = 0; j < m; ++j) {
    depend(j, last_join(where[j].first, where[j].second - 1));
    for (auto [t, q] : sources[j]) depend(j, last_join(t, q));
  }
  std::vector<int64_t> jc(static_cast<size_t>(m) * S, 0);
  std::vector<int32_t> ready;
  for (int32_t j = 0; j < m; ++j)
    if (indeg[j] == 0) ready.push_back(j);
  int32_t done = 0;
  auto join_into = [&](int64_t* dst, int32_t from) {
    if (from < 0) return;
    for (size_t t = 0; t < S; ++t) dst[t] = std::max(dst[t], jc[from * S + t]);
  };
  while (!ready.empty()) {
    const int32_t j = ready.back();
    ready.pop_back();
    ++done;
    int64_t* c = &jc[j * S];
    const auto [s, k] = where[j];
    join_into(c, last_join(s, k - 1));
    for (auto [t, q] : sources[j]) {
      join_into(c, last_join(t, q));
      c[t] = std::max(c[t], q + 1);  // the awaited op has completed
    }
    c[s] = std::max(c[s], k);
    for (int32_t u : users[j])
      if (--indeg[u] == 0) ready.push_back(u);
  }
  if (done < m)  // name a buffer whose producer waits on the cycle (its join point never became ready)
    for (int32_t i = 0; i < n; ++i)
      if (!bufs[i].after.empty() && indeg[joins[bufs[i].stream][bufs[i].lower]] > 0)
        throw std::invalid_argument("buffer " + std::to_string(i) +
                                    ": its dependencies form a cycle across the streams (they would deadlock)");
  if (done < m) throw std::invalid_argument("the dependencies form a cycle across the streams (they would deadlock)");
  std::vector<int64_t> clock(static_cast<size_t>(n) * S, 0);
  for (int32_t i = 0; i < n; ++i) {
    int64_t* c = &clock[i * S];
    join_into(c, last_join(bufs[i].stream, bufs[i].lower));
    // An event that waits for an op at or after the waiting op on its own stream is a cycle.
    if (c[bufs[i].stream] > bufs[i].lower)
      throw std::invalid_argument("buffer " + std::to_string(i) + " waits for a later op of its own stream (a cycle)");
    c[bufs[i].stream] = bufs[i].lower;
  }
  return clock;
}

namespace {

// A perfect max tree over `leaves` (padded with INT64_MIN to a power of two `width`).
std::vector<int64_t> max_tree(const std::vector<int64_t>& leaves, size_t width) {
  std::vector<int64_t> tr(2 * width, INT64_MIN);
  std::copy(leaves.begin(), leaves.end(), tr.begin() + static_cast<std::ptrdiff_t>(width));
  for (size_t k = width; k-- > 1;) tr[k] = std::max(tr[2 * k], tr[2 * k + 1]);
  return tr;
}

// Calls hit(k) for every leaf k < prefix whose value exceeds `c`, visiting only subtrees
// that hold one: O((hits + 1) log width). `todo` is scratch.
template <class Hit>
void leaves_above(const std::vector<int64_t>& tr, size_t width, size_t prefix, int64_t c,
                  std::vector<std::array<size_t, 3>>& todo, Hit&& hit) {
  todo.assign(1, {1, 0, width});
  while (!todo.empty()) {
    const auto [id, lo, hi] = todo.back();
    todo.pop_back();
    if (lo >= prefix || tr[id] <= c) continue;
    if (hi - lo == 1) {
      hit(lo);
      continue;
    }
    const size_t mid = (lo + hi) / 2;
    todo.push_back({2 * id + 1, mid, hi});
    todo.push_back({2 * id, lo, mid});
  }
}

size_t pow2_at_least(size_t n) {
  size_t w = 1;
  while (w < n) w <<= 1;
  return w;
}

}  // namespace

// For b, a conflicts iff (1) a is not dead before b: death_a[t] > birth_b[t] for some t, and
// (2) b is not dead before a: death_b[t'] > birth_a[t'] for some t'. Births only grow along
// a stream, so (2) holds on a prefix of each stream's buffers by producer position (the
// longest of the prefixes for each t'). (1) is answered on that prefix, for each t, by a
// max tree over death[t], reporting only hits: O((hits + 1) S^2 log n) per buffer.
bool stream_conflicts(const std::vector<StreamBuffer>& bufs, int32_t streams, const std::vector<int64_t>& birth,
                      const std::vector<int64_t>& death, const PairSink& emit, const std::function<bool()>& stop) {
  const int32_t n = static_cast<int32_t>(bufs.size());
  const size_t S = static_cast<size_t>(streams);
  std::vector<std::vector<int32_t>> on(S);
  for (int32_t i = 0; i < n; ++i) on[bufs[i].stream].push_back(i);
  size_t width = 1;
  for (auto& v : on) {
    std::stable_sort(v.begin(), v.end(), [&](int32_t a, int32_t b) { return bufs[a].lower < bufs[b].lower; });
    width = std::max(width, pow2_at_least(v.size()));
  }
  // tree[s * S + t]: max of death[t] over stream s's buffers by position.
  std::vector<std::vector<int64_t>> tree(S * S);
  std::vector<int64_t> leaves;
  for (size_t s = 0; s < S; ++s)
    for (size_t t = 0; t < S; ++t) {
      leaves.clear();
      for (int32_t a : on[s]) leaves.push_back(death[a * S + t]);
      tree[s * S + t] = max_tree(leaves, width);
    }
  std::vector<std::array<size_t, 3>> todo;
  std::vector<int32_t> mark(n, -1);  // a already reported for b
  bool full = false;
  for (int32_t b = 0; b < n && !full; ++b) {
    if ((b & 255) == 0 && stop && stop()) return false;
    for (size_t s = 0; s < S; ++s) {
      const auto& v = on[s];
      size_t prefix = 0;
      for (size_t t2 = 0; t2 < S; ++t2) {
        const int64_t d = death[b * S + t2];
        if (d == 0) continue;
        prefix = std::max(prefix, static_cast<size_t>(std::partition_point(v.begin(), v.end(), [&](int32_t a) {
                                                        return birth[a * S + t2] < d;
                                                      }) - v.begin()));
      }
      for (size_t t = 0; t < S && prefix > 0 && !full; ++t)
        leaves_above(tree[s * S + t], width, prefix, birth[b * S + t], todo, [&](size_t k) {
          const int32_t a = v[k];
          if (a < b && mark[a] != b && !full) {  // each pair once, from its larger index
            mark[a] = b;
            full = !emit(a, b);
          }
        });
    }
  }
  return !full;
}

// For b and an earlier-starting a, b cannot be dead before a (that would put b's start first),
// so they conflict iff upper(a)[t] > lower(b)[t] for some t.
bool clock_conflicts(int32_t dim, const std::vector<int64_t>& lower, const std::vector<int64_t>& upper,
                     const std::vector<int64_t>& start, const PairSink& emit, const std::function<bool()>& stop) {
  const size_t n = start.size(), S = static_cast<size_t>(dim);
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return start[a] < start[b]; });
  const size_t width = pow2_at_least(n);
  std::vector<std::vector<int64_t>> tree(S);
  std::vector<int64_t> leaves(n);
  for (size_t t = 0; t < S; ++t) {
    for (size_t k = 0; k < n; ++k) leaves[k] = upper[order[k] * S + t];
    tree[t] = max_tree(leaves, width);
  }
  std::vector<std::array<size_t, 3>> todo;
  std::vector<int64_t> mark(n, -1);
  bool full = false;
  for (size_t k = 0; k < n && !full; ++k) {
    if ((k & 255) == 0 && stop && stop()) return false;
    const int32_t b = order[k];
    for (size_t t = 0; t < S && !full; ++t)
      leaves_above(tree[t], width, k, lower[b * S + t], todo, [&](size_t j) {
        const int32_t a = order[j];
        if (full || mark[a] == static_cast<int64_t>(k)) return;
        mark[a] = static_cast<int64_t>(k);
        full = !emit(std::min(a, b), std::max(a, b));
      });
  }
  return !full;
}

void add_hidden_conflicts(Problem& p, int64_t max_pairs, const std::function<bool(const PairSink&)>& enumerate) {
  // Two passes, counting then filling an exactly sized list: the list is the largest
  // structure of a partial order (8 bytes a hidden pair), and a doubling vector, or blocks
  // copied into one, would hold up to two or three times it at once. The second pass costs
  // one more enumeration (output-sensitive, about the cost of reading the pairs).
  int64_t seen = 0, kept = 0;
  auto count = [&](int32_t a, int32_t b) {
    if (++seen > max_pairs) return false;
    kept += !lifetimes_overlap(p.buffers[a], p.buffers[b]);
    return true;
  };
  const bool done = enumerate(count);
  if (seen > max_pairs) throw std::length_error("more than " + std::to_string(max_pairs) + " conflicting pairs");
  if (!done) throw DerivationStopped("time limit reached while deriving the conflicts of the partial order");
  p.conflicts.reserve(p.conflicts.size() + static_cast<size_t>(kept));
  const bool again = enumerate([&](int32_t a, int32_t b) {
    if (!lifetimes_overlap(p.buffers[a], p.buffers[b])) p.conflicts.emplace_back(a, b);
    return true;
  });
  if (!again) throw DerivationStopped("time limit reached while deriving the conflicts of the partial order");
}

}  // namespace memplan

namespace memplan {

Problem problem_from_streams(const std::vector<StreamBuffer>& bufs, const std::vector<int64_t>& sizes,
                             int32_t streams, int64_t max_pairs, const std::vector<std::string>* ids,
                             const std::function<bool()>& stop) {
  const int32_t n = static_cast<int32_t>(bufs.size());
  const size_t S = static_cast<size_t>(streams);
  const std::vector<int64_t> birth = birth_clocks(bufs, streams);  // validates the fields
  const std::vector<int64_t> death = death_clocks(bufs, streams);
  // Ops per stream, and what each waiting op waits for: every use of each awaited buffer.
  std::vector<int64_t> ops(S, 0);
  for (int32_t i = 0; i < n; ++i)
    for (size_t t = 0; t < S; ++t) ops[t] = std::max({ops[t], death[i * S + t], birth[i * S + t] + (bufs[i].stream == static_cast<int32_t>(t))});
  std::vector<std::map<int64_t, std::vector<std::pair<int32_t, int64_t>>>> waits(S);
  for (const StreamBuffer& b : bufs)
    for (int32_t a : b.after)
      for (size_t t = 0; t < S; ++t)
        if (death[a * S + t] > 0) waits[b.stream][b.lower].emplace_back(static_cast<int32_t>(t), death[a * S + t] - 1);
  // Round robin over the streams: each runs while its next op's waits are done. The ops
  // between two waiting ops run back to back, so they are kept as stretches (first op, its
  // time): memory O(n) whatever the op positions (a time per op allocated 8 bytes per
  // position, and a position of 10^15 in a file asked for petabytes).
  struct Stretch {
    int64_t op, time;
  };
  std::vector<std::vector<Stretch>> stretches(S);
  std::vector<int64_t> next(S, 0);
  int64_t clock = 0, left = 0;
  for (int64_t o : ops) left += o;  // below INT64_MAX: birth_clocks bounds the positions
  while (left > 0) {
    bool moved = false;
    for (size_t s = 0; s < S; ++s)
      while (next[s] < ops[s]) {
        auto it = waits[s].lower_bound(next[s]);  // the next op that waits
        int64_t stop = it == waits[s].end() ? ops[s] : std::min(it->first, ops[s]);
        if (stop == next[s]) {  // it waits: runs once every awaited op has run
          bool ok = true;
          for (auto [t, q] : it->second) ok = ok && next[t] > q;
          if (!ok) break;
          ++stop;
        }
        stretches[s].push_back({next[s], clock});
        clock += stop - next[s], left -= stop - next[s];
        next[s] = stop, moved = true;
      }
    if (!moved) throw std::invalid_argument("the dependencies form a cycle across the streams (they would deadlock)");
  }
  auto time = [&](size_t s, int64_t op) {  // the stretch holding op, then op's place in it
    const std::vector<Stretch>& run = stretches[s];
    const Stretch& at = *std::prev(std::upper_bound(run.begin(), run.end(), op, [](int64_t o, const Stretch& r) { return o < r.op; }));
    return at.time + (op - at.op);
  };
  Problem p;
  p.buffers.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    Buffer& b = p.buffers[i];
    b.id = ids ? (*ids)[i] : "b" + std::to_string(i);
    b.size = sizes[i];
    b.start = time(static_cast<size_t>(bufs[i].stream), bufs[i].lower);
    b.end = b.start + 1;
    for (size_t t = 0; t < S; ++t)
      if (death[i * S + t] > 0) b.end = std::max(b.end, time(t, death[i * S + t] - 1) + 1);
  }
  // The clocks: lower = birth, upper = max(birth, death) (so lower <= upper; the relation is
  // unchanged, since death(a) <= birth(b) already implies birth(a) <= birth(b)).
  p.clock_dim = streams;
  p.clock_lower = birth;
  p.clock_upper = death;
  for (size_t k = 0; k < death.size(); ++k) p.clock_upper[k] = std::max(death[k], birth[k]);
  add_hidden_conflicts(p, max_pairs, [&](const PairSink& sink) { return stream_conflicts(bufs, streams, birth, death, sink, stop); });
  return p;
}

}  // namespace memplan

namespace memplan {

Problem problem_from_clocks(int32_t dim, const std::vector<int64_t>& lower, const std::vector<int64_t>& upper,
                            const std::vector<int64_t>& sizes, const std::vector<std::string>& ids,
                            int64_t max_pairs, const std::function<bool()>& stop) {
  const size_t n = sizes.size(), S = static_cast<size_t>(dim);
  if (dim < 1) throw std::invalid_argument("clock dimension must be >= 1");
  if (lower.size() != n * S || upper.size() != n * S || ids.size() != n)
    throw std::invalid_argument("every clock must have " + std::to_string(dim) + " components");
  Problem p;
  p.buffers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Buffer& b = p.buffers[i];
    b.id = ids[i];
    b.size = sizes[i];
    bool less = false;
    for (size_t t = 0; t < S; ++t) {
      const int64_t lo = lower[i * S + t], hi = upper[i * S + t];
      if (lo < 0 || hi > INT64_MAX / static_cast<int64_t>(S + 1))
        throw std::invalid_argument("buffer '" + ids[i] + "': clock component out of range");
      if (lo > hi) throw std::invalid_argument("buffer '" + ids[i] + "': lower exceeds upper in component " + std::to_string(t));
      less = less || lo < hi;
      b.start += lo, b.end += hi;
    }
    if (!less) throw std::invalid_argument("buffer '" + ids[i] + "': lower equals upper (an empty lifetime)");
  }
  p.clock_dim = dim, p.clock_lower = lower, p.clock_upper = upper;
  std::vector<int64_t> start(n);
  for (size_t i = 0; i < n; ++i) start[i] = p.buffers[i].start;
  add_hidden_conflicts(p, max_pairs, [&](const PairSink& sink) { return clock_conflicts(dim, lower, upper, start, sink, stop); });
  return p;
}

}  // namespace memplan

namespace memplan {

std::vector<std::pair<int32_t, int32_t>> conflicts_beyond_clocks(const Problem& p) {
  const size_t S = static_cast<size_t>(std::max(p.clock_dim, 0));
  if (S == 0 || p.clock_lower.size() != p.buffers.size() * S || p.clock_upper.size() != p.clock_lower.size())
    return p.conflicts;
  auto ordered = [&](int32_t a, int32_t b) {  // a dead before b
    for (size_t t = 0; t < S; ++t)
      if (p.clock_upper[a * S + t] > p.clock_lower[b * S + t]) return false;
    return true;
  };
  std::vector<std::pair<int32_t, int32_t>> out;
  for (auto [a, b] : p.conflicts)
    if (ordered(a, b) || ordered(b, a)) out.emplace_back(a, b);
  return out;
}

}  // namespace memplan
