// Benchmark: how far past its time limit each solver returns. Each input is read (or
// generated) once; every registered solver (or those of --algos) runs on it through
// memplan::solve (validation included, as the library does it) at each limit, timed by the
// wall clock against the tolerance max(10 %, 0.1 s). The first table has one row per input
// and limit: runs, runs over the tolerance, and the largest overrun with its solver and the
// CPU seconds that run used; runs over the tolerance (or, with --verbose, every run) are
// listed after it. Then `auto` runs at every --auto-limits limit (default: --limits) with
// --auto-threads threads (default: --threads; 1 makes auto's members run in a fixed order), and the
// last table checks that a longer limit never gave a worse peak.
//
//   overrun_bench [--limits 2,5] [--auto-limits 2,5] [--threads 2] [--auto-threads 1] [--algos a,b,...]
//                 [--verbose] [--generate KIND:N:SEED]... [--overlap N] [--free FILE]... [FILE...]
//
// FILE: a CSV (MiniMalloc's or memplan's columns) or a .plc trace; --free FILE reads a CSV
// and drops its offsets (idealloc's IREE sets: their offset column is IREE's own plan).
// --overlap N adds N fully overlapping buffers (all live at once, sizes 1..64): first fit's
// worst case (O(n^2)). Not part of ctest; scripts/overrun.sh runs it on every bundled input
// and the 1,000,000-buffer cases the README quotes.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

using namespace memplan;

namespace {

struct Input {
  std::string name;
  Problem problem;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

Problem overlapping(int64_t n) {
  Problem p;
  p.buffers.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    Buffer b;
    b.id = "b" + std::to_string(i);
    b.start = 0;
    b.end = 1;
    b.size = 1 + (i * 7919) % 64;
    p.buffers.push_back(std::move(b));
  }
  return p;
}

// CPU seconds (user + system) of the whole process so far, every thread.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// The value of "winner=" in a result's detail ("?" when absent).
std::string winner(const std::string& detail) {
  const auto at = detail.find("winner=");
  if (at == std::string::npos) return "?";
  const std::string rest = detail.substr(at + 7);
  return rest.substr(0, rest.find(' '));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> limits = {2, 5}, auto_limits;
  int threads = 2, auto_threads = 0;  // 0: --threads
  bool verbose = false;
  std::vector<std::string> algos;
  std::vector<Input> inputs;
  auto base_name = [](const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  auto parse_limits = [](const std::string& list) {
    std::vector<double> out;
    for (const std::string& l : split(list)) out.push_back(std::stod(l));
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "overrun_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--limits") {
      limits = parse_limits(next());
    } else if (a == "--auto-limits") {
      auto_limits = parse_limits(next());
    } else if (a == "--threads") {
      threads = std::stoi(next());
    } else if (a == "--auto-threads") {
      auto_threads = std::stoi(next());
    } else if (a == "--algos") {
      algos = split(next());
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--generate") {
      const std::string spec = next();
      GenerateOptions g;
      const auto x = spec.find(':'), y = spec.rfind(':');
      g.kind = spec.substr(0, x);
      g.buffers = std::stoll(spec.substr(x + 1, y - x - 1));
      g.seed = std::stoull(spec.substr(y + 1));
      inputs.push_back({spec, generate(g)});
    } else if (a == "--overlap") {
      const int64_t n = std::stoll(next());
      inputs.push_back({"overlap:" + std::to_string(n), overlapping(n)});
    } else if (a == "--free") {
      const std::string path = next();
      Problem p = read_csv_file(path).problem;
      for (Buffer& b : p.buffers) b.offset.reset();
      inputs.push_back({base_name(path) + " (offsets dropped)", std::move(p)});
    } else if (a.size() > 4 && a.substr(a.size() - 4) == ".plc") {
      inputs.push_back({base_name(a), read_plc_file(a)});
    } else {
      inputs.push_back({base_name(a), read_csv_file(a).problem});
    }
  }
  if (auto_limits.empty()) auto_limits = limits;
  if (auto_threads <= 0) auto_threads = threads;
  if (algos.empty())
    for (const SolverInfo& s : all_solvers()) algos.push_back(s.name);
  std::printf("threads=%d; time = wall time of memplan::solve (its check of the plan included); over = time - "
              "limit; tolerance max(10%%, 0.1 s); cpu = CPU seconds of all the call's threads (on a busy machine "
              "time > cpu / threads: the call waited for a core)\n\n",
              threads);
  // What the driver spends around every solver on each input, in CPU seconds: the lower
  // bound's sweep (before the solver) and the check of a plan (after it; here the online
  // plan's). The check must fit in the reserve and tolerance the driver leaves it.
  std::printf("| input | buffers | lower bound (CPU s) | check of a plan (CPU s) |\n|---|---:|---:|---:|\n");
  for (const Input& in : inputs) {
    const double c0 = cpu_seconds();
    lower_bound_of(in.problem);
    const double c1 = cpu_seconds();
    const std::optional<Solution> plan = online_plan(in.problem);
    const double c2 = cpu_seconds();
    if (plan) validate(in.problem, plan->offsets);
    std::printf("| %s | %zu | %.3f | %.3f |\n", in.name.c_str(), in.problem.buffers.size(), c1 - c0,
                plan ? cpu_seconds() - c2 : 0.0);
  }
  std::printf("\n");
  struct Row {
    std::string input, solver, status, ratio;
    size_t buffers;
    double limit, secs, over, cpu;
    bool ok;
  };
  std::vector<Row> rows;
  for (const Input& in : inputs) {
    const double load = static_cast<double>(std::max<int64_t>(compute_load(in.problem), 1));
    for (const std::string& algo : algos) {
      for (double limit : limits) {
        SolveOptions o;
        o.time_limit_seconds = limit;
        o.threads = threads;
        const auto t0 = std::chrono::steady_clock::now();
        const double cpu0 = cpu_seconds();
        SolveResult r;
        std::string status;
        try {
          r = solve(in.problem, algo, o);
          status = to_string(r.status);
          if (!r.solution && r.detail.find("reason=") != std::string::npos)
            status += " (" + r.detail.substr(r.detail.find("reason=")) + ")";
        } catch (const std::exception& e) {
          status = std::string("error: ") + e.what();
        }
        const double secs = seconds_since(t0);
        const double cpu = cpu_seconds() - cpu0;
        const double over = secs - limit;
        char ratio[32] = "-";
        if (r.solution) std::snprintf(ratio, sizeof ratio, "%.4f", static_cast<double>(r.solution->peak) / load);
        rows.push_back({in.name, algo, status, ratio, in.problem.buffers.size(), limit, secs, over, cpu,
                        over <= memplan::time_limit_tolerance(limit)});
        std::fprintf(stderr, "\r%s %s %g s   ", in.name.c_str(), algo.c_str(), limit);
      }
    }
  }
  std::fprintf(stderr, "\n");
  // One row per input and limit.
  // "no plan": runs the limit left without a plan (status no_plan, reason time_limit...),
  // named; a solver that computes the online plan first should never be among them once
  // the limit leaves time for that plan.
  std::printf("| input | buffers | limit | runs | over the tolerance | plans dropped by a cut check | no plan at the limit (solvers) | largest overrun (solver; its CPU seconds) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---|---|\n");
  int failures = 0;
  for (const Input& in : inputs)
    for (double limit : limits) {
      int runs = 0, over = 0, cut = 0, none = 0;
      std::string which;
      const Row* worst = nullptr;
      for (const Row& r : rows)
        if (r.input == in.name && r.limit == limit) {
          ++runs;
          over += !r.ok;
          cut += r.status.find("time_limit_in_check") != std::string::npos;
          if (r.status.rfind("no_plan", 0) == 0 && r.status.find("time_limit") != std::string::npos)
            which += (none++ ? ", " : "") + r.solver;
          if (!worst || r.over > worst->over) worst = &r;
        }
      failures += over;
      if (worst)
        std::printf("| %s | %zu | %g s | %d | %d | %d | %d%s%s%s | %+.2f s (%s; %.2f) |\n", in.name.c_str(),
                    in.problem.buffers.size(), limit, runs, over, cut, none, none ? " (" : "", which.c_str(),
                    none ? ")" : "", worst->over, worst->solver.c_str(), worst->cpu);
    }
  std::printf("\nruns: %zu; over the tolerance: %d\n", rows.size(), failures);
  int errors = 0;
  for (const Row& r : rows) errors += r.status.rfind("error", 0) == 0;
  if (errors) std::printf("runs that threw: %d\n", errors);
  std::printf("\n| input | buffers | solver | limit (s) | time (s) | over (s) | ok | cpu (s) | status | peak/LOAD |\n");
  std::printf("|---|---:|---|---:|---:|---:|---|---:|---|---:|\n");
  for (const Row& r : rows)
    if (verbose || !r.ok || r.status.rfind("error", 0) == 0)
      std::printf("| %s | %zu | %s | %g | %.2f | %+.2f | %s | %.2f | %s | %s |\n", r.input.c_str(), r.buffers,
                  r.solver.c_str(), r.limit, r.secs, r.over, r.ok ? "yes" : "NO", r.cpu, r.status.c_str(),
                  r.ratio.c_str());
  // Monotonicity of auto in the limit: each limit's plan is no worse than the shorter one's
  // (no plan counts as the worst).
  std::printf("\n| input | auto (%d thread%s): peak/LOAD (winner) at limits", auto_threads, auto_threads == 1 ? "" : "s");
  for (double l : auto_limits) std::printf(" %g s", l);
  std::printf(" | monotone |\n|---|---|---|\n");
  int worse = 0;
  for (const Input& in : inputs) {
    const double load = static_cast<double>(std::max<int64_t>(compute_load(in.problem), 1));
    std::string row;
    int64_t prev = INT64_MAX;
    bool monotone = true;
    for (double limit : auto_limits) {
      SolveOptions o;
      o.time_limit_seconds = limit;
      o.threads = auto_threads;
      const SolveResult r = solve(in.problem, "auto", o);
      const int64_t peak = r.solution ? r.solution->peak : INT64_MAX;
      monotone = monotone && peak <= prev;
      prev = peak;
      char cell[128];
      if (r.solution)
        std::snprintf(cell, sizeof cell, " %.4f (%s)", static_cast<double>(peak) / load, winner(r.detail).c_str());
      else
        std::snprintf(cell, sizeof cell, " no plan (%s)", r.detail.c_str());
      row += cell;
    }
    worse += !monotone;
    std::printf("| %s |%s | %s |\n", in.name.c_str(), row.c_str(), monotone ? "yes" : "NO");
  }
  return failures || worse || errors ? 1 : 0;
}
