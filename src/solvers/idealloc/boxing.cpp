// idealloc: the boxing chain of BKKRT ("OPT versus LOAD in Dynamic Storage Allocation",
// STOC 2003) as idealloc runs it: rogue (repeated Theorem 16 first phase) -> Corollary 15
// (size classes) -> Theorem 2 (critical points, recursion) -> Lemma 1 (strips).
// See shared/research/idealloc.md §3.4-3.6 and docs/idealloc.md.
#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

#include "solvers/idealloc/idealloc.h"

namespace memplan::idealloc {

// Theorem 16, first phase (BKKRT p. 561), repeated while its convergence test holds
// (idealloc's "rogue"): each round boxes the jobs of height <= floor(mu H) into boxes of
// height H, which raises h_min and so shrinks r = h_max / h_min.
std::vector<int32_t> rogue(Arena& arena, std::vector<int32_t> jobs, double eps,
                           std::mt19937_64& rng) {
  for (int round = 0; round < 64 && !jobs.empty(); ++round) {
    int64_t h_min = arena.jobs[jobs[0]].height, h_max = h_min;
    for (int32_t j : jobs) {
      h_min = std::min(h_min, arena.jobs[j].height);
      h_max = std::max(h_max, arena.jobs[j].height);
    }
    const RogueStep s = rogue_step(eps, h_min, h_max);
    if (!s.safe) break;
    std::vector<int32_t> small, next;
    for (int32_t j : jobs) (arena.jobs[j].height <= s.target ? small : next).push_back(j);
    if (small.empty()) break;
    const std::vector<int32_t> boxes =
        corollary15(arena, small, double(s.box_height), s.mu, rng);
    next.insert(next.end(), boxes.begin(), boxes.end());
    jobs = std::move(next);
  }
  return jobs;
}

int size_class(int64_t h, double mu) {
  const double base = 1.0 + mu;
  int i = std::max(0, int(std::ceil(std::log(double(h)) / std::log(base))));
  while (std::pow(base, i) < double(h)) ++i;
  while (i > 0 && std::pow(base, i - 1) >= double(h)) --i;
  return i;
}

// Corollary 15 (BKKRT p. 561): round heights up to powers of (1+mu); a class with key
// h_i = floor((1+mu)^i) is a unit-height instance of which k = floor(H / h_i) rows fit in
// one box of height floor(H) (k h_i <= H, and h_i >= every height in the class).
std::vector<int32_t> corollary15(Arena& arena, std::span<const int32_t> jobs, double H, double mu,
                                 std::mt19937_64& rng) {
  std::vector<std::pair<int, int32_t>> keyed;
  keyed.reserve(jobs.size());
  for (int32_t j : jobs) keyed.push_back({size_class(arena.jobs[j].height, mu), j});
  std::sort(keyed.begin(), keyed.end());
  const int64_t box_height = std::max<int64_t>(1, int64_t(std::floor(H)));
  std::vector<int32_t> out;
  for (size_t a = 0; a < keyed.size();) {
    size_t b = a;
    std::vector<int32_t> bucket;
    while (b < keyed.size() && keyed[b].first == keyed[a].first) bucket.push_back(keyed[b++].second);
    const double hi = std::floor(std::pow(1.0 + mu, keyed[a].first));
    const int64_t k = std::max<int64_t>(1, int64_t(std::floor(H / std::max(1.0, hi))));
    std::vector<int32_t> boxes = theorem2(arena, std::move(bucket), k, box_height, mu, rng);
    out.insert(out.end(), boxes.begin(), boxes.end());
    a = b;
  }
  return out;
}

std::vector<int32_t> interval_colouring(const Arena& arena, std::span<const int32_t> jobs,
                                        int32_t& rows) {
  const size_t n = jobs.size();
  std::vector<int32_t> by_birth(n), by_death(n);
  for (size_t i = 0; i < n; ++i) by_birth[i] = by_death[i] = int32_t(i);
  auto J = [&](int32_t i) -> const Job& { return arena.jobs[jobs[i]]; };
  std::sort(by_birth.begin(), by_birth.end(), [&](int32_t a, int32_t b) {
    if (J(a).birth != J(b).birth) return J(a).birth < J(b).birth;
    if (J(a).death != J(b).death) return J(a).death > J(b).death;  // long jobs lower rows
    return a < b;
  });
  std::sort(by_death.begin(), by_death.end(), [&](int32_t a, int32_t b) {
    return J(a).death != J(b).death ? J(a).death < J(b).death : a < b;
  });
  std::vector<int32_t> row(n, -1);
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> free_rows;
  rows = 0;
  size_t d = 0;
  for (int32_t i : by_birth) {
    // Deaths at or before this birth come first (open intervals: death == birth is free).
    while (d < n && J(by_death[d]).death <= J(i).birth) {
      if (row[by_death[d]] >= 0) free_rows.push(row[by_death[d]]);
      ++d;
    }
    if (free_rows.empty()) {
      row[i] = rows++;
    } else {
      row[i] = free_rows.top();
      free_rows.pop();
    }
  }
  return row;
}

// Lemma 1 (BKKRT): for jobs crossing one vertical line, outer strips (earliest births,
// latest deaths) of k ceil(1/mu^2) jobs each are left unresolved; the rest is peeled in
// alternating inner strips of k ceil(1/mu) jobs, each cut into boxes of <= k jobs.
Lemma1Result lemma1(Arena& arena, std::span<const int32_t> group, int64_t k, int64_t box_height,
                    double mu) {
  Lemma1Result r;
  const int64_t g = int64_t(group.size());
  const double outer_d = double(k) * std::ceil(1.0 / (mu * mu));
  const double inner_d = double(k) * std::ceil(1.0 / mu);
  if (outer_d * 2 >= double(g)) {
    r.unresolved.assign(group.begin(), group.end());
    return r;
  }
  const int64_t outer = int64_t(outer_d), inner = std::max<int64_t>(1, int64_t(inner_d));
  std::vector<int32_t> by_birth(group.begin(), group.end()), by_death = by_birth;
  auto J = [&](int32_t j) -> const Job& { return arena.jobs[j]; };
  std::sort(by_birth.begin(), by_birth.end(), [&](int32_t a, int32_t b) {
    return J(a).birth != J(b).birth ? J(a).birth < J(b).birth : a < b;
  });
  std::sort(by_death.begin(), by_death.end(), [&](int32_t a, int32_t b) {
    return J(a).death != J(b).death ? J(a).death > J(b).death : a < b;
  });
  // Local "taken" marks, keyed by position in by_birth.
  std::vector<int32_t> sorted_ids = by_birth;
  std::sort(sorted_ids.begin(), sorted_ids.end());
  std::vector<char> taken(size_t(g), 0);
  auto slot = [&](int32_t j) {
    return size_t(std::lower_bound(sorted_ids.begin(), sorted_ids.end(), j) - sorted_ids.begin());
  };
  size_t pb = 0, pd = 0;
  int64_t left = g;
  auto take = [&](bool from_birth, int64_t count, std::vector<int32_t>& into) {
    std::vector<int32_t>& src = from_birth ? by_birth : by_death;
    size_t& p = from_birth ? pb : pd;
    while (count > 0 && p < src.size()) {
      const int32_t j = src[p++];
      char& t = taken[slot(j)];
      if (t) continue;
      t = 1;
      into.push_back(j);
      --count;
      --left;
    }
  };
  take(true, outer, r.unresolved);
  take(false, outer, r.unresolved);
  std::vector<int32_t> strip;
  for (bool vertical = true; left > 0; vertical = !vertical) {
    strip.clear();
    take(vertical, inner, strip);
    // Vertical strips are boxed by decreasing death, horizontal ones by increasing birth,
    // so that the jobs of one box have similar extents.
    if (vertical)
      std::sort(strip.begin(), strip.end(), [&](int32_t a, int32_t b) {
        return J(a).death != J(b).death ? J(a).death > J(b).death : a < b;
      });
    else
      std::sort(strip.begin(), strip.end(), [&](int32_t a, int32_t b) {
        return J(a).birth != J(b).birth ? J(a).birth < J(b).birth : a < b;
      });
    for (size_t a = 0; a < strip.size(); a += size_t(k)) {
      const size_t b = std::min(strip.size(), a + size_t(k));
      r.boxes.push_back(arena.add_box(std::span(strip).subspan(a, b - a), box_height));
    }
  }
  return r;
}

namespace {

// A uniformly random element of the multiset {birth+1, death-1} over `jobs`: each lies
// strictly inside its job (death - birth >= 2), so some job is live there.
int64_t random_point(const Arena& arena, std::span<const int32_t> jobs, std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> pick(0, 2 * uint64_t(jobs.size()) - 1);
  const uint64_t c = pick(rng);
  const Job& j = arena.jobs[jobs[c / 2]];
  return (c % 2 == 0) ? j.birth + 1 : j.death - 1;
}

struct Work {
  std::vector<int32_t> jobs;
  std::vector<int64_t> points;  // sorted critical points; front = alpha, back = omega
};

// The balanced-bisection group of a job live at some critical point: walk down the implicit
// tree over points[lo, hi) splitting at index lo + ceil((len-2)/2); a job live at the split
// point belongs to that node; slices of fewer than 3 points are leaves. Returns a node key.
int64_t bisection_group(const std::vector<int64_t>& pts, const Job& j) {
  int64_t lo = 0, hi = int64_t(pts.size());
  const int64_t m1 = hi + 1;
  while (hi - lo >= 3) {
    const int64_t mid = lo + (hi - lo - 2 + 1) / 2;
    const int64_t p = pts[size_t(mid)];
    if (j.birth < p && p < j.death) return 2 * (mid * m1 + mid) + 1;
    if (j.death <= p) hi = mid;
    else lo = mid + 1;
  }
  return 2 * (lo * m1 + hi);
}

}  // namespace

// Theorem 2 (BKKRT): critical points split the jobs into those live at a point (R) and
// those strictly between two consecutive points (X_q). R is grouped so each group shares a
// live point and boxed by Lemma 1; Lemma 1's left-overs are coloured into rows, closed k rows
// at a time into boxes; the gaps of those rows give the next critical points, and each X_q
// is handled the same way inside its interval. idealloc's choice of points: one random
// point (uniform over {birth+1, death-1}) plus the gap points.
std::vector<int32_t> theorem2(Arena& arena, std::vector<int32_t> jobs, int64_t k,
                              int64_t box_height, double mu, std::mt19937_64& rng) {
  std::vector<int32_t> out;
  if (jobs.empty()) return out;
  std::vector<Work> stack;
  {
    Work w;
    int64_t alpha = arena.jobs[jobs[0]].birth, omega = arena.jobs[jobs[0]].death;
    for (int32_t j : jobs) {
      alpha = std::min(alpha, arena.jobs[j].birth);
      omega = std::max(omega, arena.jobs[j].death);
    }
    w.points = {alpha, random_point(arena, jobs, rng), omega};
    w.jobs = std::move(jobs);
    stack.push_back(std::move(w));
  }
  std::vector<int32_t> live;
  std::vector<std::pair<int64_t, int32_t>> between, grouped;
  std::vector<int32_t> unresolved, row_of, row_jobs;
  std::vector<int64_t> gaps;
  while (!stack.empty()) {
    Work w = std::move(stack.back());
    stack.pop_back();
    const std::vector<int64_t>& P = w.points;
    const int64_t alpha = P.front(), omega = P.back();
    // Step 1: live at a critical point -> R; otherwise inside one segment -> X_q.
    live.clear();
    between.clear();
    for (int32_t j : w.jobs) {
      const Job& J = arena.jobs[j];
      const size_t idx = size_t(std::upper_bound(P.begin(), P.end(), J.birth) - P.begin());
      if (idx < P.size() && P[idx] < J.death) live.push_back(j);
      else between.push_back({int64_t(idx) - 1, j});
    }
    std::vector<int32_t>().swap(w.jobs);
    // Step 2: group R by balanced bisection over the points; Step 3: Lemma 1 per group.
    grouped.clear();
    for (int32_t j : live) grouped.push_back({bisection_group(P, arena.jobs[j]), j});
    std::sort(grouped.begin(), grouped.end());
    unresolved.clear();
    std::vector<int32_t> group;
    for (size_t a = 0; a < grouped.size();) {
      size_t b = a;
      group.clear();
      while (b < grouped.size() && grouped[b].first == grouped[a].first)
        group.push_back(grouped[b++].second);
      Lemma1Result l = lemma1(arena, group, k, box_height, mu);
      out.insert(out.end(), l.boxes.begin(), l.boxes.end());
      unresolved.insert(unresolved.end(), l.unresolved.begin(), l.unresolved.end());
      a = b;
    }
    // Step 4: colour the unresolved jobs; every k consecutive rows make one box.
    int32_t rows = 0;
    row_of = interval_colouring(arena, unresolved, rows);
    // Rows in CSR form: unresolved jobs sorted by (row, birth); row r is [start[r], start[r+1]).
    std::vector<int32_t> perm(unresolved.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = int32_t(i);
    std::sort(perm.begin(), perm.end(), [&](int32_t a, int32_t b) {
      if (row_of[size_t(a)] != row_of[size_t(b)]) return row_of[size_t(a)] < row_of[size_t(b)];
      return arena.jobs[unresolved[size_t(a)]].birth < arena.jobs[unresolved[size_t(b)]].birth;
    });
    row_jobs.resize(perm.size());
    std::vector<size_t> start(size_t(rows) + 1, 0);
    for (size_t i = 0; i < perm.size(); ++i) {
      row_jobs[i] = unresolved[size_t(perm[i])];
      ++start[size_t(row_of[size_t(perm[i])]) + 1];
    }
    for (size_t r = 0; r < size_t(rows); ++r) start[r + 1] += start[r];
    for (int64_t r0 = 0; r0 < rows; r0 += k) {
      const size_t a = start[size_t(r0)], b = start[size_t(std::min<int64_t>(rows, r0 + k))];
      out.push_back(arena.add_box(std::span(row_jobs).subspan(a, b - a), box_height));
    }
    // Step 5: gap points of the rows within (alpha, omega).
    gaps.clear();
    for (size_t r = 0; r < size_t(rows); ++r) {
      const size_t a = start[r], b = start[r + 1];
      if (a == b) continue;
      if (arena.jobs[row_jobs[a]].birth > alpha) gaps.push_back(alpha);
      for (size_t i = a; i + 1 < b; ++i) {
        const int64_t d = arena.jobs[row_jobs[i]].death, nb = arena.jobs[row_jobs[i + 1]].birth;
        if (nb > d) {
          gaps.push_back(d);
          gaps.push_back(nb);
        }
      }
      if (arena.jobs[row_jobs[b - 1]].death < omega) gaps.push_back(arena.jobs[row_jobs[b - 1]].death);
    }
    std::sort(gaps.begin(), gaps.end());
    gaps.erase(std::unique(gaps.begin(), gaps.end()), gaps.end());
    // Step 6: recurse into every X_q inside (p_q, p_{q+1}).
    std::sort(between.begin(), between.end());
    for (size_t a = 0; a < between.size();) {
      size_t b = a;
      Work child;
      const int64_t q = between[a].first;
      while (b < between.size() && between[b].first == q) child.jobs.push_back(between[b++].second);
      const int64_t lo = P[size_t(q)], hi = P[size_t(q) + 1];
      child.points.push_back(lo);
      auto g0 = std::upper_bound(gaps.begin(), gaps.end(), lo);
      auto g1 = std::lower_bound(gaps.begin(), gaps.end(), hi);
      child.points.insert(child.points.end(), g0, g1);
      child.points.push_back(hi);
      bool any_live = false;
      if (g1 > g0) {
        for (int32_t j : child.jobs) {
          const Job& J = arena.jobs[j];
          auto it = std::upper_bound(g0, g1, J.birth);
          if (it != g1 && *it < J.death) {
            any_live = true;
            break;
          }
        }
      }
      if (!any_live) {
        // The main source of randomness: guarantees progress (some job is live there).
        const int64_t t = random_point(arena, child.jobs, rng);
        child.points.insert(std::lower_bound(child.points.begin(), child.points.end(), t), t);
      }
      stack.push_back(std::move(child));
      a = b;
    }
  }
  return out;
}

}  // namespace memplan::idealloc
