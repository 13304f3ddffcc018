// Benchmark: the greedy solvers on training-shaped traces (`memplan generate --kind training`:
// nested forward activations live until their backward step, about a quarter of the buffers
// live at once). Prints a Markdown table: per size and solver, the median over the seeds of
// the wall time, CPU time (all threads), peak / LOAD and the solver's iteration count (for
// first-fit and best-fit: 1 if the pass finished, 0 if the time limit cut it and the online
// allocator's plan was returned; for greedy: the orders finished), and seed 1's detail.
//
//   training_bench [--sizes 50000,100000,200000,1000000] [--seeds 3] [--time-limit 10]
//                  [--threads 2] [--algos first-fit,best-fit,first-fit-area,...,auto]
// (--time-limit 0: no limit, for the CPU time of whole passes).
// The default solvers: first-fit in each greedy order (first-fit = first-fit-size), best-fit
// (size order), greedy (all 16 order/fit pairs), online-best-fit and auto.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
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

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sizes = {"50000", "100000", "200000", "1000000"};
  std::vector<std::string> algos = {"first-fit",           "first-fit-area",          "first-fit-length",
                                    "first-fit-start",     "first-fit-conflicts",     "first-fit-conflict-size",
                                    "first-fit-pressure",  "first-fit-wat",           "best-fit",
                                    "greedy",              "online-best-fit",         "auto"};
  int seeds = 3;
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
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  char limit[32] = "none";  // --time-limit 0: every pass runs to the end
  if (opt.time_limit_seconds > 0) std::snprintf(limit, sizeof limit, "%g s", opt.time_limit_seconds);
  std::printf("training traces (generate --kind training, seeds 1..%d), time limit %s, %d threads; "
              "medians over seeds\n\n",
              seeds, limit, opt.threads);
  std::printf("| buffers | max live | solver | wall s | CPU s | peak / LOAD | iterations | detail (seed 1) |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---|\n");
  for (const std::string& size : sizes) {
    std::vector<Problem> problems;
    std::vector<int64_t> loads;
    std::vector<double> live;
    for (int s = 1; s <= seeds; ++s) {
      GenerateOptions g;
      g.kind = "training";
      g.buffers = std::stoll(size);
      g.seed = static_cast<uint64_t>(s);
      problems.push_back(generate(g));
      const InstanceStats st = compute_stats(problems.back());
      loads.push_back(st.load);
      live.push_back(double(st.max_live_buffers));
    }
    for (const std::string& algo : algos) {
      std::vector<double> wall, cpu, ratio, iterations;
      std::string detail;
      for (size_t s = 0; s < problems.size(); ++s) {
        const double c0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        const SolveResult r = solve(problems[s], algo, opt);
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        cpu.push_back(cpu_seconds() - c0);
        if (!r.solution || !validate(problems[s], r.solution->offsets).ok) {
          std::printf("| %s | - | %s | no valid plan (%s) |\n", size.c_str(), algo.c_str(), to_string(r.status));
          return 1;
        }
        ratio.push_back(double(r.solution->peak) / double(std::max<int64_t>(loads[s], 1)));
        iterations.push_back(double(r.iterations));
        if (s == 0) detail = r.detail;
      }
      std::printf("| %s | %.0f | %s | %.2f | %.2f | %.4f | %.0f | %s |\n", size.c_str(), median(live), algo.c_str(),
                  median(wall), median(cpu), median(ratio), median(iterations), detail.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
