// idealloc: input preparation and the parameter pipeline (§3.2-3.4 of
// shared/research/idealloc.md): time normalization, the dummy job rule, the convergence test
// of Theorem 16's first phase, the epsilon search, and per-iteration RNG seeding.
#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/idealloc/idealloc.h"

#include "core/arith.h"
#include "core/polled.h"

namespace memplan::idealloc {

int32_t Arena::add_box(std::span<const int32_t> members, int64_t height) {
  Job box;
  box.birth = std::numeric_limits<int64_t>::max();
  box.death = std::numeric_limits<int64_t>::min();
  for (int32_t m : members) {
    box.birth = std::min(box.birth, jobs[m].birth);
    box.death = std::max(box.death, jobs[m].death);
  }
  box.height = height;
  box.first_child = int32_t(children.size());
  box.child_count = int32_t(members.size());
  children.insert(children.end(), members.begin(), members.end());
  jobs.push_back(box);
  return int32_t(jobs.size() - 1);
}

double lg2(double r) {
  if (!(r > 1)) return 0;
  const double l = std::log2(r);
  return l * l;
}

// Theorem 16's first phase is safe iff mu = eps/lg^2 r < phi_hat and
// mu^6 h_max / lg^2 r >= h_min, i.e. eps >= ((lg^2 r)^7 / r)^(1/6) = small_end and
// eps < phi_hat lg^2 r = big_end.
double small_end(double r) {
  const double l = lg2(r);
  if (l <= 0) return 0;
  return std::pow(std::pow(l, 7) / r, 1.0 / 6.0);
}

double big_end(double r) { return kPhiHat * lg2(r); }

bool dummy_job_rule(int64_t h_min, int64_t h_max) {
  const double r = double(h_max) / double(h_min);
  return small_end(r) >= big_end(r);
}

Prepared prepare(const Problem& p, const Deadline* deadline) {
  Prepared out;
  const int32_t n = int32_t(p.buffers.size());
  out.originals = n;
  Poll poll(deadline);
  const auto stop = [&] {
    out.complete = false;
    return std::move(out);
  };
  // Rank-compress the lifetime endpoints (order-preserving, so overlaps are unchanged and
  // no doubling can overflow), then double: [s, e) -> (2 rank(s), 2 rank(e)).
  std::vector<int64_t> times;
  times.reserve(2 * size_t(n));
  for (const Buffer& b : p.buffers) {
    times.push_back(b.start);
    times.push_back(b.end);
  }
  if (!sort_until(times, std::less<>(), deadline)) return stop();
  times.erase(std::unique(times.begin(), times.end()), times.end());
  auto rank = [&](int64_t t) {
    return int64_t(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  };
  out.base.jobs.reserve(size_t(n) + 1);
  int64_t max_death = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (poll()) return stop();
    const Buffer& b = p.buffers[i];
    Job j;
    j.birth = 2 * rank(b.start);
    j.death = 2 * rank(b.end);
    j.height = b.size;
    j.buffer = i;
    max_death = std::max(max_death, j.death);
    out.base.jobs.push_back(j);
  }
  if (n == 0) return out;
  out.h_min = out.h_max = p.buffers[0].size;
  for (const Buffer& b : p.buffers) {
    out.h_min = std::min(out.h_min, b.size);
    out.h_max = std::max(out.h_max, b.size);
  }
  // §3.2: the dummy spans all time, so it raises every instant's load equally; unboxing
  // skips it, so its space is free again before the squeeze.
  if (dummy_job_rule(out.h_min, out.h_max)) {
    Job d;
    d.birth = 0;
    d.death = std::max<int64_t>(max_death, 2);
    const double h = std::ceil(kDummyRatio * double(out.h_min));
    d.height = h >= 4e18 ? int64_t(4e18) : int64_t(h);
    out.base.jobs.push_back(d);
    out.dummy = true;
    out.h_max = std::max(out.h_max, d.height);
  }
  out.heights.reserve(out.base.jobs.size());
  for (const Job& j : out.base.jobs) out.heights.push_back(j.height);
  if (!sort_until(out.heights, std::less<>(), deadline)) return stop();
  out.heights.erase(std::unique(out.heights.begin(), out.heights.end()), out.heights.end());
  return out;
}

RogueStep rogue_step(double eps, int64_t h_min, int64_t h_max) {
  RogueStep s;
  const double l = lg2(double(h_max) / double(h_min));
  if (l <= 0) return s;
  s.mu = eps / l;
  const double H = std::ceil(std::pow(s.mu, 5) * double(h_max) / l);
  if (!(H >= 1) || H > 4e18) return s;
  s.box_height = int64_t(H);
  s.target = int64_t(std::floor(s.mu * H));
  s.safe = s.mu < kPhiHat && s.target >= h_min;
  return s;
}

RogueProfile rogue_profile(std::vector<int64_t> heights, double eps) {
  std::sort(heights.begin(), heights.end());
  heights.erase(std::unique(heights.begin(), heights.end()), heights.end());
  // Each safe round replaces all heights <= target by one box height H > target.
  for (int round = 0; round < 64 && !heights.empty(); ++round) {
    const RogueStep s = rogue_step(eps, heights.front(), heights.back());
    if (!s.safe) break;
    auto cut = std::upper_bound(heights.begin(), heights.end(), s.target);
    heights.erase(heights.begin(), cut);
    heights.insert(std::lower_bound(heights.begin(), heights.end(), s.box_height),
                   s.box_height);
    heights.erase(std::unique(heights.begin(), heights.end()), heights.end());
  }
  RogueProfile p;
  if (heights.empty()) return p;
  p.h_min = heights.front();
  p.h_max = heights.back();
  p.ratio = double(p.h_max) / double(p.h_min);
  return p;
}

EpsilonChoice epsilon_search(const std::vector<int64_t>& heights) {
  EpsilonChoice c;
  if (heights.empty()) return c;
  const auto [lo, hi] = std::minmax_element(heights.begin(), heights.end());
  const double r = double(*hi) / double(*lo);
  const double end = big_end(r);
  double eps = small_end(r);
  double best_ratio = std::numeric_limits<double>::infinity();
  c.eps = eps;
  RogueProfile best;
  for (int fails = 0, steps = 0; fails < 3 && steps < 100000; ++steps) {
    const RogueProfile prof = rogue_profile(heights, eps);
    if (prof.ratio < best_ratio) {
      best_ratio = prof.ratio;
      best = prof;
      c.eps = eps;
      fails = 0;
    } else {
      ++fails;
    }
    eps += 0.01 * (end - eps);
  }
  const double cap = 0.99 * kPhiHat;
  const double l = lg2(best.ratio);
  c.mu_final = l > 0 ? std::min(cap, c.eps / l) : cap;
  if (!(c.mu_final > 0)) c.mu_final = cap;
  c.final_height = double(best.h_max) / c.mu_final;
  return c;
}

std::mt19937_64 iteration_rng(uint64_t seed, uint64_t index) {
  auto splitmix = [](uint64_t x) { return splitmix64(x); };  // of the value: x is a copy
  return std::mt19937_64(splitmix(splitmix(seed) ^ (index * 0xd1b54a32d192ed03ULL + 1)));
}

}  // namespace memplan::idealloc
