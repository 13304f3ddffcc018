// Solver `exact`: decides "does a plan with peak <= C exist?" and, without a capacity,
// minimizes the peak with proof. Restarts across strategies (the canonical and the
// lowest-cell search, each under MiniMalloc's static preorders) with doubling node budgets
// (MiniMalloc's round robin); every probe is its own search, and a probe that runs out of
// budget or time is "unknown", never "infeasible".
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

#include "core/arith.h"
#include "memplan/bounds.h"
#include "memplan/driver.h"
#include "memplan/orders.h"
#include "memplan/placement.h"
#include "solvers/exact/deep_fill.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/graph_search.h"
#include "solvers/exact/dive.h"
#include "solvers/exact/gap_relaxation.h"
#include "solvers/exact/graph_dive.h"
#include "solvers/exact/window.h"
#include "solvers/exact/window_bound.h"
#include "solvers/exact/aligned_cells.h"
#include "solvers/exact/restarts.h"
#include "solvers/exact/search.h"
#include "solvers/families.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan {
namespace {

// Overlap lists up to this many pairs (~320 MB); beyond, the search scans its part for
// overlaps instead (Instance::implicit: Y_1's 180M pairs would take 1.4 GB as lists).
constexpr int64_t kMaxPairs = 40'000'000;
constexpr int32_t kTopDown = 4096;  // buffers beyond which the ladder is probed top down

// Time a time-limited run keeps after its search for completing the deepest placement
// (deep_fill.h): fill_deepest's four greedy passes took 0.04 s at 3,200 buffers and 0.08 s
// at 6,400 (pinwheels, load average ~7), dive_deepest's dives ~1.5e-9 n^2 s each (0.018 s
// at 3,200, 0.055 s at 6,400), and the search's last round ends up to ~0.02 s after its
// deadline (threads joining). Room for the greedy passes and about two dives, at most a
// twentieth of the limit; none beyond kFillMax buffers (no fill is started there: the cell
// search rarely runs, and a fill would cost ~1 s per 1M buffers). Both poll the deadline
// and return their best so far.
constexpr size_t kFillMax = 16384;
double fill_reserve(double limit, size_t n) {
  if (!(limit > 0) || !std::isfinite(limit) || n > kFillMax) return 0;
  const double m = static_cast<double>(n);
  return std::min(0.05 * limit, 0.05 + 4e-6 * m + 3e-9 * m * m);
}
const char* const kPreorders[] = {"WAT", "TAW", "TWA", "TWO"};
// Perfect packings: strategies of restarts of the cell search under jittered orders, and
// their budget weight (strategies).
constexpr uint64_t kJitteredCellSearches = 4;
constexpr int64_t kJitterWeight = 1;
constexpr int64_t kRotationWeight = 4;  // root rotations on aligned perfect packings
constexpr int64_t kWellsWeight = 4;  // the long cell search over all wells, under WAT
constexpr uint64_t kRandomCellOrders = 3;  // each after a jittered one: tilings like them
constexpr int64_t kCellSpans = 1 << 20;  // cell search only below this many section entries
constexpr size_t kMemoSlots = size_t{1} << 22;  // failure memos of a round: 64 MB in all

bool has_gaps(const Problem& p) {
  for (const Buffer& b : p.buffers)
    if (!b.gaps.empty()) return true;
  return false;
}

int64_t round_up(int64_t x, int64_t g) { return (x + g - 1) / g * g; }

// The one place a lower bound is derived for the search: every canonical plan's peak is a
// multiple of g (granularity_of), and an optimal plan can be made canonical, so when no plan
// has a peak below `at_least`, none has one below the first multiple of g at or above it.
// After a refuted probe at `target` (no plan with peak <= target) that is
// bound_from(target + 1, g): target + g only when target is itself a multiple of g (the
// ladder's rungs below a shared upper bound are not; see trust_solvers_test.cpp).
int64_t bound_from(int64_t at_least, int64_t g) { return round_up(at_least, g); }

// Every canonical peak is a multiple of the instance's granularity; with gaps (searched as
// full rectangles) nothing is known, so 1.
int64_t granularity_of(const Problem& p, const exact::Instance& in) { return has_gaps(p) ? 1 : in.granularity; }

Solution plan_of(const Problem& p, std::vector<int64_t> offsets) {
  Solution s;
  s.peak = peak_of(p, offsets);
  s.offsets = std::move(offsets);
  return s;
}

// The best peak known anywhere: `best`'s, or another portfolio member's.
int64_t known_upper(const std::optional<Solution>& best, const SolveOptions& opt) {
  int64_t ub = best ? best->peak : INT64_MAX;
  if (opt.shared_upper_bound) ub = std::min(ub, opt.shared_upper_bound->load());
  return ub;
}

// The best first-fit plan over the standard orders, each stopped by the time limit, or
// `best` (the online allocator's plan, computed before the set-up) if none completes: the
// first incumbent. Every step polls the deadline.
std::optional<Solution> incumbent(const Problem& p, const Deadline& deadline, std::optional<Solution> best) {
  if (!best || deadline.expired()) return best;
  PlacementEngine engine(p, &deadline);
  // The conflict order first: on dense inputs it is both strong and the fastest to place.
  std::vector<Order> orders = {Order::kConflictDesc};
  for (Order o : kAllOrders)
    if (o != Order::kConflictDesc) orders.push_back(o);
  for (Order o : orders) {
    if (deadline.expired()) break;
    const std::vector<int32_t> order = make_order(p, o, &deadline);
    // A pass that completes is below the best so far (it stops above best->peak - 1).
    GreedyResult g = place_in_order(engine, order, Fit::kFirst, best->peak - 1, &deadline);
    if (g.complete) best = std::move(g.solution);
  }
  return best;
}

// One way to search: the canonical search (plain, or re-ranking its parts on decomposition),
// or the lowest-cell search with a cell choice, each under a static preorder.
struct Strategy {
  enum Kind { kCanonical, kRestart, kCellsLeastSlack, kCellsFewestBranches, kCellsWells } kind;
  std::vector<int32_t> order;
  std::string keys;  // preorder keys the re-ranking search ranks parts by (others: empty)
  int64_t weight = 1;  // node budget per round, in multiples of the round's budget
  // A restart under a random order (perfect packings): it runs in the first round at each
  // budget only, not in the rounds the ladder repeats at that budget (Target::repeat).
  bool restart = false;
  // Nonzero: restarts of the fewest-branches cell search under jittered lifetime-first
  // orders (restarts.h) seeded from it, a new order every 2n nodes of the budget.
  uint64_t jitter = 0;
  // Aligned perfect packings: restarts with each root candidate first (rotate_root_cells).
  bool rotate = false;

  // Whether it runs at every rung of the minimization ladder, or only at its tightest.
  bool everywhere() const { return kind == kCanonical || kind == kRestart; }

  exact::SearchResult run(const exact::Instance& in, int64_t capacity, int64_t budget,
                          const Deadline& deadline, exact::FailureMemo* memo) const {
    if (jitter) return exact::restart_cells(in, capacity, jitter, budget, deadline, memo);
    if (rotate) return exact::rotate_root_cells(in, capacity, order, budget, deadline, memo);
    if (kind == kCanonical || kind == kRestart)
      return exact::search(in, capacity, order, budget, deadline, keys, memo);
    return exact::search_cells(in, capacity, order,
                               kind == kCellsLeastSlack        ? exact::CellChoice::kLeastSlack
                               : kind == kCellsFewestBranches ? exact::CellChoice::kFewestBranches
                                                              : exact::CellChoice::kWells,
                               budget, deadline, memo);
  }
};

// Whether strategies() lists cell searches. The cell search does not take pre-placed buffers,
// and each of its nodes costs the sum of the unplaced buffers' spans: on large models
// (bert_base: 5 ms a node) it would only hold up the rounds. Not on perfect packings, where
// only the cell search finds plans (tilings of 6,400 buffers have 0.6-1.2M section entries;
// seed 100, 1.1M, got only the canonical searches and was not solved in 20 s).
bool cell_searches(const exact::Instance& in, bool perfect) {
  int64_t spans = 0;
  for (int32_t i = 0; i < in.n; ++i) {
    if (in.fixed[i]) return false;
    spans += in.sec_hi[i] - in.sec_lo[i];
  }
  return spans <= kCellSpans || perfect;
}

// The round robin's strategies, in order, with their budget weights. Measured on A-K (one
// strategy alone, doubling budgets from 2n, memos kept; nodes to solve):
//  - the lowest-cell search, least slack: under TAW C (990), under TWA H (1,409) and A
//    (1,686); fewest branches: under WAT B (196), under TAW D (5,726);
//  - the re-ranking canonical search: under TWA the only one that solves I (3,662), and
//    G, J, K in 500-2,500 (4x budget); under TWO (ties of TW by the number of overlaps)
//    E (765) and D (2,626) (2x budget);
//  - the plain canonical search under TWA: F (462).
// The order and weights were picked by running the portfolio on A-K (one thread, node
// counts, which do not depend on the machine) to minimize the largest ratio of nodes to
// MiniMalloc's time on the same instance: C decides it, at 5,056 nodes (the previous
// order, re-ranking TWA first at 6x: 12,366 on C and 22,908 on H). These choices are
// fitted to A-K (as MiniMalloc's own three preorders are to its data); on other instances
// the round robin still tries every strategy, only less early.
// Without the cell search (pre-placed buffers, or long lifetimes): re-ranking TWA at 6x
// and TWO at 2x, then the canonical search under TWA, WAT and TAW, plain, and WAT and TAW
// re-ranking.
// When every section's total equals the tightest target (`perfect`: a perfect packing is
// asked for, no byte of any section may be wasted), the same strategies, with the
// lowest-cell search with the fewest branches moved up to third and fourth, under TAW then
// WAT, and followed by that search under random orders (restarts), before the canonical
// ones. On generated perfect packings the fewest-branches search finds them in about n
// nodes (tiling, 1,600 buffers: 1,744-3,837 nodes on seeds 100-103), where the general
// order reached it only after 20n nodes of the others. Under random orders (random
// tie-breaks among a cell's candidates) it either finds a packing in about n nodes or goes
// wrong early and thrashes, and where it goes wrong depends on the tie-breaks (tiling,
// 3,200 buffers, seeds 100-104, 2n nodes: TAW found 2 of 5, three random orders 10 of 15),
// so independent orders are restarts. The two least-slack searches keep their place first:
// they find the pinwheels the fewest-branches search misses in the first round (pinwheel
// 800, tuning seeds 11-16: first 1.5-6n nodes on the least-slack-first order, 2-3n more
// for each search put before them; README "Perfect packings: the order of 3c47bcf first").
// The restarts run once per budget (Strategy::restart): a ladder that finds a plan at an
// upper rung every round repeats its rounds at one budget, and restarts re-run there
// lengthened every round by 6 x 4n nodes (pinwheel 800: 88,822 nodes a round against
// 69,616), so the upper rungs, where those plans come from, got fewer rounds; and each
// restart gets at most 2n nodes (its first round at the bound gave it 4n). (Since then a
// perfect packing's rounds probe the bound alone, see the ladder's bound_only, and are not
// repeated; the skip still applies once the bound is refuted and the rungs return.)
// Issue 21 item 1 (README): on perfect packings the list now starts with the cell search
// over all wells (CellChoice::kWells) under WAT, then kJitteredCellSearches strategies of
// restarts under jittered lifetime-first orders (restarts.h: a fresh order every 2n nodes,
// new orders every round), the first kRandomCellOrders of them each followed by the
// fewest-branches search under a random order, then the least-slack searches and fewest
// branches under TAW. Random orders found no pinwheel of 800-1,600 buffers within 2n nodes
// (tuning seeds 100-109, 0 of 10 each), lifetime-first orders 6 and 4 of 10; but without
// them tilings of 6,400 buffers lost seeds (report seeds 1-10 side by side with main: 5
// solved against 7), and with them interleaved the tuning seeds 100-109 gave 10 of 10.
// Since the cell search backjumps (conflicts.h), one long search pays more than restarts
// of the same nodes (README, "the perfect-packing list re-tuned"): the search over all
// wells under WAT gets kWellsWeight times the round's budget (tuning seeds 100-109, 20 s of
// CPU on 2 threads: pinwheels of 1,600 10/10 against 9/10 at weight 1, 3,200 6/10 and
// tilings of 6,400 10/10 either way), and the jittered restarts lengthen with the budget
// (restart_length). The searches over all wells (the long one and the restarts) choose
// their cells by dead-end weights (weigh_dead_ends in search.h, with the figures).
// No instance of A-K is perfect, so their order is unchanged.
// With a deadline, an empty list once it has passed: the four preorders sort every buffer
// (under ASan, 0.47 s at 60k buffers, the whole of a time limit).
std::vector<Strategy> strategies(const exact::Instance& in, bool perfect = false, const Deadline* deadline = nullptr) {
  std::vector<std::vector<int32_t>> orders;
  for (const char* keys : kPreorders) {
    orders.push_back(exact::preorder(in, keys, deadline));
    if (deadline && deadline->expired()) return {};  // (an order the limit stopped is empty)
  }
  enum { kWAT, kTAW, kTWA, kTWO };
  auto make = [&](Strategy::Kind kind, int preorder, int64_t weight) {
    return Strategy{kind, orders[preorder], kind == Strategy::kRestart ? kPreorders[preorder] : "", weight};
  };
  if (!cell_searches(in, perfect))
    return {make(Strategy::kRestart, kTWA, 6), make(Strategy::kRestart, kTWO, 2),
            make(Strategy::kCanonical, kTWA, 1), make(Strategy::kCanonical, kWAT, 1),
            make(Strategy::kCanonical, kTAW, 1), make(Strategy::kRestart, kWAT, 1),
            make(Strategy::kRestart, kTAW, 1)};
  // Neither pre-placed nor perfect: the list A-K were tuned on (docs/tuning.md).
  auto general = [&]() -> std::vector<Strategy> {
    return {make(Strategy::kCellsLeastSlack, kTAW, 1),     make(Strategy::kCellsLeastSlack, kTWA, 1),
            make(Strategy::kRestart, kTWA, 4),             make(Strategy::kRestart, kTWO, 2),
            make(Strategy::kCanonical, kTWA, 1),           make(Strategy::kCellsFewestBranches, kWAT, 1),
            make(Strategy::kCellsFewestBranches, kTAW, 1)};
  };
  // Aligned perfect packings: only the cell search over all wells finds them (800 buffers,
  // tuning seeds 100-102 and 106-109, one search of 64n nodes under each of 5 orders:
  // `exact_scale_bench strategies 800 aligned S-S 64 J1,J2,WAT,TAW,R1 2,3,4`), so the list is that search under three preorders and restarts
  // of it (which carry its dead-end weights, search.h), then the whole `general` list
  // for the rungs above the bound, where these packings are not found: with only
  // two canonical searches there, aligned 400 s2 ended 4 bytes higher at 5 s and lost its
  // optimum at 10 s (issue 18's no-regression table). Tuning seeds, 20 s of CPU on 2
  // threads (exact_scale_bench table 10 10 2 400,800 aligned cpu 100): 9/10 at 400, 4/10
  // at 800 (10/10 and 6/10 with the two canonical searches only; without the weights 5/10
  // at 800; the tilings' perfect list 9/10 and 4/10).
  if (perfect && in.aligned) {
    std::vector<Strategy> list = {make(Strategy::kCellsWells, kWAT, 1)};
    // Root rotations under WAT (aligned_cells.h): the first decision is what fails on some.
    list.push_back(make(Strategy::kCellsWells, kWAT, kRotationWeight));
    list.back().rotate = true;
    for (Strategy s : {make(Strategy::kCellsWells, kTAW, 1), make(Strategy::kCellsWells, kTWA, 1)})
      list.push_back(std::move(s));
    for (uint64_t seed = 1; seed <= 2; ++seed)
      list.push_back(Strategy{Strategy::kCellsWells, {}, "", kJitterWeight, true, seed});
    for (Strategy& s : general()) list.push_back(std::move(s));
    return list;
  }
  if (perfect) {
    std::vector<Strategy> list = {make(Strategy::kCellsWells, kWAT, kWellsWeight)};
    for (uint64_t seed = 1; seed <= kJitteredCellSearches; ++seed) {
      list.push_back(Strategy{Strategy::kCellsWells, {}, "", kJitterWeight, true, seed});
      if (seed <= kRandomCellOrders)
        list.push_back(Strategy{Strategy::kCellsFewestBranches, exact::random_order(in.n, seed), "", 1, true});
    }
    for (Strategy s : {make(Strategy::kCellsLeastSlack, kTAW, 1), make(Strategy::kCellsLeastSlack, kTWA, 1),
                       make(Strategy::kCellsFewestBranches, kTAW, 1)})
      list.push_back(std::move(s));
    for (Strategy s : {make(Strategy::kRestart, kTWA, 4), make(Strategy::kRestart, kTWO, 2),
                       make(Strategy::kCanonical, kTWA, 1)})
      list.push_back(std::move(s));
    return list;
  }
  return general();
}

// Whether every section's total equals `target` (see strategies: a perfect packing). With
// aligned buffers too, which get their own list there (issue 21 item 1, README "Aligned
// perfect packings": the general list left most of them unsolved).
bool perfect_at(const exact::Instance& in, int64_t target) {
  return in.sections > 0 &&
         std::all_of(in.section_total.begin(), in.section_total.end(), [&](int64_t t) { return t == target; });
}

// The canonical strategies' dives at `capacity` (dive.h), in the round robin's order: the
// first plan found. O(log n) a placement: on large inputs a dive ends in about the time
// the search spends on a few hundred nodes.
std::optional<std::vector<int64_t>> first_dive(const exact::Instance& in, const std::vector<Strategy>& strategies,
                                               int64_t capacity, const Deadline& deadline) {
  for (const Strategy& s : strategies) {
    if (!s.everywhere() || deadline.expired()) continue;
    if (auto offsets = exact::dive(in, capacity, s.order, s.keys, deadline)) return offsets;
  }
  return std::nullopt;
}

// One probe of a round: a target capacity, its node budget, and whether every strategy
// tries it (tight targets) or only the canonical searches (Strategy::everywhere).
struct Target {
  int64_t capacity, budget;
  bool all_strategies;
  bool first_only = false;  // only the round robin's first strategy
  bool repeat = false;  // a round repeated at the same budget: no restarts (Strategy::restart)
  bool cells_only = false;  // only the cell searches (a perfect packing's bound: see the ladder)
};

struct Prober {
  const exact::Instance& in;
  std::vector<Strategy> strategies;
  const Deadline& deadline;
  int threads = 1;
  // > 0: the rounds stop starting probes once `nodes` reaches it, and a probe's budget is cut
  // to what is left (on one thread the probes run in list order, so this is deterministic).
  int64_t max_nodes = 0;
  int64_t nodes = 0, probes = 0;
  // The last round's probes, and how many of them were restarts (Strategy::restart): the
  // progress line's probes= and restarts=.
  int64_t round_probes = 0, round_restarts = 0;
  // The nodes of the probes up to each round's first decisive one: those every thread count
  // runs, so (unlike `nodes`) the same whatever the threads' timing. Phases triggered by
  // the search's progress count these, not the clock (a proof's plan must not depend on
  // the load).
  int64_t settled = 0;
  // Failure memos by (strategy, capacity), kept across rounds (see round()).
  std::map<std::pair<size_t, int64_t>, std::unique_ptr<exact::FailureMemo>> memo_of = {};
  // The deepest partial placement of the probes so far that ran out of nodes (the most
  // buffers placed; ties: the earliest), for fill_deepest; else empty. `deeper`: a round
  // replaced it (cleared by the caller).
  std::vector<int64_t> deepest = {};
  int64_t deepest_placed = 0;
  bool deeper = false;

  // One round: for each target in turn, each of its strategies in turn, a search with that
  // target's node budget. Returns the first probe in that list order that decides (found or
  // exhausted), with its target, or kBudget. Probes run on `threads` threads; a probe later
  // in the list than a decided one is not started, and its result would be ignored anyway,
  // so the answer is the one a single thread gets, whatever the thread count.
  exact::Outcome round(const std::vector<Target>& targets, std::vector<int64_t>& offsets,
                       int64_t& decided_target) {
    std::vector<std::pair<size_t, size_t>> list;  // (target, strategy)
    size_t sharing = 0;  // the probes the memos are sized for: those skipped by cells_only too
    for (size_t t = 0; t < targets.size(); ++t)
      for (size_t k = 0; k < strategies.size(); ++k)
        if ((targets[t].all_strategies || strategies[k].everywhere()) && (k == 0 || !targets[t].first_only) &&
            !(targets[t].repeat && strategies[k].restart)) {
          ++sharing;
          if (!(targets[t].cells_only && strategies[k].everywhere())) list.push_back({t, k});
        }
    const size_t count = list.size();
    // Each probe continues its strategy's memo of failed states at that capacity from the
    // earlier rounds. Memos of capacities no longer probed are dropped, and a memo grows to
    // at most kMemoSlots / (probes in the round) slots (a memo grown in an earlier round with
    // fewer probes keeps its size, so at most about twice kMemoSlots in all): memory stays
    // flat however long the search runs. The canonical probes a perfect target skips
    // (cells_only) still count: the cell probes then keep the memos, and so the nodes and
    // plans, they have with them (the memo's size decides which failed states it keeps).
    for (auto it = memo_of.begin(); it != memo_of.end();)
      it = std::any_of(targets.begin(), targets.end(), [&](const Target& t) { return t.capacity == it->first.second; })
               ? std::next(it) : memo_of.erase(it);
    const size_t max_slots = std::bit_floor(std::max<size_t>(kMemoSlots / std::max<size_t>(sharing, 1), 4096));
    std::vector<exact::FailureMemo*> memos(count);
    for (size_t k = 0; k < count; ++k) {
      auto& m = memo_of[{list[k].second, targets[list[k].first].capacity}];
      if (!m) m = std::make_unique<exact::FailureMemo>(0);
      m->reserve(sat_mul(targets[list[k].first].budget, strategies[list[k].second].weight), max_slots);
      memos[k] = m.get();
    }
    std::vector<exact::SearchResult> results(count);
    std::vector<char> ran(count, 0);
    std::atomic<size_t> next{0}, decided{count};
    std::atomic<int64_t> node_sum{0}, probe_sum{0}, restart_sum{0};
    auto worker = [&] {
      for (;;) {
        const size_t k = next.fetch_add(1);
        if (k >= count || k > decided.load() || deadline.expired()) return;
        const Target& target = targets[list[k].first];
        int64_t budget = sat_mul(target.budget, strategies[list[k].second].weight);
        // A restart either finds the packing in about n nodes or has gone wrong early
        // (strategies), so it gets at most 2n, the budget its restarts were measured at.
        if (strategies[list[k].second].restart && !strategies[list[k].second].jitter) budget = std::min(budget, 2 * std::max<int64_t>(in.n, 1));
        if (max_nodes > 0) {  // the probes in list order: deterministic on one thread
          const int64_t allowed = max_nodes - nodes - node_sum.load();
          if (allowed <= 0) return;
          budget = std::min(budget, allowed);
        }
        exact::SearchResult r = strategies[list[k].second].run(in, target.capacity, budget, deadline, memos[k]);
        node_sum += r.nodes;
        ++probe_sum;
        restart_sum += strategies[list[k].second].restart;
        if (r.outcome != exact::Outcome::kBudget)
          for (size_t cur = decided.load(); k < cur && !decided.compare_exchange_weak(cur, k);) {
          }
        results[k] = std::move(r);
        ran[k] = 1;
      }
    };
    // The searches recurse once per placement: threads with stacks for n levels.
    exact::run_deep(static_cast<int>(std::min<size_t>(std::max(threads, 1), count)), in.n + 2, worker);
    nodes += node_sum.load();
    probes += probe_sum.load();
    round_probes = probe_sum.load();
    round_restarts = restart_sum.load();
    // A probe after the first decisive one may or may not have run, depending on the
    // threads' timing; its memo is dropped either way, so later rounds do not depend on it.
    for (size_t k = decided.load() + 1; k < count; ++k)
      memo_of.erase({list[k].second, targets[list[k].first].capacity});
    for (size_t k = 0; k < count && k <= decided.load(); ++k)
      if (ran[k]) settled = sat_add(settled, results[k].nodes);
    // Only probes before the first decisive one, all of which ran: the same snapshot
    // whatever the threads' timing (up to probes cut by the deadline).
    for (size_t k = 0; k < count && k < decided.load(); ++k) {
      if (!ran[k] || results[k].deepest.empty()) continue;
      const int64_t placed = std::count_if(results[k].deepest.begin(), results[k].deepest.end(),
                                           [](int64_t x) { return x >= 0; });
      if (placed > deepest_placed) deepest_placed = placed, deepest = std::move(results[k].deepest), deeper = true;
    }
    // Every probe before the first decisive one ran to its budget (or the deadline).
    for (size_t k = 0; k < count; ++k) {
      if (!ran[k]) return exact::Outcome::kBudget;
      if (results[k].outcome == exact::Outcome::kBudget) continue;
      decided_target = targets[list[k].first].capacity;
      if (results[k].outcome == exact::Outcome::kFound) offsets = std::move(results[k].offsets);
      return results[k].outcome;
    }
    return exact::Outcome::kBudget;
  }
};

// `max_nodes` > 0: a decision stops (status unknown) after the round in which its nodes
// reach that many. A sub-search given a node cap instead of a share of the clock decides the same
// way under any load: with one thread its node count does not depend on timing.
SolveResult run_exact(const Problem& p, const SolveOptions& opt, bool windows, int64_t max_nodes = 0);

// Node caps of the sub-searches (the windows' decisions), in place of the shares of the time
// left they had: a share of wall time is what load takes away (Y_1's first peak window ran
// out of it before its 0.1 s of CPU), and a decision cut by the clock made the plan depend on
// the machine. A node's cost grows about as the square of the window's buffers (measured on
// the real sets' peak windows: 0.12 ms a node at 470 buffers, 1.5 ms at 1,862), so the caps
// are in units of nodes x buffers^2. A peak window's decision gets at most 32 nodes a buffer
// (the windows that work take about 5: 703 for bert_large's 140 buffers, 3,522 for S_1's 704
// at LOAD) and at most kPeakWindowWork (4,333 nodes at 704 buffers, 450 at 2,184); the window
// bound's decisions kWindowBoundWork in all (about 1.7M nodes on A-K's windows of ~100
// buffers), each at most a quarter of what is left.
constexpr int64_t kPeakWindowWork = int64_t{1} << 31;
constexpr int64_t kWindowBoundWork = int64_t{1} << 34;
int64_t node_cap(int64_t work, size_t buffers) {
  const int64_t n = std::max<int64_t>(static_cast<int64_t>(buffers), 1);
  return std::max<int64_t>(work / n / n, 1);
}
// The ladder's nodes (Prober::settled) after which the window bound runs, once: about the
// eighth of a 10 s limit it used to wait for, at A-K's rate of nodes. Not earlier: small
// instances are proven by the ladder's own rounds, which are cheaper.
constexpr int64_t kWindowBoundAfter = int64_t{1} << 20;

// The sub-searches' options: a capacity, the caller's cancel flag and the deadline's time
// left (never a share of it), one thread.
SolveOptions sub_options(int64_t capacity, const SolveOptions& opt, const Deadline& d) {
  SolveOptions o;
  o.capacity = capacity;
  o.cancel = opt.cancel;
  const double left = d.remaining_seconds();
  o.time_limit_seconds = std::isfinite(left) ? std::max(0.001, left) : 0;  // 0: no limit
  return o;
}

// The window lower bound (window_bound.h), each window decided by this search (without
// windows of its own, one thread) within its node cap (kWindowBoundWork).
exact::WindowBound window_lower_bound(const Problem& p, int64_t lb, int64_t g, const SolveOptions& opt,
                                      const Deadline& deadline) {
  int64_t left = kWindowBoundWork;
  const exact::DecideWindow decide = [&](const Problem& w, int64_t capacity, const Deadline& d) {
    const int64_t cap = node_cap(left / 4, w.buffers.size());
    if (left <= 0) return exact::WindowDecision{false, 0};
    const SolveResult r = run_exact(w, sub_options(capacity, opt, d), false, cap);
    const int64_t n = static_cast<int64_t>(w.buffers.size());
    left -= sat_mul(sat_mul(r.nodes, n), n);
    return exact::WindowDecision{r.status == Status::kInfeasible, r.nodes};
  };
  return exact::window_bound(p, lb, g, decide, deadline, opt.progress);
}

// The peak windows (window.h) at `target`, half-widths 64, 256 and 1024 sections (the
// first `widths` of them), each
// window decided by the exact search (without windows of its own) within its node cap
// (kPeakWindowWork): the windows that work are solved at once (bert_large's in 0.01 s), and
// the search proper needs the rest.
std::optional<std::vector<int64_t>> peak_windows(const Problem& p, const exact::Instance& in, int64_t target,
                                                 const SolveOptions& opt, const Deadline& deadline, int64_t widths = 3) {
  const exact::Decide decide = [&](const Problem& sub, int64_t capacity, const Deadline& d)
      -> std::optional<std::vector<int64_t>> {
    const int64_t n = std::max<int64_t>(static_cast<int64_t>(sub.buffers.size()), 1);
    SolveResult r = run_exact(sub, sub_options(capacity, opt, d), false, std::min(node_cap(kPeakWindowWork, sub.buffers.size()), 32 * n));
    if (!r.solution) return std::nullopt;
    return std::move(r.solution->offsets);
  };
  int64_t tried = 0;
  for (int32_t half : {64, 256, 1024}) {
    if (deadline.expired() || tried++ == widths) break;
    if (auto offsets = exact::window_plan(p, in, target, half, decide, deadline)) return offsets;
    if (2 * half + 1 >= in.sections) break;  // the window was the whole
  }
  return std::nullopt;
}

// Gaps: the relaxation's search (gap_relaxation.h), the proof path the search on full
// rectangles lacks, within `nodes` search nodes (so that its bound does not depend on the
// machine's load) and at most half of the time left. Its bound holds for p, a capacity it
// refutes is refuted for p, and its plan is one of p's when the pieces agree. It runs twice
// at most: briefly before the search (kRelaxedFirst nodes a buffer: at once on the small
// instances it proves), and with kRelaxedNodes once the search on full rectangles is
// exhausted (its floor at the incumbent, or the capacity refuted), when only it can prove.
// Not longer up front: on A-K with gaps cut into a tenth of the buffers, 2^17 nodes of it
// cost 0.45 s and proved nothing the search did not reach by itself.
constexpr int64_t kRelaxedFirst = 4;
constexpr int64_t kRelaxedNodes = int64_t{1} << 17;
struct Relaxed {
  int64_t bound = 0;
  bool refuted = false;  // the capacity is refuted
  std::optional<Solution> plan;
  std::string note;
};
Relaxed relaxed_search(const Problem& p, const SolveOptions& opt, const Deadline& deadline, int64_t nodes) {
  Relaxed out;
  const std::optional<exact::GapRelaxation> g = exact::relax_gaps(p);
  if (!g) {
    out.note = " relaxed=none";
    return out;
  }
  SolveOptions o;
  o.capacity = capacity_of(p, opt);
  o.cancel = opt.cancel;
  o.threads = opt.threads;
  o.iterations = nodes;
  const double left = deadline.remaining_seconds();
  o.time_limit_seconds = std::isfinite(left) ? std::max(0.001, left / 2) : 0;  // 0: no limit
  const SolveResult r = run_exact(g->relaxed, o, false, nodes);
  out.refuted = o.capacity && r.status == Status::kInfeasible;
  out.bound = r.lower_bound;
  if (r.solution)
    if (auto joined = exact::join_pieces(*g, r.solution->offsets)) out.plan = plan_of(p, std::move(*joined));
  out.note = " relaxed_bound=" + std::to_string(out.bound) + " relaxed_nodes=" + std::to_string(r.nodes);
  return out;
}

SolveResult run_exact(const Problem& p, const SolveOptions& opt, bool windows, int64_t max_nodes) {
  // Explicit conflicts: the canonical search on the conflict graph (no sections' time axis).
  if (!p.conflicts.empty()) return exact::run_exact_on_graph(p, opt);
  const Deadline whole(opt.time_limit_seconds, opt.cancel);
  const auto cap = capacity_of(p, opt);
  SolveResult r;
  // Gaps are searched as full rectangles: the search's refutations prove nothing then, and
  // the proofs come from the LOAD bound and the relaxation (relaxed_search).
  const bool proofs = !has_gaps(p);
  // In a portfolio the other members supply the incumbent through the shared bound (it may
  // arrive after the search has started). Alone, the online allocator's plan comes first,
  // before the set-up below (on 1M buffers under load the set-up can outlast the limit; the
  // plan, O(n log n), is then still returned, not `no_plan`).
  const bool shared = opt.shared_upper_bound != nullptr;
  std::optional<Solution> online = last_resort_plan(p, opt, whole);
  std::optional<exact::Instance> in = exact::prepare(p, kMaxPairs, whole);
  const bool ready = in && !whole.expired();  // else it returns below, before any search
  const int64_t g = ready ? granularity_of(p, *in) : 1;
  int64_t lb = ready ? bound_from(lower_bound_of(p), g) : 0;
  const bool perfect = ready && perfect_at(*in, cap ? *cap : lb);
  // With cell searches in the list (the only searches that keep a deepest placement), the
  // search stops a little before the time limit (fill_reserve): the time left is for
  // completing that placement into a plan. Without them (pre-placed buffers, large models),
  // it runs to the limit.
  const bool fills = ready && cell_searches(*in, perfect);
  const double reserve = fills ? fill_reserve(opt.time_limit_seconds, p.buffers.size()) : 0;
  const Deadline deadline = whole.sooner(reserve);
  // (In a portfolio `online` is empty, and so is the incumbent.)
  std::optional<Solution> best = incumbent(p, deadline, std::move(online));
  Relaxed relaxed;
  auto relax = [&](int64_t nodes) {  // returns the relaxation's bound
    relaxed = relaxed_search(p, opt, deadline, nodes);
    if (relaxed.plan && (!best || relaxed.plan->peak < best->peak)) best = std::move(relaxed.plan);
    return relaxed.bound;
  };
  if (!proofs && ready && !deadline.expired())
    lb = std::max(lb, relax(sat_mul(kRelaxedFirst, static_cast<int64_t>(p.buffers.size())) + 1024));
  // The preorders sort every buffer four times (polled; not started once the limit passed:
  // on 1M buffers not worth it). Empty when the limit passed during the set-up: the
  // incumbent, if any.
  std::vector<Strategy> list = in && !deadline.expired() ? strategies(*in, perfect, &deadline) : std::vector<Strategy>{};
  if (list.empty()) {
    r = result_from_plan(p, opt, best);
    r.detail = "reason=time_limit_in_setup";
    return r;
  }
  // Large inputs go top down (kTopDown), except perfect packings: the dives and windows do
  // not find those, and the cell search at the bound does (exact_scale_bench, tiling 6400).
  const bool top_down = in->n > kTopDown && !perfect;
  // On a perfect packing without alignment (every section's total at the target) the target
  // is probed by the cell searches alone when the list has any (not with pre-placed
  // buffers): there the canonical searches never found one (`exact_scale_bench strategies
  // 1600 pinwheel,tiling 200-204 16 TWA,TWO 0,1`: 0 of 10 each, tilings of 6,400 0 of 5 at
  // 8n; every pinwheel and tiling `exact` solved on seeds 1-10 was found by a cell search)
  // and cost up to 5x a cell search's node, about half of the CPU there. Aligned packings
  // keep them: the re-ranking search under TWA found aligned 400 seed 9 (354,776 nodes),
  // which the cell searches did not within 60 s. The cell searches are complete, so a
  // perfect total that does not fit is still refuted. README, "The cell searches alone at a
  // perfect packing's bound".
  const bool cells_at_perfect =
      !in->aligned && std::any_of(list.begin(), list.end(), [](const Strategy& s) { return !s.everywhere(); });
  Prober prober{*in, std::move(list), deadline, std::max(1, opt.threads), max_nodes};
  std::string window_note;  // the window bound's part of the detail, when it ran
  int64_t deep_fills = 0;   // incumbents from a round's deepest placement (fill_deepest)
  int64_t deep_dives = 0;   // 1: the plan is the run's deepest placement completed by dives
  auto finish = [&](SolveResult res, const char* reason) {
    res.iterations = prober.probes;
    res.nodes = prober.nodes;
    res.detail = std::string("reason=") + reason + " nodes=" + std::to_string(prober.nodes) +
                 " granularity=" + std::to_string(g) + " deep_fills=" + std::to_string(deep_fills) +
                 " deep_dives=" + std::to_string(deep_dives) + " deepest=" + std::to_string(prober.deepest_placed) +
                 " fill_reserve_ms=" + std::to_string(std::lround(1000 * reserve)) + window_note + relaxed.note;
    return res;
  };

  // --iterations N: stop after the round in which the search's settled nodes reach N (the
  // same count whatever the threads' timing, so a node-limited run is reproducible).
  // (Not in a portfolio, whose --iterations are meant for its heuristic search.)
  auto out_of_nodes = [&] { return !shared && opt.iterations > 0 && prober.settled >= opt.iterations; };

  if (cap) {  // Decision: is there a plan within the capacity?
    if (best && best->peak <= *cap) return finish(result_from_plan(p, opt, best), "heuristic");
    if (lb > *cap || relaxed.refuted) {  // LOAD and the relaxation's bounds hold with gaps too
      r.status = Status::kInfeasible;
      r.lower_bound = std::max(lb, relaxed.refuted ? sat_add(*cap, 1) : lb);
      return finish(r, "proven_infeasible");
    }
    // Below 4,096 buffers the search's own first descents cost next to nothing; in a
    // portfolio, solvers `dive` and `peak-window` run these on other threads.
    if (top_down && windows) {
      if (auto offsets = first_dive(*in, prober.strategies, *cap, deadline))
        return finish(result_from_plan(p, opt, plan_of(p, std::move(*offsets))), "found");
      if (auto offsets = peak_windows(p, *in, *cap, opt, deadline))
        return finish(result_from_plan(p, opt, plan_of(p, std::move(*offsets))), "found");
    }
    std::vector<int64_t> offsets;
    // A perfect packing at the capacity: the cell searches alone (see `cells_at_perfect`).
    const bool cells_only = perfect && cells_at_perfect;
    for (int64_t budget = 2 * std::max(in->n, 1);; budget = sat_mul(budget, 2)) {
      int64_t at = 0;
      const exact::Outcome o = prober.round({{*cap, budget, true, false, false, cells_only}}, offsets, at);
      if (o == exact::Outcome::kFound) return finish(result_from_plan(p, opt, plan_of(p, std::move(offsets))), "found");
      if (o == exact::Outcome::kInfeasible && proofs) {
        r.status = Status::kInfeasible;
        r.lower_bound = bound_from(*cap + 1, g);
        return finish(r, "proven_infeasible");
      }
      // With gaps: no plan of full rectangles fits, and more nodes would not find one; the
      // relaxation may still prove the capacity infeasible, or find a plan.
      if (o == exact::Outcome::kInfeasible) {
        lb = std::max(lb, relax(kRelaxedNodes));
        if (best && best->peak <= *cap) return finish(result_from_plan(p, opt, best), "found");
        if (!relaxed.refuted) return finish(r, "exhausted_without_proof");
        r.status = Status::kInfeasible;
        r.lower_bound = std::max(lb, sat_add(*cap, 1));
        return finish(r, "proven_infeasible");
      }
      if (deadline.expired()) return finish(r, "time_limit");
      if ((max_nodes > 0 && prober.nodes >= max_nodes) || out_of_nodes()) return finish(r, "node_limit");
    }
  }

  // Minimization: a ladder of targets between the lower bound and the incumbent (the bound
  // itself, fractions of the gap, one step below the incumbent), probed round robin with
  // doubling node budgets. A found plan lowers the incumbent; an exhausted probe raises the
  // bound. The ladder does not depend on the number of threads.
  if (!best && !shared) return finish(r, "no_incumbent");
  auto upper = [&] { return known_upper(best, opt); };
  // On large inputs, first the dives at the bound (dive.h): on real models the search's
  // first descent often reaches it without backtracking (Y_1: 62k buffers), and a dive
  // costs about as much as a few hundred of the search's nodes there. Then the peak
  // windows at the bound: bert_large and bert_nezha reach it that way. In a portfolio,
  // solvers `dive` and `peak-window` run these on another thread instead, and the search
  // starts at once (pangu_2.6B needs 4.5 s of it).
  if (windows && top_down) {
    if (lb < upper())
      if (auto offsets = first_dive(*in, prober.strategies, lb, deadline)) best = plan_of(p, std::move(*offsets));
    if (lb < upper())
      if (auto offsets = peak_windows(p, *in, lb, opt, deadline)) best = plan_of(p, std::move(*offsets));
  }
  // Large inputs start lower: the bound's first probe (2 x 6 x n/8) is then 1.5n nodes,
  // enough for a dive that barely backtracks (pangu_2.6B reaches LOAD in 1.14n nodes,
  // bert_base in 1.08n), and it ends while the time limit is still far when it fails
  // (bert_nezha: about 5 s of 10), leaving time for dives below the incumbent.
  const int64_t first_budget = top_down ? std::max(in->n / 8, 1) : 2 * std::max(in->n, 1);
  bool window_tried = false;
  // With gaps an exhausted probe raises `lb`, the ladder's floor (no plan of full rectangles
  // below it), and not the proven bound, which stays LOAD's or the relaxation's.
  int64_t proven = lb;
  for (int64_t budget = first_budget; lb < upper() && !deadline.expired(); budget = sat_mul(budget, 2)) {
    bool progress = true, repeat = false;
    while (progress && lb < upper() && !deadline.expired()) {
      progress = false;
      const bool repeated = std::exchange(repeat, true);  // the second round at this budget or later
      // Unproven after kWindowBoundAfter of the ladder's nodes: the window bound
      // (window_bound.h), once. Windows are far smaller than the whole, so their searches
      // exhaust where the whole's cannot; each refutation raises the bound. Triggered by
      // node counts, not by the clock: a run that ends in a proof returns the same plan
      // under any load.
      if (!window_tried && proofs && lb < upper() && !deadline.expired() && prober.settled >= kWindowBoundAfter) {
        window_tried = true;
        const Deadline::Clock::time_point start = Deadline::Clock::now();
        const exact::WindowBound wb = window_lower_bound(p, lb, g, opt, deadline);
        window_note = " window_bound=" + std::to_string(wb.bound) + " windows=" + std::to_string(wb.windows) +
                      " refuted=" + std::to_string(wb.refutations.size()) + " window_s=" +
                      std::to_string(std::chrono::duration<double>(Deadline::Clock::now() - start).count()).substr(0, 5);
        if (!wb.refutations.empty()) {  // the strongest: `memplan bound FILE --window F:T --capacity C`
          const exact::Refutation& last = wb.refutations.back();
          window_note += " window_refuted=" + std::to_string(last.from) + ":" + std::to_string(last.to) + "@" +
                         std::to_string(last.capacity) + " window_nodes=" + std::to_string(last.nodes);
        }
        lb = std::max(lb, wb.bound);
      }
      if (lb >= upper()) break;
      const int64_t ub = upper();
      const int64_t gap = ub - lb;
      // Rungs, lowest first: the bound (twice the budget: real models usually reach it),
      // an eighth, a quarter and half of the gap above it, and 32, 16, ..., 1 granules below
      // the incumbent (one granule: twice the budget; deeper: halving). Difficulty is not
      // monotone in the target (D: 1025024 takes 2 s, 1024000 30 s, 1047552 longer), so
      // both ends of the gap are probed every round. Trade-off measured on A-K and bert_base:
      // without the middle rungs D reaches 1024000 in 60 s but B, I and bert_base get worse.
      // Only the bound itself, the tightest target, gets the cell search too: at rungs with
      // room to waste it costs more per node and found less (D, J at 30 s).
      std::vector<Target> targets;
      // No plan known yet (a portfolio member that started first): the bound alone, by the
      // first strategy, so that the ladder starts soon after the first plan arrives.
      // (Twice the budget saturates: after enough trivial rounds the budget is INT64_MAX.)
      const int64_t twice = sat_mul(budget, 2);
      if (ub == INT64_MAX) targets.push_back({lb, twice, true, true});
      auto add = [&](int64_t target, int64_t b) {
        if (target >= lb && target < ub &&
            std::none_of(targets.begin(), targets.end(), [&](const Target& t) { return t.capacity == target; }))
          targets.push_back(
              {target, std::max<int64_t>(b, std::min<int64_t>(first_budget, 2 * in->n)), target == lb, false, repeated});
      };
      // A perfect packing (every section's total at the bound) has its plans at the bound
      // or none there: the rungs above it only lower the incumbent, and their canonical
      // searches took most of the CPU (aligned 400 seed 5, one thread, under `perf`: 58 % of
      // the samples in the canonical search's own functions), which the bound's cell
      // searches need. So while the bound is that total, a round probes the bound alone; the
      // incumbent still falls by the deepest placements' completions (below). Once the bound
      // is refuted (raised), the instance is no longer perfect at it and the rungs return.
      // (README "The bound alone on perfect packings": held-out aligned 400 8/10 -> 10/10.)
      const bool bound_only = perfect_at(*in, lb);
      if (ub < INT64_MAX) add(lb, twice);
      if (bound_only && cells_at_perfect)
        for (Target& t : targets) t.cells_only = true;
      if (ub < INT64_MAX && !bound_only) {
        for (int64_t part : {8, 4, 2}) add(round_up(lb + gap / part, g), budget);
        for (int k = 5; k >= 0; --k) {
          if (g > (gap >> k)) continue;  // g << k > gap, without overflowing
          add(ub - (g << k), k == 0 ? twice : k == 1 ? budget : budget >> std::min(k - 1, 62));
        }
      }
      if (targets.empty() || deadline.expired()) break;
      // On large inputs a node costs up to milliseconds and the bound's probe alone can take
      // the whole time limit; a dive just below the incumbent usually lands far below it
      // (bert_nezha: from +62,204 bytes to +1,144 in one dive). So there the ladder runs
      // from the top down.
      if (top_down) std::reverse(targets.begin(), targets.end());
      std::vector<int64_t> offsets;
      int64_t target = 0;
      const exact::Outcome o = prober.round(targets, offsets, target);
      if (o == exact::Outcome::kFound) {
        best = plan_of(p, std::move(offsets));
        progress = true;  // re-derive the ladder at this budget
      } else if (o == exact::Outcome::kInfeasible) {
        lb = std::max(lb, bound_from(target + 1, g));
        progress = true;
        if (!proofs && lb >= upper()) {  // with gaps, exhausted: the relaxation's longer run
          proven = std::max(proven, relax(kRelaxedNodes));
          lb = std::max(lb, proven);
        }
      }
      // A round whose probes went deeper than the rounds before: the deepest partial
      // placement, completed greedily (deep_fill.h), may beat the incumbent (unsolved perfect
      // packings of 800-6,400 buffers: 1.17-1.44 of LOAD against 1.25-1.50 without).
      if (std::exchange(prober.deeper, false) && exact::fill_deepest_plans && p.buffers.size() <= kFillMax) {
        if (auto filled = exact::fill_deepest(p, prober.deepest, whole); filled && filled->peak < upper()) {
          best = std::move(filled);
          ++deep_fills;
        }
      }
      if (opt.progress)
        opt.progress("lb=" + std::to_string(lb) + " best=" + std::to_string(upper()) +
                     " budget=" + std::to_string(budget) + " probes=" + std::to_string(prober.round_probes) +
                     " restarts=" + std::to_string(prober.round_restarts));
      if (out_of_nodes()) break;
    }
    if (out_of_nodes()) break;
  }
  // Last, the deepest placement of the whole run completed by dives (deep_fill.h): lower than
  // the greedy fills above, and dearer, so once, on the deepest placement (the deeper, the
  // lower its completion), in the time fill_reserve kept.
  if (lb < upper() && !prober.deepest.empty() && exact::fill_deepest_plans && p.buffers.size() <= kFillMax) {
    if (auto dived = exact::dive_deepest(p, prober.deepest, upper(), whole)) {
      best = std::move(dived);
      deep_dives = 1;
    }
  }
  r = result_from_plan(p, opt, best);
  // The bound may prove another member's plan optimal (lb >= shared bound).
  const int64_t bound = proofs ? lb : proven;
  r.lower_bound = std::min(bound, upper());
  return finish(r, bound >= upper()  ? "proven_optimal"
                   : lb >= upper()   ? "exhausted_without_proof"
                   : out_of_nodes() ? "node_limit"
                                    : "time_limit");
}

// A bisection of the targets in [lo, hi()): each target is tried by `lands` (true when it
// found a plan there, which lowers hi()), down to a step of `step`. Midpoints are rounded up
// to a multiple of g. With `top_first`, the first target is just below hi() (a dive there
// nearly always lands, often far below it). A failed target moves lo to it (`lo_tried`: lo
// itself is known to fail) or just above it. Shared by the dives on the conflict graph and
// peak-window-ladder.
void bisect_targets(int64_t lo, int64_t step, int64_t g, bool top_first, bool lo_tried,
                    const std::function<int64_t()>& hi, const std::function<bool(int64_t)>& lands,
                    const Deadline& deadline) {
  for (bool first = top_first; !deadline.expired(); first = false) {
    const int64_t h = hi();
    if (h - lo <= (first ? 0 : step)) break;
    const int64_t target = first ? h - 1 : round_up(lo + (h - lo) / 2, g);
    if (target >= h) break;
    if (!lands(target)) lo = lo_tried ? target : target + 1;  // not a proof: only where the next targets go
  }
}

// Solver `dive` under explicit conflicts: the dives on the conflict graph (graph_dive.h),
// each target tried in the graph orders. The targets bisect [bound, best peak known): first
// just below the best (a dive there nearly always lands, often far below it), then halves,
// down to a step of bound / 1024. On the streams family a dive lands or not almost
// monotonically in the target, and the interval ladder's rungs doubling up from the bound
// spent most dives below the optimum (10k buffers on 8 streams: 26 rungs x 3 orders, 3 s of
// CPU, too slow for auto's share of the limit under load). A heuristic: a failed dive
// proves nothing. The bound is the driver's (under a partial order the antichain).
// Alone, the first-fit plans on the graph first.
SolveResult run_dive_on_graph(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  ConflictGraph own;
  const ConflictGraph* shared =
      conflict_graph_of(p, opt.conflict_graph.get(), own, kMaxConflictPairs, [&] { return deadline.expired(); });
  if (!shared) {
    SolveResult r = result_from_plan(p, opt, opt.shared_upper_bound ? std::nullopt : std::optional(stacked_plan(p)));
    r.detail = "reason=\"conflict graph above 40M pairs or time limit\" graph_mode=1";
    return r;
  }
  const ConflictGraph& graph = *shared;
  const exact::GraphDiveInput in(p, graph);
  const std::vector<std::vector<int32_t>> ranks = exact::graph_dive_ranks(p, graph);
  std::optional<Solution> best;
  if (!opt.shared_upper_bound) {
    std::vector<GraphVariant> fits;
    for (const auto& rank : ranks) {
      std::vector<int32_t> order(rank.size());
      for (size_t i = 0; i < rank.size(); ++i) order[rank[i]] = static_cast<int32_t>(i);
      fits.push_back({std::move(order), Fit::kFirst});
    }
    int winner = -1;
    int64_t completed = 0;
    best = best_on_graph(p, &graph, fits, deadline, winner, completed);
  }
  const auto cap = capacity_of(p, opt);
  const int64_t proven = std::max(lower_bound_of(p), opt.proven_lower_bound);
  int64_t lo = proven;
  const int64_t step = std::max<int64_t>(1, lo >> 10);
  auto hi = [&] {  // targets below it only
    const int64_t h = known_upper(best, opt);
    return cap ? std::min(h, sat_add(*cap, 1)) : h;
  };
  int64_t dives = 0;
  int landed = -1;  // the order of the last dive that landed
  bisect_targets(lo, step, 1, true, false, hi, [&](int64_t target) {
    for (size_t k = 0; k < ranks.size() && !deadline.expired(); ++k) {
      ++dives;
      if (auto offsets = exact::graph_dive(in, target, ranks[k], deadline)) {
        best = plan_of(p, std::move(*offsets)), landed = static_cast<int>(k);
        return true;
      }
    }
    return false;
  }, deadline);
  // The ladder done, the time left goes to a local search over first-fit orders from the
  // best plan (graph_fit.h; 8 streams x 500 buffers: 5-7 % above the antichain after the
  // ladder, which ends in 0.05 s).
  int64_t moves = 0;
  if (best && !deadline.expired())
    best = improve_on_graph(p, graph, std::move(*best), opt.seed, proven, deadline, moves);
  SolveResult r = result_from_plan(p, opt, best);
  r.iterations = dives + moves;
  r.detail = std::string("reason=") + (deadline.expired() ? "time_limit" : "ladder_done") +
             " graph_mode=1 landed_order=" + std::to_string(landed) + " search_moves=" + std::to_string(moves);
  return r;
}

// Solver `dive`: the canonical dives alone, a heuristic. Dives at the bound, then at
// lb + s, lb + 2s, lb + 4s, ... below the best peak known (its own, or the portfolio's):
// bert_nezha lands at +772 bytes from its dives at +1,012, bert_large at +196 from those at
// +257. A failed dive proves nothing, so the lower bound reported is LOAD.
SolveResult run_dive(const Problem& p, const SolveOptions& opt) {
  if (!p.conflicts.empty()) return run_dive_on_graph(p, opt);
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  // A plan whatever the dives do (a portfolio has its own): the online allocator's, first,
  // so that a set-up the limit cuts short still returns it.
  std::optional<Solution> best = last_resort_plan(p, opt, deadline);
  // No overlap lists: the dive finds overlaps in its own tree.
  std::optional<exact::Instance> in = exact::prepare(p, -1, deadline);
  SolveResult r;
  const std::vector<Strategy> all = in ? strategies(*in, false, &deadline) : std::vector<Strategy>{};
  if (!in || deadline.expired()) {  // the limit passed during the set-up
    r = result_from_plan(p, opt, std::move(best));
    r.detail = "reason=time_limit_in_setup";
    return r;
  }
  const int64_t g = granularity_of(p, *in);
  const int64_t lb = round_up(compute_load(p), g);
  // The ladder: rungs lb, lb + s, lb + 2s, lb + 4s, ... (s: lb / 2^24, at least the
  // granularity g: finer rungs hardly change a dive's choices), up to the best peak known, or
  // to the capacity, which is then a rung itself; the first rung whose dive lands sets `best`.
  auto upper = [&] { return known_upper(best, opt); };
  const auto cap = capacity_of(p, opt);
  int64_t dives = 0;
  const int64_t last = cap ? std::min(*cap, upper() - 1) : upper() - 1;
  int64_t delta = std::max(g, round_up(lb >> 24, g));
  for (int64_t target = lb; target <= std::min(last, upper() - 1) && !deadline.expired();) {
    ++dives;
    if (auto offsets = first_dive(*in, all, target, deadline)) best = plan_of(p, std::move(*offsets));
    if (target == last) break;
    target = delta >= last - lb ? last : lb + delta;
    delta = delta > (last - lb) / 2 ? last - lb : 2 * delta;  // no overflow
  }
  r = result_from_plan(p, opt, best);
  r.iterations = dives;
  r.detail = std::string("reason=") + (deadline.expired() ? "time_limit" : "ladder_done");
  return r;
}

// Solver `peak-window`: the peak windows alone (window.h), at the lower bound or the
// capacity. A heuristic. With `ladder` (solver `peak-window-ladder`, no capacity), when no
// window fits at the bound: a bisection of the targets between the bound and the best peak
// known (its own, or the portfolio's), each probed by the peak windows, down to a step of
// bound / 2^16. A window plan that does not fit the bound may still fit a little above it,
// where first fit around the window has room (S_1 was at LOAD + 0.2 % that way before the
// window tried several stacks of its bands; it now fits LOAD itself).
SolveResult run_peak_window(const Problem& p, const SolveOptions& opt, bool ladder) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const auto cap = capacity_of(p, opt);
  // Alone, a plan in any case: the online allocator's, first, before the set-up (after the
  // limit only the check is left); in a portfolio, only a window's (a poor first plan there
  // would only draw the exact search's ladder away from the bound).
  std::optional<Solution> fallback = last_resort_plan(p, opt, deadline);
  // No overlap lists: the window reads sections only.
  std::optional<exact::Instance> in = exact::prepare(p, -1, deadline);
  std::optional<Solution> best;
  const char* reason = "time_limit_in_setup";
  // In a portfolio, small inputs are the exact search's: it wants the greedy plan at once.
  if (in && opt.shared_upper_bound && in->n <= kTopDown) {
    reason = "small";
  } else if (in) {
    const int64_t g = granularity_of(p, *in);
    const int64_t target = cap ? *cap : round_up(compute_load(p), g);
    // --iterations K: only the K narrowest windows (auto's first, solo run: K = 1).
    const int64_t widths = opt.iterations > 0 ? opt.iterations : 3;
    auto offsets = peak_windows(p, *in, target, opt, deadline, widths);
    reason = offsets ? "window" : deadline.expired() ? "time_limit" : "no_window_fits";
    if (offsets) best = plan_of(p, std::move(*offsets));
    // No window plan found at `target` (a plan found there ends the ladder at once).
    const int64_t step = std::max(g, round_up(target >> 16, g));
    auto hi = [&] {
      int64_t h = known_upper(best, opt);
      if (fallback) h = std::min(h, fallback->peak);
      return h == INT64_MAX ? target : h;  // no plan known: nothing to bisect
    };
    if (ladder && !cap)
      bisect_targets(target, step, g, false, true, hi, [&](int64_t mid) {
        auto plan = peak_windows(p, *in, mid, opt, deadline, widths);
        if (!plan) return false;
        best = plan_of(p, std::move(*plan));  // its peak <= mid < hi
        reason = "window_ladder";
        return true;
      }, deadline);
  }
  if (!best) best = std::move(fallback);
  SolveResult r = result_from_plan(p, opt, best);
  r.detail = std::string("reason=") + reason;
  return r;
}

}  // namespace

void register_exact(std::vector<SolverInfo>& out) {
  out.push_back({"exact",
                 "exact search over canonical plans (MiniMalloc method): decides a capacity, or "
                 "minimizes the peak with proof; anytime",
                 [](const Problem& p, const SolveOptions& opt) { return run_exact(p, opt, !opt.shared_upper_bound); },
                 Supports{.explicit_conflicts = true, .proves_optimal = true, .proves_infeasible = true, .threads = true}});
  out.push_back({"peak-window",
                 "the time window around the peak load solved exactly, fixed, and the rest placed "
                 "around it by first fit, at the lower bound (or the capacity); heuristic",
                 [](const Problem& p, const SolveOptions& opt) { return run_peak_window(p, opt, false); }});
  out.push_back({"peak-window-ladder",
                 "peak-window, and when no window fits the lower bound, a bisection of targets "
                 "between it and the best plan known, each tried by the peak windows; heuristic",
                 [](const Problem& p, const SolveOptions& opt) { return run_peak_window(p, opt, true); }});
  out.push_back({"dive",
                 "canonical dives: the exact search's first descent without backtracking, at a "
                 "ladder of capacities from the lower bound up (on the conflict graph under explicit "
                 "conflicts); heuristic, fast on large inputs",
                 run_dive, Supports{.explicit_conflicts = true}});
}

}  // namespace memplan
