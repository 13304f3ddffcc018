// Benchmark: the greedy solvers on training-shaped traces (`memplan generate --kind training`:
// nested forward activations live until their backward step, about a quarter of the buffers
// live at once). Prints a Markdown table: per size and solver, the median over the seeds of
// the wall time, CPU time (all threads), the maximum resident set size, peak / LOAD and the
// solver's iteration count (for first-fit and best-fit: 1 if the pass finished, 0 if the time
// limit cut it and the online allocator's plan was returned; for greedy: the orders
// finished), and seed 1's detail. Each solve runs in a forked child, so that its CPU time
// and RSS (which includes the instance, generated before the fork) are its own.
//
//   training_bench [--sizes 100000,250000,500000,1000000] [--seeds 3] [--time-limit 10]
//                  [--threads 2] [--algos first-fit,best-fit,first-fit-area,...,auto]
// (--time-limit 0: no limit, for the CPU time of whole passes).
//   training_bench --holes size,area,pressure [--sizes ...] [--seeds 3]
// instead prints, per size and best-fit order, what best-fit's walk over the occupancy index
// visits per query (PlacementEngine::collect_best_fit_stats): the holes that fit, those in the
// best hole's length class or the next (what a search by width class would still have to
// compare), the classes from the query's size to the best hole's, and the exact fits.
// The default solvers: first-fit and best-fit in each greedy order (first-fit is
// first-fit-size, best-fit is best-fit-size), greedy (all 16), online-best-fit and auto.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/orders.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

using namespace memplan;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

double cpu_seconds(const rusage& u) {
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Run {
  bool ok = false;  // a plan the validator accepts
  double wall = 0, cpu = 0, rss_mb = 0, ratio = 0, iterations = 0;
  char status[32] = {}, detail[200] = {};
};

// solve() in a forked child; its rusage gives the solve's own CPU time and peak RSS.
Run run_forked(const Problem& p, int64_t load, const std::string& algo, const SolveOptions& opt) {
  Run run;
  int fd[2];
  if (pipe(fd) != 0) return run;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const auto t0 = std::chrono::steady_clock::now();
    const SolveResult r = solve(p, algo, opt);
    run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    run.ok = r.solution && validate(p, r.solution->offsets).ok;
    if (run.ok) run.ratio = double(r.solution->peak) / double(std::max<int64_t>(load, 1));
    run.iterations = double(r.iterations);
    std::snprintf(run.status, sizeof run.status, "%s", to_string(r.status));
    std::snprintf(run.detail, sizeof run.detail, "%s", r.detail.c_str());
    const ssize_t w = write(fd[1], &run, sizeof run);
    _exit(w == ssize_t(sizeof run) ? 0 : 1);
  }
  close(fd[1]);
  Run got;
  const bool read_ok = pid > 0 && read(fd[0], &got, sizeof got) == ssize_t(sizeof got);
  close(fd[0]);
  int status = 0;
  rusage u{};
  if (pid > 0) wait4(pid, &status, 0, &u);
  if (!read_ok) return run;  // the child died: reported as no valid plan
  got.cpu = cpu_seconds(u);
  got.rss_mb = double(u.ru_maxrss) / 1024.0;
  return got;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The training traces of `size` buffers, seeds 1..seeds.
std::vector<Problem> training_instances(const std::string& size, int seeds) {
  std::vector<Problem> problems;
  for (int s = 1; s <= seeds; ++s) {
    GenerateOptions g;
    g.kind = "training";
    g.buffers = std::stoll(size);
    g.seed = static_cast<uint64_t>(s);
    problems.push_back(generate(g));
  }
  return problems;
}

// One best-fit pass in `order` on the placement engine, with its walk's counters.
BestFitStats best_fit_holes(const Problem& p, Order order) {
  BestFitStats stats;
  PlacementEngine engine(p);
  engine.collect_best_fit_stats(&stats);
  const std::vector<int32_t> by = make_order(p, order);
  place_in_order(engine, by, Fit::kBest);
  return stats;
}

int print_holes(const std::vector<std::string>& sizes, const std::vector<std::string>& orders, int seeds) {
  std::printf("best-fit's holes per query on training traces (generate --kind training, seeds 1..%d), "
              "medians over seeds\n\n",
              seeds);
  std::printf("| buffers | solver | queries | holes / query | in best class or next / query | classes / query | "
              "exact fits %% |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|\n");
  for (const std::string& size : sizes) {
    const std::vector<Problem> problems = training_instances(size, seeds);
    for (const std::string& name : orders) {
      const Order* order = std::find_if(std::begin(kAllOrders), std::end(kAllOrders),
                                        [&](Order o) { return name == order_name(o); });
      if (order == std::end(kAllOrders)) {
        std::fprintf(stderr, "unknown order %s\n", name.c_str());
        return 2;
      }
      std::vector<double> queries, holes, near, classes, exact;
      for (const Problem& p : problems) {
        const BestFitStats st = best_fit_holes(p, *order);
        const double q = double(std::max<int64_t>(st.queries, 1));
        queries.push_back(double(st.queries));
        holes.push_back(double(st.holes) / q);
        near.push_back(double(st.near_best) / q);
        classes.push_back(double(st.classes) / q);
        exact.push_back(100.0 * double(st.exact) / q);
      }
      std::printf("| %s | best-fit-%s | %.0f | %.1f | %.1f | %.2f | %.1f |\n", size.c_str(), name.c_str(),
                  median(queries), median(holes), median(near), median(classes), median(exact));
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sizes = {"100000", "250000", "500000", "1000000"};
  std::vector<std::string> algos;
  for (const char* fit : {"first-fit-", "best-fit-"})
    for (const char* order : {"size", "area", "length", "start", "conflicts", "conflict-size", "pressure", "wat"})
      algos.push_back(std::string(fit) + order);
  for (const char* a : {"greedy", "online-best-fit", "auto"}) algos.push_back(a);
  int seeds = 3;
  std::vector<std::string> holes;  // --holes: best-fit orders whose walks to count
  SolveOptions opt;
  opt.time_limit_seconds = 10;
  opt.threads = 2;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string a = argv[k], v = argv[k + 1];
    if (a == "--sizes") sizes = split(v);
    else if (a == "--algos") algos = split(v);
    else if (a == "--seeds") seeds = std::max(1, std::stoi(v));
    else if (a == "--time-limit") opt.time_limit_seconds = std::stod(v);
    else if (a == "--threads") opt.threads = std::stoi(v);
    else if (a == "--holes") holes = split(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!holes.empty()) return print_holes(sizes, holes, seeds);
  char limit[32] = "none";  // --time-limit 0: every pass runs to the end
  if (opt.time_limit_seconds > 0) std::snprintf(limit, sizeof limit, "%g s", opt.time_limit_seconds);
  std::printf("training traces (generate --kind training, seeds 1..%d), time limit %s, %d threads; "
              "medians over seeds\n\n",
              seeds, limit, opt.threads);
  std::printf("| buffers | max live | solver | wall s | CPU s | RSS MB | peak / LOAD | iterations | detail (seed 1) |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
  bool any_failed = false;
  for (const std::string& size : sizes) {
    const std::vector<Problem> problems = training_instances(size, seeds);
    std::vector<int64_t> loads;
    std::vector<double> live;
    for (const Problem& p : problems) {
      const InstanceStats st = compute_stats(p);
      loads.push_back(st.load);
      live.push_back(double(st.max_live_buffers));
    }
    for (const std::string& algo : algos) {
      std::vector<double> wall, cpu, rss, ratio, iterations;
      std::string detail;
      bool failed = false;
      for (size_t s = 0; s < problems.size(); ++s) {
        const Run r = run_forked(problems[s], loads[s], algo, opt);
        if (!r.ok) {  // reported, and the exit status says so; the table goes on
          std::printf("| %s | - | %s | seed %zu: no valid plan (%s) |\n", size.c_str(), algo.c_str(), s + 1, r.status);
          failed = true;
          break;
        }
        wall.push_back(r.wall);
        cpu.push_back(r.cpu);
        rss.push_back(r.rss_mb);
        ratio.push_back(r.ratio);
        iterations.push_back(r.iterations);
        if (s == 0) detail = r.detail;
      }
      any_failed |= failed;
      if (failed) continue;
      std::printf("| %s | %.0f | %s | %.2f | %.2f | %.0f | %.4f | %.0f | %s |\n", size.c_str(), median(live),
                  algo.c_str(), median(wall), median(cpu), median(rss), median(ratio), median(iterations),
                  detail.c_str());
      std::fflush(stdout);
    }
  }
  return any_failed ? 1 : 0;
}
