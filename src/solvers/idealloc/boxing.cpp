// idealloc: the boxing chain of BKKRT ("OPT versus LOAD in Dynamic Storage Allocation",
// STOC 2003) as idealloc runs it: rogue (repeated Theorem 16 first phase) -> Corollary 15
// (size classes) -> Theorem 2 (critical points, recursion) -> Lemma 1 (strips).
// See shared/research/idealloc.md §3.4-3.6 and docs/idealloc.md.
#include <algorithm>
#include <bit>
#include <cmath>

#include "core/polled.h"
#include "core/sort_keys.h"
#include "solvers/idealloc/idealloc.h"

namespace memplan::idealloc {

// Theorem 16, first phase (BKKRT p. 561), repeated while its convergence test holds
// (idealloc's "rogue"): each round boxes the jobs of height <= floor(mu H) into boxes of
// height H, which raises h_min and so shrinks r = h_max / h_min.
std::vector<int32_t> rogue(Arena& arena, std::vector<int32_t> jobs, double eps,
                           std::mt19937_64& rng) {
  RandomSource src(rng);
  return rogue(arena, std::move(jobs), eps, src);
}

std::vector<int32_t> rogue(Arena& arena, std::vector<int32_t> jobs, double eps,
                           DecisionSource& src) {
  thread_local std::vector<int32_t> small, next;
  for (int round = 0; round < 64 && !jobs.empty(); ++round) {
    int64_t h_min = arena.jobs[jobs[0]].height, h_max = h_min;
    for (int32_t j : jobs) {
      h_min = std::min(h_min, arena.jobs[j].height);
      h_max = std::max(h_max, arena.jobs[j].height);
    }
    const RogueStep s = rogue_step(eps, h_min, h_max);
    if (!s.safe) break;
    small.clear();
    next.clear();
    for (int32_t j : jobs) (arena.jobs[j].height <= s.target ? small : next).push_back(j);
    if (small.empty()) break;
    corollary15_into(arena, small, double(s.box_height), s.mu, src, next);
    jobs.swap(next);
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
void corollary15_into(Arena& arena, std::span<const int32_t> jobs, double H, double mu,
                      DecisionSource& src, std::vector<int32_t>& out) {
  if (jobs.empty()) return;
  thread_local std::vector<std::pair<int, int32_t>> keyed;
  thread_local std::vector<double> powers;
  thread_local std::vector<int32_t> bucket;
  int64_t h_min = arena.jobs[jobs[0]].height, h_max = h_min;
  for (int32_t j : jobs) {
    h_min = std::min(h_min, arena.jobs[j].height);
    h_max = std::max(h_max, arena.jobs[j].height);
  }
  // The classes lie in [lo, hi]; when that range is short, size_class (the least i with
  // (1+mu)^i >= h) is a lower_bound over the same powers, computed once.
  const int lo = size_class(h_min, mu), hi = size_class(h_max, mu);
  const bool table = size_t(hi - lo) < jobs.size();
  if (table) {
    powers.clear();
    for (int i = lo; i <= hi; ++i) powers.push_back(std::pow(1.0 + mu, i));
  }
  keyed.clear();
  for (int32_t j : jobs) {
    const int64_t h = arena.jobs[j].height;
    const int c = table ? lo + int(std::lower_bound(powers.begin(), powers.end(), double(h)) -
                                   powers.begin())
                        : size_class(h, mu);
    keyed.push_back({c, j});
  }
  // By (class, job). The callers pass jobs in increasing index order, so then a stable
  // counting sort by class over [lo, hi] is enough.
  if (table && std::is_sorted(jobs.begin(), jobs.end())) {
    thread_local std::vector<size_t> count;
    thread_local std::vector<std::pair<int, int32_t>> tmp;
    count.assign(size_t(hi - lo) + 2, 0);
    for (const auto& e : keyed) ++count[size_t(e.first - lo) + 1];
    for (size_t c = 1; c < count.size(); ++c) count[c] += count[c - 1];
    tmp.resize(keyed.size());
    for (const auto& e : keyed) tmp[count[size_t(e.first - lo)]++] = e;
    keyed.swap(tmp);
  } else {
    std::sort(keyed.begin(), keyed.end());
  }
  const int64_t box_height = std::max<int64_t>(1, int64_t(std::floor(H)));
  for (size_t a = 0; a < keyed.size();) {
    size_t b = a;
    bucket.clear();
    while (b < keyed.size() && keyed[b].first == keyed[a].first) bucket.push_back(keyed[b++].second);
    const double hi_key = std::floor(std::pow(1.0 + mu, keyed[a].first));
    const int64_t k = std::max<int64_t>(1, int64_t(std::floor(H / std::max(1.0, hi_key))));
    theorem2_into(arena, bucket, k, box_height, mu, src, out);
    a = b;
  }
}

std::vector<int32_t> corollary15(Arena& arena, std::span<const int32_t> jobs, double H, double mu,
                                 std::mt19937_64& rng) {
  std::vector<int32_t> out;
  RandomSource src(rng);
  corollary15_into(arena, jobs, H, mu, src, out);
  return out;
}

namespace {

int bit_width_of(uint64_t x) { return int(std::bit_width(x)); }

// Positions 0..n-1 of `jobs` by (birth, death descending, position) into `by_birth` and by
// (death, position) into `by_death`, with their births and deaths in those orders. When
// times and positions fit, the keys are packed into one integer each, which sorts several
// times faster than the comparison on records. With a deadline, the comparison sorts poll it
// (the packed ones take ~10 ms for 1M jobs): false once it has passed.
bool event_orders(const Arena& arena, std::span<const int32_t> jobs, std::vector<int32_t>& by_birth,
                  std::vector<int32_t>& by_death, std::vector<int64_t>& births,
                  std::vector<int64_t>& deaths, const Deadline* deadline) {
  const size_t n = jobs.size();
  int64_t lo = 0, hi = 0;
  for (int32_t j : jobs) lo = std::min(lo, arena.jobs[j].birth), hi = std::max(hi, arena.jobs[j].death);
  const int tb = bit_width_of(uint64_t(hi)), ib = bit_width_of(n);
  by_birth.resize(n);
  by_death.resize(n);
  births.resize(n);
  deaths.resize(n);
  if (lo >= 0 && 2 * tb + ib <= 64) {
    thread_local std::vector<uint64_t> kb, kd;
    kb.resize(n);
    kd.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Job& j = arena.jobs[jobs[i]];
      kb[i] = (uint64_t(j.birth) << (tb + ib)) | (uint64_t(hi - j.death) << ib) | i;
      kd[i] = (uint64_t(j.death) << ib) | i;
    }
    thread_local std::vector<uint64_t> scratch;
    sort_keys(kb, scratch);
    sort_keys(kd, scratch);
    const uint64_t mask = (uint64_t{1} << ib) - 1;
    for (size_t i = 0; i < n; ++i) {
      by_birth[i] = int32_t(kb[i] & mask), births[i] = int64_t(kb[i] >> (tb + ib));
      by_death[i] = int32_t(kd[i] & mask), deaths[i] = int64_t(kd[i] >> ib);
    }
    return !(deadline && deadline->expired());
  }
  for (size_t i = 0; i < n; ++i) by_birth[i] = by_death[i] = int32_t(i);
  auto J = [&](int32_t i) -> const Job& { return arena.jobs[jobs[size_t(i)]]; };
  // Total orders (position breaks ties): the polled stable sort gives std::sort's result.
  const auto birth_less = [&](int32_t a, int32_t b) {
    if (J(a).birth != J(b).birth) return J(a).birth < J(b).birth;
    if (J(a).death != J(b).death) return J(a).death > J(b).death;  // long jobs lower rows
    return a < b;
  };
  const auto death_less = [&](int32_t a, int32_t b) {
    return J(a).death != J(b).death ? J(a).death < J(b).death : a < b;
  };
  if (deadline) {
    if (!sort_until(by_birth, birth_less, deadline) || !sort_until(by_death, death_less, deadline)) return false;
  } else {
    std::sort(by_birth.begin(), by_birth.end(), birth_less);
    std::sort(by_death.begin(), by_death.end(), death_less);
  }
  for (size_t i = 0; i < n; ++i) births[i] = J(by_birth[i]).birth, deaths[i] = J(by_death[i]).death;
  return true;
}

// colour_into for a few jobs (n <= 32), with the same result: jobs by (birth, death
// descending, position) by insertion sort, and each takes the lowest row that no job
// coloured before it still occupies (one whose death is after its birth; every earlier job
// was born no later, and a death at the birth frees the row).
int32_t colour_small(const Arena& arena, std::span<const int32_t> jobs, std::vector<int32_t>& row,
                     std::vector<int32_t>& by_birth) {
  const size_t n = jobs.size();
  int64_t birth[32], death[32];
  by_birth.resize(n);
  row.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Job& j = arena.jobs[jobs[i]];
    size_t at = i;
    for (; at > 0; --at) {
      const int32_t o = by_birth[at - 1];
      if (birth[o] < j.birth || (birth[o] == j.birth && death[o] >= j.death)) break;
      by_birth[at] = o;
    }
    by_birth[at] = int32_t(i);
    birth[i] = j.birth;
    death[i] = j.death;
  }
  int32_t rows = 0;
  for (size_t e = 0; e < n; ++e) {
    const int32_t i = by_birth[e];
    uint64_t occupied = 0;
    for (size_t f = 0; f < e; ++f) {
      const int32_t o = by_birth[f];
      occupied |= uint64_t(death[o] > birth[i]) << row[size_t(o)];
    }
    const int32_t r = std::countr_zero(~occupied);
    row[size_t(i)] = r;
    rows = std::max(rows, r + 1);
  }
  return rows;
}

}  // namespace

int32_t colour_into(const Arena& arena, std::span<const int32_t> jobs, std::vector<int32_t>& row,
                    std::vector<int32_t>& by_birth, const Deadline* deadline) {
  thread_local std::vector<int32_t> by_death;
  thread_local std::vector<int64_t> births, deaths;
  thread_local std::vector<uint64_t> free_rows;  // bit r set: row r is free
  const size_t n = jobs.size();
  if (n <= 1) {  // nothing to order
    row.assign(n, 0);
    by_birth.assign(n, 0);
    return int32_t(n);
  }
  if (n <= 32) return colour_small(arena, jobs, row, by_birth);
  if (!event_orders(arena, jobs, by_birth, by_death, births, deaths, deadline)) return -1;
  row.assign(n, -1);
  free_rows.clear();
  int32_t rows = 0;
  size_t d = 0;
  for (size_t e = 0; e < n; ++e) {
    // The lowest-free-row scan is O(rows / 64) a birth: 256 births of 10^6 rows take ~1 ms.
    if (deadline && (e & 255) == 255 && deadline->expired()) return -1;
    const int32_t i = by_birth[e];
    // Deaths at or before this birth come first (open intervals: death == birth is free).
    for (; d < n && deaths[d] <= births[e]; ++d) {
      const int32_t r = row[size_t(by_death[d])];
      if (r >= 0) free_rows[size_t(r) >> 6] |= uint64_t{1} << (r & 63);
    }
    // The lowest free row, else a new one.
    size_t w = 0;
    while (w < free_rows.size() && free_rows[w] == 0) ++w;
    if (w == free_rows.size()) {
      row[size_t(i)] = rows++;
      if (size_t(rows) > 64 * free_rows.size()) free_rows.push_back(0);
    } else {
      row[size_t(i)] = int32_t(64 * w + size_t(std::countr_zero(free_rows[w])));
      free_rows[w] &= free_rows[w] - 1;
    }
  }
  return rows;
}

std::vector<int32_t> interval_colouring(const Arena& arena, std::span<const int32_t> jobs,
                                        int32_t& rows, const Deadline* deadline) {
  std::vector<int32_t> row, by_birth;
  rows = colour_into(arena, jobs, row, by_birth, deadline);
  if (rows < 0) return {};
  return row;
}

// Lemma 1 (BKKRT): for jobs crossing one vertical line, outer strips (earliest births,
// latest deaths) of k ceil(1/mu^2) jobs each are left unresolved; the rest is peeled in
// alternating inner strips of k ceil(1/mu) jobs, each cut into boxes of <= k jobs.
void lemma1_into(Arena& arena, std::span<const int32_t> group, int64_t k, int64_t box_height,
                 double mu, std::vector<int32_t>& boxes, std::vector<int32_t>& unresolved) {
  const int64_t g = int64_t(group.size());
  const double outer_d = double(k) * std::ceil(1.0 / (mu * mu));
  const double inner_d = double(k) * std::ceil(1.0 / mu);
  if (outer_d * 2 >= double(g)) {
    unresolved.insert(unresolved.end(), group.begin(), group.end());
    return;
  }
  const int64_t outer = int64_t(outer_d), inner = std::max<int64_t>(1, int64_t(inner_d));
  thread_local std::vector<int32_t> by_birth, by_death, strip;
  thread_local std::vector<char> taken;  // by job index; all 0 between calls
  by_birth.assign(group.begin(), group.end());
  by_death.assign(group.begin(), group.end());
  auto J = [&](int32_t j) -> const Job& { return arena.jobs[j]; };
  std::sort(by_birth.begin(), by_birth.end(), [&](int32_t a, int32_t b) {
    return J(a).birth != J(b).birth ? J(a).birth < J(b).birth : a < b;
  });
  std::sort(by_death.begin(), by_death.end(), [&](int32_t a, int32_t b) {
    return J(a).death != J(b).death ? J(a).death > J(b).death : a < b;
  });
  if (taken.size() < arena.jobs.size()) taken.resize(arena.jobs.size(), 0);
  size_t pb = 0, pd = 0;
  int64_t left = g;
  auto take = [&](bool from_birth, int64_t count, std::vector<int32_t>& into) {
    std::vector<int32_t>& src = from_birth ? by_birth : by_death;
    size_t& p = from_birth ? pb : pd;
    while (count > 0 && p < src.size()) {
      const int32_t j = src[p++];
      char& t = taken[size_t(j)];
      if (t) continue;
      t = 1;
      into.push_back(j);
      --count;
      --left;
    }
  };
  take(true, outer, unresolved);
  take(false, outer, unresolved);
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
      boxes.push_back(arena.add_box(std::span(strip).subspan(a, b - a), box_height));
    }
  }
  for (int32_t j : group) taken[size_t(j)] = 0;
}

Lemma1Result lemma1(Arena& arena, std::span<const int32_t> group, int64_t k, int64_t box_height,
                    double mu) {
  Lemma1Result r;
  lemma1_into(arena, group, k, box_height, mu, r.boxes, r.unresolved);
  return r;
}

// A uniformly random element of the multiset {birth+1, death-1} over `jobs`: each lies
// strictly inside its job (death - birth >= 2), so some job is live there.
int64_t RandomSource::point(const Arena& arena, std::span<const int32_t> jobs) {
  std::uniform_int_distribution<uint64_t> pick(0, 2 * uint64_t(jobs.size()) - 1);
  const uint64_t c = pick(rng_);
  const Job& j = arena.jobs[jobs[c / 2]];
  return (c % 2 == 0) ? j.birth + 1 : j.death - 1;
}

void RandomSource::order_classes(std::vector<std::pair<size_t, size_t>>& classes) {
  std::shuffle(classes.begin(), classes.end(), rng_);
}

namespace {

// One pending interval of Theorem 2's recursion: its jobs and sorted critical points
// (front = alpha, back = omega) are slices of two shared pools, in stack order.
struct Work {
  size_t jobs_at, jobs_end, points_at, points_end;
};

// The balanced-bisection group of a job live at some critical point: walk down the implicit
// tree over points[lo, hi) splitting at index lo + ceil((len-2)/2); a job live at the split
// point belongs to that node; slices of fewer than 3 points (1 or 2) are leaves. Returns a
// node key < 4 (points + 1): 4 mid + 1 for a split node, 4 lo + len + 1 for a leaf, so that
// keys order nodes by (first index, last index, leaf before split node).
size_t bisection_group(std::span<const int64_t> pts, const Job& j) {
  size_t lo = 0, hi = pts.size();
  while (hi - lo >= 3) {
    const size_t mid = lo + (hi - lo - 1) / 2;
    const int64_t p = pts[mid];
    if (j.birth < p && p < j.death) return 4 * mid + 1;
    if (j.death <= p) hi = mid;
    else lo = mid + 1;
  }
  return 4 * lo + (hi - lo) + 1;
}

// The number of points <= v in sorted `pts` (std::upper_bound's index). Theorem 2's items
// mostly have a handful of points: a branch-free count then has no chain of dependent loads;
// longer lists take a binary search whose steps are conditional moves.
size_t upper_index(std::span<const int64_t> pts, int64_t v) {
  if (pts.size() <= 8) {
    size_t c = 0;
    for (int64_t p : pts) c += size_t(p <= v);
    return c;
  }
  const int64_t* base = pts.data();
  for (size_t n = pts.size(); n > 1;) {
    const size_t half = n / 2;
    base = base[half] <= v ? base + half : base;
    n -= half;
  }
  return size_t(base - pts.data()) + size_t(*base <= v);
}

// Stable sort of (key, job) pairs by key in [0, keys): a counting sort, or an insertion
// sort when there are few pairs for many keys.
void sort_by_key(std::vector<std::pair<int64_t, int32_t>>& v, size_t keys,
                 std::vector<size_t>& count, std::vector<std::pair<int64_t, int32_t>>& tmp) {
  if (v.size() * 4 < keys) {
    for (size_t a = 1; a < v.size(); ++a) {
      const auto e = v[a];
      size_t b = a;
      for (; b > 0 && v[b - 1].first > e.first; --b) v[b] = v[b - 1];
      v[b] = e;
    }
    return;
  }
  count.assign(keys + 1, 0);
  for (const auto& e : v) ++count[size_t(e.first) + 1];
  for (size_t c = 1; c < count.size(); ++c) count[c] += count[c - 1];
  tmp.resize(v.size());
  for (const auto& e : v) tmp[count[size_t(e.first)]++] = e;
  v.swap(tmp);
}

}  // namespace

// Theorem 2 (BKKRT): critical points split the jobs into those live at a point (R) and
// those strictly between two consecutive points (X_q). R is grouped so each group shares a
// live point and boxed by Lemma 1; Lemma 1's left-overs are coloured into rows, closed k rows
// at a time into boxes; the gaps of those rows give the next critical points, and each X_q
// is handled the same way inside its interval. idealloc's choice of points: one random
// point (uniform over {birth+1, death-1}) plus the gap points.
void theorem2_into(Arena& arena, std::span<const int32_t> input, int64_t k, int64_t box_height,
                   double mu, DecisionSource& src, std::vector<int32_t>& out) {
  if (input.empty()) return;
  thread_local std::vector<int32_t> job_pool, unresolved, row_of, by_birth, row_jobs;
  thread_local std::vector<int64_t> point_pool, P, gaps;
  thread_local std::vector<std::pair<int64_t, int32_t>> grouped, sorted;
  // Step 1's two lists, only ever grown: slots [0, nl) of live_buf and [0, nb) of the
  // between arrays are in use.
  thread_local std::vector<int32_t> live_buf, between_job, between_q;
  thread_local std::vector<size_t> count;
  thread_local std::vector<int32_t> group;
  thread_local std::vector<size_t> start;
  thread_local std::vector<Work> stack;
  stack.clear();
  job_pool.assign(input.begin(), input.end());
  // Only the random point below sees the input order; the steps depend on the set of jobs.
  if (!std::is_sorted(job_pool.begin(), job_pool.end())) std::sort(job_pool.begin(), job_pool.end());
  point_pool.clear();
  {
    int64_t alpha = arena.jobs[input[0]].birth, omega = arena.jobs[input[0]].death;
    for (int32_t j : input) {
      alpha = std::min(alpha, arena.jobs[j].birth);
      omega = std::max(omega, arena.jobs[j].death);
    }
    point_pool = {alpha, src.point(arena, input), omega};
    stack.push_back({0, job_pool.size(), 0, point_pool.size()});
  }
  while (!stack.empty()) {
    const Work w = stack.back();
    stack.pop_back();
    // A lone job is live at one of the item's points (its parent made sure of that), so
    // Lemma 1 leaves it unresolved (2 k ceil(1/mu^2) >= 1) and the colouring gives it one
    // row: one box of its own, and no X_q to recurse into.
    if (w.jobs_end - w.jobs_at == 1) {
      const int32_t j = job_pool[w.jobs_at];
      job_pool.resize(w.jobs_at);
      point_pool.resize(w.points_at);
      out.push_back(arena.add_box(std::span(&j, 1), box_height));
      continue;
    }
    // The top item's slices are the pools' tails: take them, then free them for the children.
    P.assign(point_pool.begin() + ptrdiff_t(w.points_at), point_pool.begin() + ptrdiff_t(w.points_end));
    const int64_t alpha = P.front(), omega = P.back();
    // Step 1: live at a critical point -> R; otherwise inside one segment -> X_q. Without a
    // branch on the outcome (a coin flip): both lists get the job, only one's length grows.
    const std::span<const int64_t> interior(P.data() + 1, P.size() - 2);
    const size_t m = w.jobs_end - w.jobs_at;
    if (live_buf.size() < m) {
      live_buf.resize(m);
      between_job.resize(m);
      between_q.resize(m);
    }
    size_t nl = 0, nb = 0;
    for (size_t x = w.jobs_at; x < w.jobs_end; ++x) {
      const int32_t j = job_pool[x];
      const Job& J = arena.jobs[j];
      // Every job of the item lies in [alpha, omega] (the top item's hull; a child's jobs
      // lie between two of its parent's points), so alpha <= birth < omega: only the
      // interior points need counting, and P[idx] exists.
      const size_t idx = 1 + upper_index(interior, J.birth);
      const bool is_live = P[idx] < J.death;
      live_buf[nl] = j;
      between_job[nb] = j;
      between_q[nb] = int32_t(idx) - 1;
      nl += size_t(is_live);
      nb += size_t(!is_live);
    }
    const std::span<const int32_t> live(live_buf.data(), nl);
    job_pool.resize(w.jobs_at);
    point_pool.resize(w.points_at);
    // Step 2: group R by balanced bisection over the points; Step 3: Lemma 1 per group.
    // Groups by key, jobs by index within: `live` is in index order, so a counting sort.
    grouped.clear();
    for (int32_t j : live) grouped.push_back({int64_t(bisection_group(P, arena.jobs[j])), j});
    sort_by_key(grouped, 4 * P.size() + 4, count, sorted);
    unresolved.clear();
    for (size_t a = 0; a < grouped.size();) {
      size_t b = a;
      group.clear();
      while (b < grouped.size() && grouped[b].first == grouped[a].first)
        group.push_back(grouped[b++].second);
      lemma1_into(arena, group, k, box_height, mu, out, unresolved);
      a = b;
    }
    // Step 4: colour the unresolved jobs; every k consecutive rows make one box.
    const int32_t rows = colour_into(arena, unresolved, row_of, by_birth);
    // Rows in CSR form: unresolved jobs by (row, birth); row r is [start[r], start[r+1]).
    // The colouring visits jobs by increasing birth, so filling rows in that order sorts them.
    row_jobs.resize(unresolved.size());
    start.assign(size_t(rows) + 1, 0);
    for (int32_t r : row_of) ++start[size_t(r) + 1];
    for (size_t r = 0; r < size_t(rows); ++r) start[r + 1] += start[r];
    for (int32_t i : by_birth) row_jobs[start[size_t(row_of[size_t(i)])]++] = unresolved[size_t(i)];
    for (size_t r = size_t(rows); r > 0; --r) start[r] = start[r - 1];
    start[0] = 0;
    for (int64_t r0 = 0; r0 < rows; r0 += k) {
      const size_t a = start[size_t(r0)], b = start[size_t(std::min<int64_t>(rows, r0 + k))];
      out.push_back(arena.add_box(std::span(row_jobs).subspan(a, b - a), box_height));
    }
    if (nb == 0) continue;  // no X_q: the gaps below would go unused
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
    // By (q, job): every item's jobs are in increasing index order (the input is sorted
    // below, children inherit it), so a stable sort by q, written straight into the job
    // pool, lays out the X_q one after another. With few segments, one branch-free pass
    // per segment; else a counting sort (whose increments of the same counter would
    // otherwise wait on each other through memory).
    const size_t base = job_pool.size(), segments = P.size() - 1;
    count.assign(P.size() + 1, 0);
    job_pool.resize(base + nb + 1);  // + 1: the passes below write one slot past their end
    if (segments <= 4) {
      int32_t* dst = job_pool.data() + base;
      size_t pos = 0;
      for (size_t q = 0; q < segments; ++q) {
        for (size_t x = 0; x < nb; ++x) {
          dst[pos] = between_job[x];
          pos += size_t(between_q[x] == int32_t(q));
        }
        count[q] = pos;
      }
    } else {
      for (size_t x = 0; x < nb; ++x) ++count[size_t(between_q[x]) + 1];
      for (size_t c = 1; c < count.size(); ++c) count[c] += count[c - 1];
      for (size_t x = 0; x < nb; ++x)
        job_pool[base + count[size_t(between_q[x])]++] = between_job[x];
    }
    job_pool.resize(base + nb);
    // Now count[q] is the end of X_q, and count[q - 1] its start.
    for (size_t q = 0; q + 1 < P.size(); ++q) {
      const size_t a = q == 0 ? 0 : count[q - 1], b = count[q];
      if (a == b) continue;
      Work child{base + a, base + b, point_pool.size(), 0};
      const std::span<const int32_t> cj(job_pool.data() + child.jobs_at, child.jobs_end - child.jobs_at);
      const int64_t lo = P[size_t(q)], hi = P[size_t(q) + 1];
      point_pool.push_back(lo);
      auto g0 = std::upper_bound(gaps.begin(), gaps.end(), lo);
      auto g1 = std::lower_bound(gaps.begin(), gaps.end(), hi);
      point_pool.insert(point_pool.end(), g0, g1);
      point_pool.push_back(hi);
      bool any_live = false;
      if (g1 > g0) {
        for (int32_t j : cj) {
          const Job& J = arena.jobs[j];
          const auto it = g0 + ptrdiff_t(upper_index(std::span(g0, g1), J.birth));
          if (it != g1 && *it < J.death) {
            any_live = true;
            break;
          }
        }
      }
      if (!any_live) {
        // The main source of randomness: guarantees progress (some job is live there).
        const int64_t t = src.point(arena, cj);
        const auto first = point_pool.begin() + ptrdiff_t(child.points_at);
        point_pool.insert(std::lower_bound(first, point_pool.end(), t), t);
      }
      child.points_end = point_pool.size();
      stack.push_back(child);
    }
  }
}

std::vector<int32_t> theorem2(Arena& arena, std::vector<int32_t> jobs, int64_t k,
                              int64_t box_height, double mu, std::mt19937_64& rng) {
  std::vector<int32_t> out;
  RandomSource src(rng);
  theorem2_into(arena, jobs, k, box_height, mu, src, out);
  return out;
}

}  // namespace memplan::idealloc
