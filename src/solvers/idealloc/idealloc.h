// Internal: the steps of the `idealloc` solver, exposed so that tests can call them.
//
// The solver runs the boxing chain of Buchsbaum, Karloff, Kenyon, Reingold and Thorup,
// "OPT versus LOAD in Dynamic Storage Allocation" (STOC 2003; "BKKRT" below), the way the
// research tool idealloc runs it (docs/idealloc.md): boxing only produces a randomized
// *order*; the final addresses come from a first-fit pass on the shared placement engine.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "memplan/placement.h"
#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::idealloc {

// Times are normalized: a buffer live during [s, e) becomes the job (2s, 2e), live at the
// integer t iff birth < t < death. Every job then has the interior points birth+1 and
// death-1 (death - birth >= 2), which Theorem 2's random critical point needs, and two jobs
// overlap iff b1 < d2 && b2 < d1, exactly the half-open test.
struct Job {
  int64_t birth = 0;
  int64_t death = 0;
  int64_t height = 0;
  int32_t first_child = 0;  // into Arena::children; boxes only
  int32_t child_count = 0;  // 0: an original buffer (or the dummy)
  int32_t buffer = -1;      // original buffer index; -1 for boxes and the dummy
};

// Every job and box of one iteration. Boxes reference their children by index into the one
// shared `children` vector (no copies), so memory is linear in jobs + boxes.
struct Arena {
  std::vector<Job> jobs;
  std::vector<int32_t> children;
  bool is_box(int32_t j) const { return jobs[j].child_count > 0; }
  std::span<const int32_t> kids(int32_t j) const {
    return {children.data() + jobs[j].first_child, size_t(jobs[j].child_count)};
  }
  // Appends a box of the given height whose lifetime is the hull of its children's.
  int32_t add_box(std::span<const int32_t> members, int64_t height);
};

// Every random choice of one boxing iteration goes through a DecisionSource: plain idealloc
// draws uniformly (RandomSource), idealloc-mcts lets a search tree steer the choices
// (src/solvers/idealloc/mcts.cpp). Two kinds of choice exist:
//  * point: Theorem 2's critical point, one element of the multiset {birth+1, death-1} over
//    `jobs` (element 2i is jobs[i]'s birth+1, 2i+1 its death-1);
//  * classes: the stacking order of a box's exact-size classes in unbox (a permutation).
class DecisionSource {
 public:
  virtual ~DecisionSource() = default;
  virtual int64_t point(const Arena& arena, std::span<const int32_t> jobs) = 0;
  virtual void order_classes(std::vector<std::pair<size_t, size_t>>& classes) = 0;
};

// Uniform draws from an mt19937_64, exactly the draws idealloc made before the interface
// existed (so a seed gives the same plan as before).
class RandomSource final : public DecisionSource {
 public:
  explicit RandomSource(std::mt19937_64& rng) : rng_(rng) {}
  int64_t point(const Arena& arena, std::span<const int32_t> jobs) override;
  void order_classes(std::vector<std::pair<size_t, size_t>>& classes) override;

 private:
  std::mt19937_64& rng_;
};

// The originals (one job per buffer, normalized times) and, when §3.2's rule asks for it,
// the dummy job as the last entry.
struct Prepared {
  Arena base;
  int32_t originals = 0;
  bool dummy = false;
  int64_t h_min = 0, h_max = 0;  // over base (dummy included)
  std::vector<int64_t> heights;  // the distinct job heights (dummy included), increasing
  bool complete = true;          // false: the deadline passed first; the rest is unusable
};

// Builds the base arena and applies the dummy job rule (see dummy_job_rule). With a
// deadline its sorts and loops poll it (1M buffers: ~0.3 s of CPU in all): once it has
// passed, the result has complete = false.
Prepared prepare(const Problem& p, const Deadline* deadline = nullptr);

inline constexpr double kPhiHat = 0.6180339887498949;  // (sqrt 5 - 1) / 2
inline constexpr double kDummyRatio = 2216.54;

// lg^2 r = (log2 r)^2.
double lg2(double r);
// idealloc's range for epsilon given r = h_max/h_min: the convergence test of `rogue` holds
// for small_end <= eps < big_end (derivation in docs/idealloc.md).
double small_end(double r);
double big_end(double r);

// §3.2: true when small_end(r) >= big_end(r), i.e. no epsilon makes Theorem 16's first phase
// safe (r <= lg^2 r / phi^6, about r < 2216.5); a dummy job of height ceil(2216.54 h_min)
// spanning all time is then added so that the boxing can start.
bool dummy_job_rule(int64_t h_min, int64_t h_max);

// One `rogue` round's parameters on an instance with heights in [h_min, h_max] (Theorem 16,
// first phase, BKKRT p. 561): mu = eps / lg^2 r, H = ceil(mu^5 h_max / lg^2 r), jobs of height
// <= target = floor(mu H) are boxed. safe = mu < phi_hat && target >= h_min.
struct RogueStep {
  bool safe = false;
  double mu = 0;
  int64_t box_height = 0;
  int64_t target = 0;
};
RogueStep rogue_step(double eps, int64_t h_min, int64_t h_max);

// Theorem 16, first phase, repeated while safe ("rogue"): boxes the jobs of height <= target
// with Corollary 15 and repeats on boxes + large jobs. Returns the resulting top-level jobs.
std::vector<int32_t> rogue(Arena& arena, std::vector<int32_t> jobs, double eps,
                           std::mt19937_64& rng);
std::vector<int32_t> rogue(Arena& arena, std::vector<int32_t> jobs, double eps,
                           DecisionSource& src);

// The heights-only simulation of `rogue` (its height profile does not depend on the random
// choices): the resulting h_max / h_min ratio, and its h_max, h_min.
struct RogueProfile {
  double ratio = 0;
  int64_t h_min = 0, h_max = 0;
};
RogueProfile rogue_profile(std::vector<int64_t> heights, double eps);

// §3.3 epsilon search: from small_end, step eps += 0.01 (big_end - eps), keep the eps whose
// rogue result has the smallest h_max/h_min, stop after 3 non-improvements.
struct EpsilonChoice {
  double eps = 0;
  double mu_final = 0;       // eps / lg^2 r(pre-boxed), capped at 0.99 phi_hat
  double final_height = 0;   // H_f = h_max / mu_final
};
EpsilonChoice epsilon_search(const std::vector<int64_t>& heights);

// Corollary 15 (BKKRT p. 561): size classes (1+mu)^(i-1) < h <= (1+mu)^i with key
// h_i = floor((1+mu)^i); each class is a unit-height instance boxed by Theorem 2 with
// k = floor(H / h_i) rows per box. All returned boxes have height floor(H).
std::vector<int32_t> corollary15(Arena& arena, std::span<const int32_t> jobs, double H, double mu,
                                 std::mt19937_64& rng);
// The same, appending the boxes to `out` (per-thread scratch, no allocation once warm).
void corollary15_into(Arena& arena, std::span<const int32_t> jobs, double H, double mu,
                      DecisionSource& src, std::vector<int32_t>& out);

// Size class index of height h: the least i with h <= (1+mu)^i.
int size_class(int64_t h, double mu);

// Theorem 2 (BKKRT): boxes unit-height jobs (a size class) into boxes of <= k rows each of
// height box_height, by critical points, Lemma 1 and interval-graph colouring, recursing into
// the intervals between critical points. Iterative (explicit work stack).
std::vector<int32_t> theorem2(Arena& arena, std::vector<int32_t> jobs, int64_t k,
                              int64_t box_height, double mu, std::mt19937_64& rng);
void theorem2_into(Arena& arena, std::span<const int32_t> jobs, int64_t k, int64_t box_height,
                   double mu, DecisionSource& src, std::vector<int32_t>& out);

// Lemma 1 (BKKRT): jobs sharing a live point. Peels outer strips of k*ceil(1/mu^2) earliest
// births and latest deaths (returned in `unresolved`), then alternately inner strips of
// k*ceil(1/mu) earliest births / latest deaths, each cut into boxes of <= k jobs.
struct Lemma1Result {
  std::vector<int32_t> boxes;
  std::vector<int32_t> unresolved;
};
Lemma1Result lemma1(Arena& arena, std::span<const int32_t> group, int64_t k, int64_t box_height,
                    double mu);
// The same, appending to `boxes` and `unresolved`.
void lemma1_into(Arena& arena, std::span<const int32_t> group, int64_t k, int64_t box_height,
                 double mu, std::vector<int32_t>& boxes, std::vector<int32_t>& unresolved);

// Interval-graph colouring in event order (deaths before births at equal times, among equal
// births the later death first), each birth taking the lowest free row. Returns the row of
// each input job (parallel to `jobs`) and sets `rows` to the number of rows used. With a
// deadline its sorts and sweep poll it (the equal-size special case colours every buffer:
// 1M all live is O(n^2 / 64) word reads): empty, rows = -1, once it has passed.
std::vector<int32_t> interval_colouring(const Arena& arena, std::span<const int32_t> jobs,
                                        int32_t& rows, const Deadline* deadline = nullptr);
// The same into `row`, also giving the positions of `jobs` in the colouring's birth order
// (`by_birth`); returns the number of rows, or -1 once the deadline (if any) has passed.
// Lowest free row: a bitmap, not a heap.
int32_t colour_into(const Arena& arena, std::span<const int32_t> jobs, std::vector<int32_t>& row,
                    std::vector<int32_t>& by_birth, const Deadline* deadline = nullptr);

// §3.7: loose offsets of the original buffers (index = buffer; the dummy is skipped).
// Top-level boxes are coloured into rows of their common height; each box's contents are
// laid out from the box's offset (iteratively, explicit stack).
std::vector<int64_t> unbox(const Arena& arena, std::span<const int32_t> top, int32_t buffers,
                           std::mt19937_64& rng);
std::vector<int64_t> unbox(const Arena& arena, std::span<const int32_t> top, int32_t buffers,
                           DecisionSource& src);

// Buffer indices by increasing loose offset, ties by index: the squeeze order (§3.8).
std::vector<int32_t> order_by_offset(const std::vector<int64_t>& loose);

// One randomized iteration up to the squeeze order: rogue, final Corollary 15, unbox.
struct IterationOrder {
  std::vector<int32_t> order;
  int64_t boxes = 0;  // top-level boxes of the final Corollary 15
};
IterationOrder iteration_order(const Prepared& prep, const EpsilonChoice& eps,
                               std::mt19937_64& rng);
IterationOrder iteration_order(const Prepared& prep, const EpsilonChoice& eps,
                               DecisionSource& src);

// The RNG of iteration `index` under `seed` (splitmix64 of both, then mt19937_64).
std::mt19937_64 iteration_rng(uint64_t seed, uint64_t index);

// The parts of the `idealloc` solver that `idealloc-mcts` shares (solver.cpp), so that the
// two differ only in how the boxing's choices are made.
// §3.1 bootstrap (size, then lifetime, first-fit; the equal-size colouring special case); the
// online plan when the bootstrap cannot finish alone. May be empty inside a portfolio.
std::optional<Solution> bootstrap_plan(const Problem& p, const SolveOptions& opt,
                                       const Deadline& deadline, bool squeeze_best_fit);
// Re-squeezes a complete plan by its own offsets and mirrored while that lowers the peak.
void recompact(PlacementEngine& engine, Solution& plan, bool enabled, const Deadline& deadline);
// Squeezes `order` by first-fit (abandoned above `bar`) and, with squeeze_best_fit, also by
// best-fit, keeps the lower, then recompacts it. Empty when both passes were abandoned.
// `best_fit` tells which squeeze won.
std::optional<Solution> squeeze_order(PlacementEngine& engine, std::span<const int32_t> order,
                                      int64_t bar, bool squeeze_best_fit,
                                      const Deadline& deadline, bool* best_fit = nullptr);

// idealloc-mcts (mcts.cpp): the parameters of the tree search over the boxing's critical
// points. Defaults chosen on generated instances only (`idealloc_mcts_bench tune 0.3 5`:
// uniform n=300 with long lifetimes, tiling n=200; see README).
struct MctsParams {
  bool tree = true;        // false: uniform random bucket, no tree ("buckets" arm)
  bool pass_through = false;  // true: RandomSource draws, no tree (slack 0: plain idealloc)
  int buckets = 8;         // quantile buckets of a decision's candidate points
  int depth = 12;          // the first `depth` point decisions of a rollout are tree decisions
  double c = 0.5;          // UCT exploration constant (rewards in [0, 1])
  double eps = 0.25;       // probability of a uniformly random child (the escape)
  double alpha = 0.5;      // weight of a child's max reward against its mean
  double slack = 0.10;     // rollouts squeeze to completion up to best * (1 + slack)
  int64_t max_nodes = 1'000'000;  // no expansion beyond this many tree nodes
};
SolveResult run_idealloc_mcts(const Problem& p, const SolveOptions& opt, const MctsParams& mp);

}  // namespace memplan::idealloc
