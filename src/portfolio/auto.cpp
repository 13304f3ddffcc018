// Solver `auto`, the default: a portfolio. The peak window (cheap, and the proof of the
// large real models) runs first on its own; then the exact search (which proves bounds) runs
// on one worker; on the others the greedy orders and production heuristics give
// plans at once, then the best available heuristic search (idealloc when registered, else
// simulated annealing) runs. All share the best peak found (from the start, the online
// allocator's plan of last resort: run_portfolio), and stop as soon as a plan meets the
// proven lower bound, or at the time limit (default 10 s). On one thread: the heuristics,
// then exact, then the heuristic search.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/arith.h"
#include "core/workers.h"
#include "memplan/bounds.h"
#include "memplan/driver.h"
#include "memplan/placement.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "portfolio/portfolio.h"
#include "solvers/families.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan {
namespace {

// validate() on `offsets` (validate.h, independent of the solvers), kept with the offsets
// and capacity it judged (PlanCheck: solve() reuses the verdict for these offsets only). A
// check the deadline stopped says so (verdict.complete = false): solve() then drops the plan
// at once rather than start the check again past the limit.
std::shared_ptr<const PlanCheck> check_plan(const Problem& p, const std::vector<int64_t>& offsets,
                                            std::optional<int64_t> cap, const Deadline& deadline) {
  Validation v = validate(p, offsets, cap, 1, &deadline);
  return std::make_shared<const PlanCheck>(PlanCheck{offsets, cap, std::move(v)});
}

// Whether every instant from the first start to the last end holds `load` live: the
// lifetimes' total area equals load x that span (no instant can hold more than LOAD). A
// perfect packing at LOAD, whose plans lie at the bound or nowhere (exact.cpp's perfect_at,
// on its sections). O(n). Gaps (partial presence) and saturated sums count as not perfect.
bool perfect_at_load(const Problem& p, int64_t load) {
  if (p.buffers.empty() || load <= 0) return false;
  int64_t first = INT64_MAX, last = INT64_MIN, area = 0;
  for (const Buffer& b : p.buffers) {
    if (!b.gaps.empty() || b.start < 0) return false;  // (negative times: refused on input)
    area = sat_add(area, sat_mul(b.size, b.end - b.start));
    first = std::min(first, b.start);
    last = std::max(last, b.end);
  }
  const int64_t span = sat_mul(load, last - first);
  return area < INT64_MAX && span < INT64_MAX && area == span;
}

struct Shared {
  std::mutex mu;
  std::optional<Solution> best;
  std::shared_ptr<const PlanCheck> best_check;  // validate()'s verdict on `best`
  std::string winner;
  int64_t lower = 0;
  std::atomic<int64_t> upper{INT64_MAX};
  std::atomic<bool> stop{false};
  bool met = false;  // stopped because the best plan met the lower bound (under mu)
  int64_t fallback_peak = INT64_MAX;  // the plan of last resort's (run_portfolio), if any
  int64_t iterations = 0;
  std::exception_ptr error;        // the first exception a member threw
  std::vector<std::string> rejected;  // members whose plan failed validation (bugs)

  // A member's result. A plan that would become the best is validated first (validate.h,
  // independent of the solvers): only then is it shared with the others through `upper`.
  // Plans no better than the best are not checked (they are never used).
  // A check the deadline stops drops the plan quietly (its bound stays: it does not rest on
  // the plan).
  void offer(const Problem& p, std::optional<int64_t> cap, SolveResult r, const std::string& who,
             const Deadline& deadline) {
    int64_t best_peak;
    {
      std::lock_guard lock(mu);
      best_peak = best ? best->peak : INT64_MAX;
    }
    std::shared_ptr<const PlanCheck> check;
    // A plan above the capacity is no plan here, and not a wrong one: a member that does not
    // read the capacity (greedy orders) returns its best all the same. Dropped unchecked, its
    // bound kept (checked against the capacity it failed as invalid, and took the bound along).
    if (r.solution && cap && r.solution->peak > *cap) r.solution.reset();
    if (r.solution && r.solution->peak < best_peak) {
      check = check_plan(p, r.solution->offsets, cap, deadline);
      if (!check->verdict.complete) {
        r.solution.reset();
      } else if (!check->verdict.ok || check->verdict.peak != r.solution->peak) {
        std::lock_guard lock(mu);
        rejected.push_back(who);
        iterations += r.iterations;
        return;  // its lower bound is suspect too
      }
    }
    std::lock_guard lock(mu);
    iterations += r.iterations;
    lower = std::max(lower, r.lower_bound);
    if (r.solution && (!best || r.solution->peak < best->peak)) {
      best = std::move(r.solution);
      best_check = std::move(check);  // checked above: only a plan below best_peak gets here
      winner = who;
      upper = std::min(upper.load(), best->peak);  // it may start at the fallback's peak
    }
    // (A member's bound may also prove the plan of last resort optimal.)
    if (std::min(best ? best->peak : INT64_MAX, fallback_peak) <= lower) stop = met = true;
  }

  void fail(std::exception_ptr e) {
    std::lock_guard lock(mu);
    if (!error) error = e;
    stop = true;
  }
};

}  // namespace

SolveResult run_portfolio(const Problem& p, const SolveOptions& opt, const MemberLookup& find) {
  Shared shared;
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);  // the sweep below counts
  // A member stops at the deadline, so the check of its plan (offer) starts at or after it:
  // checked against the deadline itself, the best member's plan was dropped unchecked (D at
  // 2 s on one thread: exact's 1041408 lost, dive's 1107968 returned). The check may run a
  // quarter of the time-limit tolerance (time_limit_tolerance) past it (solve()'s own check of
  // the result has half). Not cancelled by the caller: a cancelled auto returns its best.
  const double limit = opt.time_limit_seconds;
  const Deadline check_deadline(limit > 0 && std::isfinite(limit) ? limit + 0.25 * time_limit_tolerance(limit) : 0);
  const auto t0 = std::chrono::steady_clock::now();
  // (Under explicit conflicts the members that prove, exact, add a clique of the relation.)
  // Polled (1M buffers: ~0.1-0.3 s of CPU), on the clock only: a cancelled auto still goes
  // on to its plan of last resort below; a passed limit leaves no plan. Not run again when
  // solve() has just run it on this problem (bound_has_load) and the online plan's check
  // below times the checks instead.
  const Deadline clock = deadline.clock_only();
  const auto cap = capacity_of(p, opt);
  const bool sweep = !opt.bound_has_load || !p.conflicts.empty();
  shared.lower = sweep ? lower_bound_of(p, &clock) : 0;
  // Under explicit conflicts, when nothing else could be had: every buffer at its own bytes
  // (stacked_plan, O(n), valid under any relation). On intervals the online plan below is
  // the plan of last resort; under conflicts it is a member, and a limit that the
  // conflicts' derivation had nearly used up left no plan at all where `exact` and `greedy`
  // gave this one (20,000 buffers on 8 streams at --time-limit 0.5: the bound's sweep ran
  // out of time).
  auto stacked = [&]() -> std::optional<Solution> {
    if (p.conflicts.empty()) return std::nullopt;
    Solution s = stacked_plan(p);
    if (cap && s.peak > *cap) return std::nullopt;
    return s;
  };
  if (shared.lower < 0) {
    SolveResult r = result_from_plan(p, opt, stacked());
    r.detail = std::string("reason=time_limit_in_bound") + (r.solution ? " winner=stacked" : "");
    return r;
  }
  // The driver's bound (SolveOptions::proven_lower_bound: under a partial order the
  // max-weight antichain, above every clique exact finds) is a proof too: a member's plan
  // that meets it ends the run.
  shared.lower = std::max(shared.lower, opt.proven_lower_bound);
  // A member's plan is validated after the member returns (offer): members stop that much
  // earlier. One check follows a member (solve() reuses its verdict, PlanCheck): it costs
  // 1.3-2.7 times the LOAD sweep (1M buffers, `scripts/overrun.sh large`, first table), so 4
  // times the sweep just timed, or 1.5 times the online plan's check timed below.
  double check_seconds = sweep ? 4 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() : 0;
  // The plan of last resort first, in O(n log n): a limit too short for any member still
  // returns it. It is not shared with the members (a poor first plan would only draw the
  // exact search's ladder away from the bound); the result is the better of it and theirs.
  // It is checked here at once (validate.h; like a member's plan, until the limit plus a
  // quarter of the tolerance): the result then carries its verdict whichever plan wins, and
  // solve() checks nothing after auto returns (PlanCheck).
  // (The online allocator knows only the time axis: under explicit conflicts the members'
  // plans are all there is.) It polls the deadline: a limit too short even for it leaves no
  // plan (nullopt). A longer limit only gives it more time, so it cannot lose this plan.
  std::optional<Solution> fallback;
  std::shared_ptr<const PlanCheck> fallback_check;
  if (p.conflicts.empty()) {
    fallback = online_plan(p, &clock);
    // Out of time (nullopt) is the end; a plan above the capacity is only no plan of last
    // resort (the members go on: with `--capacity` at the optimum the online plan is often
    // above it, and checked against it, it was taken for a bug and every member skipped:
    // `auto --capacity 1048576` on A gave no plan).
    const bool out_of_time = !fallback;
    if (fallback && cap && fallback->peak > *cap) fallback.reset();
    if (fallback) {
      const auto c0 = std::chrono::steady_clock::now();
      fallback_check = check_plan(p, fallback->offsets, cap, check_deadline);
      check_seconds = std::max(check_seconds, 1.5 * std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count());
      const Validation& v = fallback_check->verdict;
      if (v.complete && (!v.ok || v.peak != fallback->peak)) {
        fallback.reset();  // a bug in the online plan: never returned
        shared.rejected.push_back("online-best-fit");
      }
    }
    if (out_of_time || (fallback && fallback->peak <= shared.lower)) shared.stop = true;  // or optimal already
    shared.met = fallback && fallback->peak <= shared.lower;
    // Its peak tops the members' searches from the start (SolveOptions::shared_upper_bound):
    // the exact search's ladder then has a gap to work in at once, where it used to probe
    // the bound alone until a member's first plan arrived (uniform 20,000 buffers: greedy's
    // after 3.5 s, too late for a ladder whose probes take seconds there; README, "auto
    // shares its plan of last resort"). Not on a perfect packing at LOAD: there the plans
    // lie at the bound or nowhere, and the exact search's first cell search, alone at the
    // bound until a plan is known, is what finds some of them.
    if (fallback) shared.fallback_peak = fallback->peak;
    if (fallback && !perfect_at_load(p, shared.lower)) shared.upper = fallback->peak;
  }
  // Members by handle, resolved once; a member that cannot serve this problem (its
  // Supports, see driver.h) is skipped and named in the detail.
  std::vector<std::string> skipped;
  auto member = [&](const char* name) -> const SolverInfo* {
    const SolverInfo* s = find(name);
    if (s && !unsupported_feature(p, *s).empty()) {
      skipped.push_back(name);
      return nullptr;
    }
    return s;
  };
  std::shared_ptr<const ConflictGraph> graph = opt.conflict_graph;
  // Members run side by side, one worker thread each.
  auto member_options = [&](double share, int64_t iterations) {
    SolveOptions o = opt;
    o.conflict_graph = graph;
    if (iterations > 0) o.iterations = iterations;
    o.threads = 1;
    o.cancel = &shared.stop;
    o.shared_upper_bound = &shared.upper;
    const double left = deadline.remaining_seconds();
    o.time_limit_seconds = std::isfinite(left) ? std::max(0.001, left * share - check_seconds) : 0;
    return o;
  };
  // No exception escapes a worker thread (that would abort the process): the first one is
  // kept, the other members are stopped, and it is rethrown to the caller below.
  struct Member {
    const SolverInfo* solver;  // the handle; nullptr: not available or cannot serve
    double share;
    const char* role;          // the name it was looked up by (the detail reports it)
    int64_t iterations = 0;    // > 0: its --iterations (else the caller's)
  };
  // (Options are made when the member starts, except for the one started on a thread below.)
  auto run_with = [&](const Member& m, const SolveOptions& o) {
    try {
      shared.offer(p, cap, m.solver->run(p, o), m.role, check_deadline);
    } catch (...) {
      shared.fail(std::current_exception());
    }
  };
  auto run = [&](const Member& m) {
    if (!m.solver || shared.stop || deadline.expired()) return;
    run_with(m, member_options(m.share, m.iterations));
  };
  const int threads = std::clamp(opt.threads, 1, kMaxThreads);
  // Under explicit conflicts the plan of last resort is the online allocator on stretched
  // lifetimes (it reads the pairs, not the graph below), run before the graph is built: on
  // 2+ threads beside its construction, on one before it. A short limit then still returns
  // its plan: 200k buffers on 4 streams (11.8M pairs), the graph takes 0.6 s, and
  // `--time-limit 2.5` left auto 0.65-1.1 s after deriving the conflicts: no plan at all
  // when the graph came first. (Run before the graph on the same thread when there are two,
  // it delayed conflict-greedy, which wins at 4-5 s there.)
  std::vector<std::thread> early;
  if (!p.conflicts.empty() && !shared.stop && !deadline.expired())
    if (const SolverInfo* s = member("online-best-fit")) {
      const Member online{s, 1.0, "online-best-fit"};
      if (threads > 1)
        early = start_threads(1, [&run_with, online, o = member_options(online.share, 0)] { run_with(online, o); });
      else
        run(online);
    }
  // Under explicit conflicts every member that plans reads the conflict graph: built here
  // once and handed to them all, read only (SolveOptions::conflict_graph), instead of once
  // per member (8 streams x 62k buffers: 12.6M pairs, 100 MB, built five times). Not built
  // above the members' own cap (40M pairs; they then give their stacked plans) or past the
  // deadline (they then try for themselves in what is left).
  // (A throw, e.g. bad_alloc, still joins the online member's thread first.)
  auto join_early = [&] {
    for (auto& t : early)
      if (t.joinable()) t.join();
  };
  try {
    if (!graph && !p.conflicts.empty() && !shared.stop) {
      auto g = std::make_shared<ConflictGraph>();
      if (conflict_graph(p, *g, 40'000'000, [&] { return deadline.expired(); })) graph = std::move(g);
    }
  } catch (...) {
    join_early();
    throw;
  }
  join_early();  // the cores are the members' from here
  // Runs members on up to `workers` threads (this one included); each member gets a share of
  // the time left when it starts.
  auto run_all = [&](const std::vector<Member>& members, int workers) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t k; (k = next.fetch_add(1)) < members.size();) run(members[k]);
    };
    run_workers(std::min<int>(workers, members.size()), worker);
  };
  // The caller's cancel flag reaches the members through the shared stop flag.
  std::atomic<bool> done{false};
  std::vector<std::thread> watcher;
  if (opt.cancel) {
    watcher = start_threads(1, [&] {
      while (!done) {
        if (opt.cancel->load()) shared.stop = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
    // No watcher thread: members are then cancelled only between runs (see `run`, whose
    // deadline carries the caller's flag).
  }
  std::vector<Member> heuristics;
  // The heuristics: the peak window (bert_large and bert_nezha reach LOAD with it in
  // 0.2 s), the greedy orders, the exact search's dives (which land closest on the large
  // models) and the strongest cheap production heuristics (which win on some), each
  // bounded to a share of the budget on huge inputs; then a heuristic search until the end.
  // Under explicit conflicts, first the first-fit orders made for conflict graphs (weighted
  // degree, degree: on the streams family they beat every time-axis order); on intervals
  // `greedy` covers them. (The online allocator on stretched lifetimes, O(n log n + pairs),
  // ran above: the plan of last resort there, as the online plan is on intervals, but run
  // as a member since its check costs as much as any member's.)
  if (!p.conflicts.empty())
    if (const SolverInfo* s = member("conflict-greedy")) heuristics.push_back({s, 0.6, "conflict-greedy"});
  for (auto [name, share] : {std::pair{"peak-window", 0.6}, {"greedy", 0.6}, {"dive", 0.5},
                             {"tflite-gpu-greedy-by-size", 0.3}, {"somas", 0.3}, {"xla-choose-best", 0.3}})
    if (const SolverInfo* s = member(name)) heuristics.push_back({s, share, name});
  // With 2+ threads, beside the exact search, right after greedy (whose plan tops its
  // ladder): when no peak window fits the bound, the peak windows at a bisection of targets
  // above it (S_1: LOAD + 0.13 % alone in 10 s, where every member stopped at + 0.25 %). Not
  // on one thread: there it would hold up the exact search.
  if (threads > 1)
    if (const SolverInfo* s = member("peak-window-ladder")) {
      const auto after = std::find_if(heuristics.begin(), heuristics.end(),
                                       [](const Member& m) { return std::string(m.role) == "greedy"; });
      heuristics.insert(after == heuristics.end() ? after : after + 1, {s, 0.5, "peak-window-ladder"});
    }
  std::optional<Member> search;
  for (const char* h : {"idealloc", "simulated-annealing"})
    if (const SolverInfo* s = member(h)) {
      search = Member{s, 1.0, h};
      break;
    }
  const Member exact_member{member("exact"), 1.0, "exact"};
  std::vector<std::thread> exact;
  if (threads > 1) {
    // The proof path first: the peak window alone, before anything runs beside it. It is
    // the member that proves the large real models (Y_1, S_1, pangu_2.6B, bert_large,
    // bert_nezha, pangu_13B at LOAD) and costs 0.02-0.5 s of CPU there, ms on A-K; run
    // beside the exact search's set-up and dives it got half the CPU, so under load (a
    // quarter of a core per thread) Y_1 stayed unproven within 10 s. Alone it is bounded by the whole budget,
    // not a share of it: a share of wall time is what the load takes away (at 0.6, Y_1
    // still failed in 3 of 3 runs with 1 s of CPU); its window's decision is capped by
    // nodes (exact.cpp, kPeakWindowWork), and on every bundled input it ends within 0.6 s
    // of CPU. (Under explicit conflicts it cannot serve and was skipped above.)
    const auto window = std::find_if(heuristics.begin(), heuristics.end(),
                                     [](const Member& m) { return std::string(m.role) == "peak-window"; });
    // Only its narrowest window (iterations = 1: 129 sections), which is what proves every
    // bundled model it proves; the wider ones cost S_1 ~0.8 s of CPU before anything else
    // could run (since their decisions are capped by nodes, not by a share of the clock),
    // and peak-window-ladder tries them beside the exact search.
    if (window != heuristics.end()) {
      const Member first{window->solver, 1.0, window->role, 1};
      heuristics.erase(window);
      run_all({first}, 1);
    }
    // The exact search then starts on its own worker (on large models its dive needs every
    // second; it searches at the lower bound until the heuristics' first plan arrives
    // through the shared bound); the heuristics run on the others.
    if (!shared.stop && exact_member.solver) exact = start_threads(1, [&] { run(exact_member); });
  }
  if (exact.empty()) {
    // One worker: a plan first, then the exact search, then the heuristic search.
    run_all(heuristics, 1);
    run_all({exact_member}, 1);
    if (search) run_all({*search}, 1);
  } else {
    if (search) heuristics.push_back(*search);
    run_all(heuristics, threads - 1);
    exact.front().join();
  }
  shared.stop = true;
  done = true;
  for (auto& t : watcher) t.join();
  if (shared.error) std::rethrow_exception(shared.error);
  // Ties go to the fallback: a member that ran out of time returns the same online plan.
  const bool use_fallback = fallback && (!shared.best || fallback->peak <= shared.best->peak);
  if (use_fallback)
    shared.best = std::move(fallback), shared.best_check = fallback_check, shared.winner = "online-best-fit";
  if (!shared.best && (shared.best = stacked())) shared.winner = "stacked";  // no member had the time
  SolveResult r = result_from_plan(p, opt, shared.best);
  if (r.solution) r.check = shared.best_check;
  r.lower_bound = shared.lower;
  r.iterations = shared.iterations;
  r.detail = "winner=" + (shared.winner.empty() ? std::string("none") : shared.winner);
  if (shared.met) r.detail += " stop=lower_bound";
  for (const std::string& who : shared.rejected) r.detail += " rejected_invalid=" + who;
  if (!skipped.empty()) {
    r.detail += " skipped=";
    for (size_t k = 0; k < skipped.size(); ++k) r.detail += (k ? "," : "") + skipped[k];
  }
  return r;
}

void register_portfolio(std::vector<SolverInfo>& out) {
  out.insert(out.begin(), {"auto",
                           "default portfolio: greedy, then exact search and idealloc side by side "
                           "sharing the best peak; stops at a proven optimum or the time limit",
                           [](const Problem& p, const SolveOptions& opt) { return run_portfolio(p, opt, find_solver); },
                           Supports{.explicit_conflicts = true, .gaps = true, .proves_optimal = true, .threads = true,
                                    .checks_plans = true}});
}

}  // namespace memplan
