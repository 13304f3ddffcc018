// The `idealloc` solver: a size-then-lifetime first-fit bootstrap, then randomized boxing
// iterations (see idealloc.h), each squeezed by first-fit in loose-offset order with an early
// abort once its running peak passes the best so far. The best plan wins (ties: the lowest
// iteration index, the bootstrap counting as -1). The abort bar moves only between rounds
// of iterations, so the result depends on the seed only, not on the thread count or timing
// (unless the time limit cuts the run short).
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdio>
#include <mutex>
#include <numeric>
#include <system_error>
#include <thread>

#include "core/polled.h"
#include "memplan/bounds.h"
#include "memplan/timeline.h"
#include "memplan/placement.h"
#include "solvers/families.h"
#include "solvers/idealloc/idealloc.h"

namespace memplan {
namespace {

using namespace idealloc;

struct Candidate {
  int64_t index = -1;  // iteration; -1 = bootstrap / special case
  int64_t boxes = 0;
  std::optional<Solution> plan;
  bool best_fit = false;  // squeezed by best-fit rather than first-fit
  bool better_than(const Candidate& o) const {
    if (!plan) return false;
    if (!o.plan) return true;
    return plan->peak != o.plan->peak ? plan->peak < o.plan->peak : index < o.index;
  }
};

// §3.1: size descending, then lifetime length descending (ties by index).
// Empty once the deadline has passed.
std::vector<int32_t> bootstrap_order(const Problem& p, const Deadline& deadline) {
  std::vector<int32_t> order(p.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  if (!sort_until(order, [&](int32_t a, int32_t b) {
        const Buffer &x = p.buffers[size_t(a)], &y = p.buffers[size_t(b)];
        if (x.size != y.size) return x.size > y.size;
        return (x.end - x.start) > (y.end - y.start);
      }, &deadline))
    return {};
  return order;
}

SolveResult run_idealloc(const Problem& p, const SolveOptions& opt, bool squeeze_best_fit) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  // Polled: -1 once the deadline has passed (nothing below then runs but the bootstrap's
  // plan of last resort).
  const int64_t load = interval_load(p, &deadline);
  const int64_t n = int64_t(p.buffers.size());
  Candidate best;
  best.plan = bootstrap_plan(p, opt, deadline, squeeze_best_fit);
  const int64_t bootstrap_peak = best.plan ? best.plan->peak : -1;
  const int64_t budget = opt.iterations > 0 ? opt.iterations : 1000;
  int64_t ran = 0;
  EpsilonChoice eps;
  Prepared prep;
  if (best.plan && best.plan->peak > load && n > 1 && !deadline.expired() &&
      (prep = prepare(p, &deadline)).complete) {
    eps = epsilon_search(prep.heights);

    // Iterations run in rounds of kRound. An iteration is abandoned as soon as its running
    // peak passes the bar: the best (peak, index) of the rounds before its own, the
    // bootstrap counting as index -1. The bar never depends on timing, so neither does the
    // result: the same seed gives the same plan for any thread count. Without recompaction
    // (idealloc-ff) a plan can only win with a peak below the bar (ties go to the lower
    // index), so it is abandoned on reaching the bar's peak; with recompaction a squeezed plan
    // may still come down, so only a peak above the bar is abandoned.
    constexpr int64_t kRound = 32;
    struct Bar {
      int64_t peak, index;
    } bar{best.plan->peak, -1}, round_best = bar;
    const int64_t abort_margin = squeeze_best_fit ? 0 : 1;
    std::mutex mu;
    std::atomic<int64_t> next{0}, stop_at{budget}, count{0};
    int64_t round_end = std::min(kRound, budget);
    bool finished = false;
    const int threads = int(std::max<int64_t>(1, std::min<int64_t>(opt.threads, budget)));
    // Between rounds (all threads arrived): publish the round's best as the new bar.
    std::barrier sync(threads, [&]() noexcept {
      bar = round_best;
      next = round_end;
      round_end = std::min(round_end + kRound, budget);
      finished = next >= std::min(stop_at.load(), budget) || deadline.expired();
    });
    auto worker = [&] {
      PlacementEngine engine(p);
      Candidate local;
      while (!finished) {
        for (;;) {
          const int64_t i = next.fetch_add(1);
          // Iterations are claimed in increasing order, so when iteration j reaches LOAD
          // every i < j has been claimed and will finish: the winner does not depend on
          // threads.
          if (i >= round_end || i >= stop_at.load() || deadline.expired()) break;
          std::mt19937_64 rng = iteration_rng(opt.seed, uint64_t(i));
          IterationOrder io = iteration_order(prep, eps, rng);
          bool best_fit = false;
          std::optional<Solution> plan = squeeze_order(engine, io.order, bar.peak - abort_margin,
                                                       squeeze_best_fit, deadline, &best_fit);
          count.fetch_add(1);
          if (!plan) continue;
          Candidate c{i, io.boxes, std::move(plan), best_fit};
          const int64_t peak = c.plan->peak;
          if (c.better_than(local)) local = std::move(c);
          {
            std::lock_guard<std::mutex> lock(mu);
            if (peak < round_best.peak || (peak == round_best.peak && i < round_best.index))
              round_best = {peak, i};
          }
          if (peak <= load)
            for (int64_t cur = stop_at.load(); i + 1 < cur && !stop_at.compare_exchange_weak(cur, i + 1);) {
            }
        }
        sync.arrive_and_wait();
      }
      std::lock_guard<std::mutex> lock(mu);
      if (local.better_than(best)) best = std::move(local);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) {
      try {
        pool.emplace_back(worker);
      } catch (const std::system_error&) {
        // A thread the system refuses: its place at the barrier is dropped (fewer threads).
        for (; t < threads; ++t) sync.arrive_and_drop();
      }
    }
    worker();
    for (auto& t : pool) t.join();
    ran = count.load();
  }
  SolveResult r = result_from_plan(p, opt, best.plan);
  r.iterations = ran;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "epsilon=%.3f mu_final=%.3f box_height=%.0f dummy=%d boxes=%lld "
                "bootstrap_peak=%lld best_iteration=%lld squeeze=%s",
                eps.eps, eps.mu_final, eps.final_height, int(prep.dummy),
                static_cast<long long>(best.boxes), static_cast<long long>(bootstrap_peak),
                static_cast<long long>(best.index), best.best_fit ? "best-fit" : "first-fit");
  r.detail = buf;
  return r;
}

}  // namespace

namespace idealloc {

// Our addition: re-squeeze a complete plan by first-fit in the order of its own offsets, and
// of its mirror image (decreasing offset + size), while that lowers the peak. Without gaps
// and alignment a buffer still fits at its old (or mirrored) offset, because everything
// placed before it sat below it and only moved down, so a pass never raises the peak;
// otherwise it might, and the lower plan is kept either way.
void recompact(PlacementEngine& engine, Solution& plan, bool enabled, const Deadline& deadline) {
  if (!enabled) return;
  const Problem& p = engine.problem();
  // Passes alternate direction: by increasing offset, then by decreasing top (offset+size),
  // i.e. the mirrored plan's increasing offset. Stop after two passes without gain.
  for (int pass = 0, fails = 0; pass < 8 && fails < 2; ++pass) {
    const bool mirrored = pass % 2 == 1;
    std::vector<int32_t> order(plan.offsets.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      if (!mirrored) return plan.offsets[size_t(a)] < plan.offsets[size_t(b)];
      return plan.offsets[size_t(a)] + p.buffers[size_t(a)].size >
             plan.offsets[size_t(b)] + p.buffers[size_t(b)].size;
    });
    GreedyResult g = place_in_order(engine, order, Fit::kFirst, plan.peak - 1, &deadline);
    if (!g.complete || g.solution.peak >= plan.peak) {
      ++fails;
      continue;
    }
    fails = 0;
    plan = std::move(g.solution);
  }
}

std::optional<Solution> squeeze_order(PlacementEngine& engine, std::span<const int32_t> order,
                                      int64_t bar, bool squeeze_best_fit,
                                      const Deadline& deadline, bool* best_fit) {
  GreedyResult g = place_in_order(engine, order, Fit::kFirst, bar, &deadline);
  // Our addition (docs/idealloc.md): the same order is also squeezed by best-fit, and
  // the lower of the two kept (first-fit on ties). idealloc squeezes by first-fit
  // only. Best-fit only counts when strictly below a complete first-fit plan.
  if (best_fit) *best_fit = false;
  if (squeeze_best_fit) {
    const int64_t bar_h = g.complete ? std::min(bar, g.solution.peak - 1) : bar;
    GreedyResult h = place_in_order(engine, order, Fit::kBest, bar_h, &deadline);
    if (h.complete && (!g.complete || h.solution.peak < g.solution.peak)) {
      g = std::move(h);
      if (best_fit) *best_fit = true;
    }
  }
  if (!g.complete) return std::nullopt;
  recompact(engine, g.solution, squeeze_best_fit, deadline);
  return std::move(g.solution);
}

std::optional<Solution> bootstrap_plan(const Problem& p, const SolveOptions& opt,
                                       const Deadline& deadline, bool squeeze_best_fit) {
  const int64_t n = int64_t(p.buffers.size());
  // The bootstrap stops at the time limit too; alone, the online allocator's plan then
  // stands in (inside a portfolio another member already holds a plan). It is made first,
  // so that nothing but the check is left once the time is up (every step polls it).
  std::optional<Solution> fallback = last_resort_plan(p, opt, deadline);
  std::optional<Solution> best;
  PlacementEngine engine(p, &deadline);
  GreedyResult g;
  if (!deadline.expired())
    g = place_in_order(engine, bootstrap_order(p, deadline), Fit::kFirst, INT64_MAX, &deadline);
  if (g.complete) {
    recompact(engine, g.solution, squeeze_best_fit, deadline);
    best = std::move(g.solution);
  } else {
    best = std::move(fallback);
  }
  // Equal sizes: interval-graph colouring rows, first-fit row by row, reach LOAD (each
  // buffer fits at its row's offset, so peak <= rows * size = LOAD).
  bool equal = n > 0;
  for (const Buffer& b : p.buffers) equal = equal && b.size == p.buffers[0].size;
  if (equal && !deadline.expired() && (!best || best->peak > interval_load(p, &deadline))) {
    const Prepared prep = prepare(p, &deadline);
    if (!prep.complete) return best;
    std::vector<int32_t> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    int32_t rows = 0;
    const std::vector<int32_t> row = interval_colouring(prep.base, all, rows, &deadline);
    if (rows < 0) return best;  // the deadline passed in the colouring
    std::vector<int32_t> order = all;
    if (!sort_until(order, [&](int32_t a, int32_t b) { return row[size_t(a)] < row[size_t(b)]; }, &deadline))
      return best;
    GreedyResult r = place_in_order(engine, order, Fit::kFirst, INT64_MAX, &deadline);
    // Ties keep the bootstrap (it counts as the lower index).
    if (r.complete && (!best || r.solution.peak < best->peak)) best = std::move(r.solution);
  }
  return best;
}

}  // namespace idealloc

void register_idealloc(std::vector<SolverInfo>& out) {
  out.push_back({"idealloc",
                 "BKKRT boxing (Thm 16/Cor 15/Thm 2/Lemma 1) as idealloc runs it: randomized "
                 "orders squeezed by first-fit and best-fit, best of N iterations",
                 [](const Problem& p, const SolveOptions& o) { return run_idealloc(p, o, true); },
                 Supports{.threads = true}});
  out.push_back({"idealloc-ff",
                 "idealloc as published: the same, squeezed by first-fit only",
                 [](const Problem& p, const SolveOptions& o) { return run_idealloc(p, o, false); },
                 Supports{.threads = true}});
  out.push_back({"idealloc-mcts",
                 "idealloc with Theorem 2's critical points chosen by a UCT tree over quantile "
                 "buckets (rollouts = boxing iterations, same squeeze), best plan kept",
                 [](const Problem& p, const SolveOptions& o) {
                   return idealloc::run_idealloc_mcts(p, o, idealloc::MctsParams{});
                 },
                 Supports{.threads = true}});
}

}  // namespace memplan
