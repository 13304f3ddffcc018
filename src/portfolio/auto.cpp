// Solver `auto`, the default: a portfolio. The exact search (which proves bounds) runs from
// the start on one worker; on the others the greedy orders and production heuristics give
// plans at once, then the best available heuristic search (idealloc when registered, else
// simulated annealing) runs. All share the best peak found, and stop as soon as a plan
// meets the proven lower bound, or at the time limit (default 10 s). On one thread: the
// heuristics, then exact, then the heuristic search.
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/placement.h"
#include "solvers/families.h"

namespace memplan {
namespace {

struct Shared {
  std::mutex mu;
  std::optional<Solution> best;
  std::string winner;
  int64_t lower = 0;
  std::atomic<int64_t> upper{INT64_MAX};
  std::atomic<bool> stop{false};
  int64_t iterations = 0;

  void offer(const SolveResult& r, const std::string& who) {
    std::lock_guard lock(mu);
    iterations += r.iterations;
    lower = std::max(lower, r.lower_bound);
    if (r.solution && (!best || r.solution->peak < best->peak)) {
      best = r.solution;
      winner = who;
      upper = best->peak;
    }
    if (best && best->peak <= lower) stop = true;
  }
};

SolveResult run_auto(const Problem& p, const SolveOptions& opt) {
  Shared shared;
  shared.lower = compute_load(p);
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  // Members run side by side, one worker thread each.
  auto member_options = [&](double share) {
    SolveOptions o = opt;
    o.threads = 1;
    o.cancel = &shared.stop;
    o.shared_upper_bound = &shared.upper;
    const double left = deadline.remaining_seconds();
    o.time_limit_seconds = std::isfinite(left) ? std::max(0.001, left * share) : 0;
    return o;
  };
  auto run = [&](const char* name, double share) {
    const SolverInfo* s = find_solver(name);
    if (!s || shared.stop) return;
    shared.offer(s->run(p, member_options(share)), name);
  };
  const int threads = std::max(1, opt.threads);
  // Runs members on `threads` workers; each member gets a share of the time left when it starts.
  auto run_all = [&](const std::vector<std::pair<const char*, double>>& members) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t k; (k = next.fetch_add(1)) < members.size();) run(members[k].first, members[k].second);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(threads, members.size()); ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  };
  // The caller's cancel flag reaches the members through the shared stop flag.
  std::thread watcher;
  if (opt.cancel)
    watcher = std::thread([&] {
      while (!shared.stop) {
        if (opt.cancel->load()) shared.stop = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
  // The heuristics: the peak window (bert_large and bert_nezha reach LOAD with it in
  // 0.2 s), the greedy orders, the exact search's dives (which land closest on the large
  // models) and the strongest cheap production heuristics (which win on some), each
  // bounded to a share of the budget on huge inputs; then a heuristic search until the end.
  std::vector<std::pair<const char*, double>> heuristics = {
      {"peak-window", 0.6}, {"greedy", 0.6},         {"dive", 0.5},
      {"tflite-gpu-greedy-by-size", 0.3}, {"somas", 0.3}, {"xla-choose-best", 0.3}};
  const char* search = nullptr;
  for (const char* h : {"idealloc", "simulated-annealing"})
    if (find_solver(h)) {
      search = h;
      break;
    }
  if (threads == 1) {
    // One worker: a plan first, then the exact search, then the heuristic search.
    run_all(heuristics);
    run_all({{"exact", 1.0}});
    if (search) run_all({{search, 1.0}});
  } else {
    // The exact search starts at once on its own worker (on large models its dive needs
    // every second; it searches at the lower bound until the heuristics' first plan
    // arrives through the shared bound); the heuristics run on the others.
    std::thread exact([&] { run("exact", 1.0); });
    if (search) heuristics.push_back({search, 1.0});
    {
      std::atomic<size_t> next{0};
      auto worker = [&] {
        for (size_t k; (k = next.fetch_add(1)) < heuristics.size();) run(heuristics[k].first, heuristics[k].second);
      };
      std::vector<std::thread> pool;
      for (int t = 2; t < threads; ++t) pool.emplace_back(worker);
      worker();
      for (auto& t : pool) t.join();
    }
    exact.join();
  }
  shared.stop = true;
  if (watcher.joinable()) watcher.join();
  // Cancelled before any member had a plan: the online allocator's, in O(n log n).
  if (!shared.best) shared.best = online_plan(p), shared.winner = "online-best-fit";
  SolveResult r = result_from_plan(p, opt, shared.best);
  r.lower_bound = shared.lower;
  r.iterations = shared.iterations;
  r.detail = "winner=" + shared.winner;
  return r;
}

}  // namespace

void register_portfolio(std::vector<SolverInfo>& out) {
  out.insert(out.begin(), {"auto",
                           "default portfolio: greedy, then exact search and idealloc side by side "
                           "sharing the best peak; stops at a proven optimum or the time limit",
                           run_auto});
}

}  // namespace memplan
