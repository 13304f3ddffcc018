// The `idealloc-mcts` solver: idealloc's boxing iterations (rollouts) with Theorem 2's
// critical points chosen by a UCT tree instead of uniformly (../shared/research/mcts-boxing.md).
//
// A rollout is one boxing iteration. Its first `depth` critical-point decisions are tree
// decisions: the decision's candidates (the multiset {birth+1, death-1} of its jobs) are
// split by time into `buckets` quantile buckets, the tree picks a bucket, and the point is
// drawn uniformly inside it. Later decisions and the unbox class order are uniform, as in
// plain idealloc. The tree is keyed by the bucket path (open-loop: the same path may meet
// different candidate sets, the statistics average over them). Selection: with probability
// eps a uniform child, else an unvisited child, else argmax of
// (1-alpha) mean + alpha max + c sqrt(ln N / n). One node is expanded per rollout.
//
// Reward: a rollout is squeezed (first-fit and best-fit, recompacted: as idealloc does) with
// abandonment above cut = best * (1 + slack); r = (cut - peak) / (cut - best) clamped to
// [0, 1], 0 when abandoned. `best` and `cut` move only between rounds of 32 rollouts.
//
// Threads: root parallelisation. Thread t of T runs its own tree on rollouts t, t+T, ...,
// each rollout's random stream is iteration_rng(seed, rollout index) as in `idealloc`, and
// the best plan wins by (peak, rollout index). Threads share nothing while they run, so the
// plan depends on the seed and thread count only (unless a time limit cuts the run short).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <system_error>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/timeline.h"
#include "solvers/idealloc/idealloc.h"

namespace memplan::idealloc {
namespace {

constexpr int64_t kRound = 32;

// Flat tree: node i's children are kids[i * B + b] (-1: none).
struct Tree {
  int B = 8;
  int64_t max_nodes = 0;
  std::vector<int32_t> kids;
  std::vector<uint32_t> visits;
  std::vector<float> sum, max;
  int32_t add() {
    kids.insert(kids.end(), size_t(B), -1);
    visits.push_back(0);
    sum.push_back(0);
    max.push_back(0);
    return int32_t(visits.size() - 1);
  }
  int64_t size() const { return int64_t(visits.size()); }
};

class TreeSource final : public DecisionSource {
 public:
  TreeSource(Tree& tree, const MctsParams& mp, std::mt19937_64 rng)
      : tree_(tree), mp_(mp), rng_(rng) {
    path_.push_back(0);
  }
  const std::vector<int32_t>& path() const { return path_; }

  int64_t point(const Arena& arena, std::span<const int32_t> jobs) override {
    const uint64_t n = 2 * uint64_t(jobs.size());
    if (node_ < 0 || depth_ >= mp_.depth) {  // playout: uniform, as RandomSource
      const uint64_t c = std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_);
      const Job& j = arena.jobs[jobs[c / 2]];
      return (c % 2 == 0) ? j.birth + 1 : j.death - 1;
    }
    ++depth_;
    const int nb = int(std::min<uint64_t>(uint64_t(tree_.B), n));
    const int b = mp_.tree ? select(nb) : int(std::uniform_int_distribution<int>(0, nb - 1)(rng_));
    descend(b);
    // The point: a uniform rank inside bucket b of the candidates sorted by time.
    const uint64_t lo = uint64_t(b) * n / uint64_t(nb), hi = uint64_t(b + 1) * n / uint64_t(nb);
    const uint64_t r = std::uniform_int_distribution<uint64_t>(lo, hi - 1)(rng_);
    times_.clear();
    for (int32_t j : jobs) {
      times_.push_back(arena.jobs[j].birth + 1);
      times_.push_back(arena.jobs[j].death - 1);
    }
    std::nth_element(times_.begin(), times_.begin() + ptrdiff_t(r), times_.end());
    return times_[r];
  }

  void order_classes(std::vector<std::pair<size_t, size_t>>& classes) override {
    std::shuffle(classes.begin(), classes.end(), rng_);
  }

 private:
  int select(int nb) {
    std::uniform_real_distribution<double> unit(0, 1);
    if (unit(rng_) < mp_.eps) return std::uniform_int_distribution<int>(0, nb - 1)(rng_);
    const int32_t* k = &tree_.kids[size_t(node_) * size_t(tree_.B)];
    // Unvisited children first, a uniform one among them.
    int unvisited = 0;
    for (int b = 0; b < nb; ++b) unvisited += k[b] < 0;
    if (unvisited > 0) {
      int pick = std::uniform_int_distribution<int>(0, unvisited - 1)(rng_);
      for (int b = 0; b < nb; ++b)
        if (k[b] < 0 && pick-- == 0) return b;
    }
    const double log_n = std::log(double(tree_.visits[size_t(node_)]) + 1.0);
    int best = 0;
    double best_score = -1;
    for (int b = 0; b < nb; ++b) {
      const size_t c = size_t(k[b]);
      const double v = std::max(1.0, double(tree_.visits[c]));
      const double score = (1 - mp_.alpha) * tree_.sum[c] / v + mp_.alpha * tree_.max[c] +
                           mp_.c * std::sqrt(log_n / v);
      if (score > best_score) best_score = score, best = b;
    }
    return best;
  }

  // Moves to child b, expanding it if this rollout has not expanded a node yet; off the tree
  // (playout) after an expansion or when the child cannot be made.
  void descend(int b) {
    const size_t slot = size_t(node_) * size_t(tree_.B) + size_t(b);
    int32_t child = tree_.kids[slot];
    bool expanded = false;
    if (child < 0 && !expanded_ && tree_.size() < tree_.max_nodes) {
      child = tree_.add();
      tree_.kids[slot] = child;  // after add(): kids may have moved
      expanded = expanded_ = true;
    }
    if (child >= 0) path_.push_back(child);
    node_ = expanded ? -1 : child;
  }

  Tree& tree_;
  const MctsParams& mp_;
  std::mt19937_64 rng_;
  int32_t node_ = 0;
  int depth_ = 0;
  bool expanded_ = false;
  std::vector<int32_t> path_;
  thread_local static std::vector<int64_t> times_;
};
thread_local std::vector<int64_t> TreeSource::times_;

struct Best {
  int64_t index = -1;  // rollout; -1: bootstrap
  std::optional<Solution> plan;
  bool better_than(const Best& o) const {
    if (!plan) return false;
    if (!o.plan) return true;
    return plan->peak != o.plan->peak ? plan->peak < o.plan->peak : index < o.index;
  }
};

struct ThreadStats {
  int64_t rollouts = 0, aborted = 0, nodes = 0;
};

}  // namespace

SolveResult run_idealloc_mcts(const Problem& p, const SolveOptions& opt, const MctsParams& mp) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const int64_t load = interval_load(p, &deadline);  // -1 once the deadline has passed
  const int64_t n = int64_t(p.buffers.size());
  Best best;
  best.plan = bootstrap_plan(p, opt, deadline, true);
  const int64_t bootstrap_peak = best.plan ? best.plan->peak : -1;
  const int64_t budget = opt.iterations > 0 ? opt.iterations : 1000;
  std::vector<ThreadStats> stats;
  Prepared prep;
  if (best.plan && best.plan->peak > load && n > 1 && !deadline.expired() &&
      (prep = prepare(p, &deadline)).complete) {
    const EpsilonChoice eps = epsilon_search(prep.heights);
    const int threads = int(std::max<int64_t>(1, std::min<int64_t>(opt.threads, budget)));
    stats.resize(size_t(threads));
    std::mutex mu;
    const int64_t start_peak = best.plan->peak;
    auto worker = [&](int t) {
      PlacementEngine engine(p);
      Tree tree;
      tree.B = std::clamp(mp.buckets, 1, 64);
      tree.max_nodes = std::max<int64_t>(1, mp.max_nodes);
      tree.add();  // the root
      Best local;
      int64_t bar = start_peak, round_best = start_peak;  // bar: best of earlier rounds
      ThreadStats& st = stats[size_t(t)];
      for (int64_t k = 0;; ++k) {
        const int64_t i = k * threads + t;
        if (i >= budget || deadline.expired() || (local.plan && local.plan->peak <= load)) break;
        if (k > 0 && k % kRound == 0) bar = round_best;
        std::optional<Solution> plan;
        const int64_t cut = bar + int64_t(std::floor(double(bar) * mp.slack));
        if (mp.pass_through) {
          std::mt19937_64 rng = iteration_rng(opt.seed, uint64_t(i));
          RandomSource src(rng);
          const IterationOrder io = iteration_order(prep, eps, src);
          plan = squeeze_order(engine, io.order, cut, true, deadline);
        } else {
          TreeSource src(tree, mp, iteration_rng(opt.seed, uint64_t(i)));
          const IterationOrder io = iteration_order(prep, eps, src);
          plan = squeeze_order(engine, io.order, cut, true, deadline);
          double reward = 0;
          if (plan) {
            reward = cut > bar ? double(cut - plan->peak) / double(cut - bar)
                               : (plan->peak <= bar ? 1.0 : 0.0);
            reward = std::clamp(reward, 0.0, 1.0);
          }
          for (int32_t v : src.path()) {
            ++tree.visits[size_t(v)];
            tree.sum[size_t(v)] += float(reward);
            tree.max[size_t(v)] = std::max(tree.max[size_t(v)], float(reward));
          }
        }
        ++st.rollouts;
        if (!plan) {
          ++st.aborted;
          continue;
        }
        round_best = std::min(round_best, plan->peak);
        Best c{i, std::move(plan)};
        if (c.better_than(local)) local = std::move(c);
      }
      st.nodes = tree.size();
      std::lock_guard<std::mutex> lock(mu);
      if (local.better_than(best)) best = std::move(local);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) {
      try {
        pool.emplace_back(worker, t);
      } catch (const std::system_error&) {
        // A thread the system refuses: its rollouts are not run (fewer rollouts, same seeds).
        break;
      }
    }
    worker(0);
    for (auto& th : pool) th.join();
  }
  ThreadStats total;
  for (const ThreadStats& s : stats) {
    total.rollouts += s.rollouts;
    total.aborted += s.aborted;
    total.nodes += s.nodes;
  }
  SolveResult r = result_from_plan(p, opt, best.plan);
  r.iterations = total.rollouts;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "policy=%s rollouts=%lld tree_nodes=%lld best_at_rollout=%lld "
                "aborted_share=%.3f bootstrap_peak=%lld",
                mp.pass_through ? "random" : (mp.tree ? "uct" : "buckets"),
                static_cast<long long>(total.rollouts), static_cast<long long>(total.nodes),
                static_cast<long long>(best.index),
                total.rollouts ? double(total.aborted) / double(total.rollouts) : 0.0,
                static_cast<long long>(bootstrap_peak));
  r.detail = buf;
  return r;
}

}  // namespace memplan::idealloc
