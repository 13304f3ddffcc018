// Benchmark: how far past its time limit each solver returns, on the largest inputs. Each
// input is read (or generated) once; every registered solver (or those of --algos) runs on it
// through memplan::solve (validation included, as the library does it) at each limit, and
// the table gives the wall time of the call and the overrun against the tolerance
// max(10 %, 0.1 s). Then `auto` runs at every limit again, and the last table checks that a
// longer limit never gave a worse peak.
//
//   overrun_bench [--limits 2,5] [--threads 2] [--algos a,b,...] [--generate KIND:N:SEED]...
//                 [--overlap N] [FILE...]
//
// --overlap N adds N fully overlapping buffers (all live at once, sizes 1..64): first fit's
// worst case (O(n^2)). It takes minutes; it is not part of ctest. scripts/overrun.sh runs it
// on the inputs the README quotes.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/solver.h"

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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> limits = {2, 5};
  int threads = 2;
  std::vector<std::string> algos;
  std::vector<Input> inputs;
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
      limits.clear();
      for (const std::string& l : split(next())) limits.push_back(std::stod(l));
    } else if (a == "--threads") {
      threads = std::stoi(next());
    } else if (a == "--algos") {
      algos = split(next());
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
    } else {
      const auto slash = a.find_last_of('/');
      inputs.push_back({slash == std::string::npos ? a : a.substr(slash + 1), read_csv_file(a).problem});
    }
  }
  if (algos.empty())
    for (const SolverInfo& s : all_solvers()) algos.push_back(s.name);
  std::printf("threads=%d; time = wall time of memplan::solve (validation included); "
              "over = time - limit; ok = within max(10%%, 0.1 s); cpu = CPU seconds of all the call's threads "
              "(on a busy machine time > cpu / threads: the call waited for a core)\n\n",
              threads);
  std::printf("| input | buffers | solver | limit (s) | time (s) | over (s) | ok | cpu (s) | status | peak/LOAD |\n");
  std::printf("|---|---:|---|---:|---:|---:|---|---:|---|---:|\n");
  int failures = 0;
  double worst = -1e9;
  std::string worst_at;
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
        } catch (const std::exception& e) {
          status = std::string("error: ") + e.what();
        }
        const double secs = seconds_since(t0);
        const double cpu = cpu_seconds() - cpu0;
        const double over = secs - limit;
        const bool ok = over <= std::max(0.1 * limit, 0.1);
        failures += !ok;
        if (over > worst) worst = over, worst_at = in.name + " " + algo + " " + std::to_string(limit);
        char ratio[32] = "-";
        if (r.solution) std::snprintf(ratio, sizeof ratio, "%.4f", static_cast<double>(r.solution->peak) / load);
        std::printf("| %s | %zu | %s | %g | %.2f | %+.2f | %s | %.2f | %s | %s |\n", in.name.c_str(),
                    in.problem.buffers.size(), algo.c_str(), limit, secs, over, ok ? "yes" : "NO", cpu, status.c_str(),
                    ratio);
        std::fflush(stdout);
      }
    }
  }
  std::printf("\nruns over the tolerance: %d; largest overrun %+.2f s (%s)\n", failures, worst, worst_at.c_str());
  // Monotonicity of auto in the limit.
  std::printf("\n| input | auto: peak/LOAD at limits");
  for (double l : limits) std::printf(" %g s", l);
  std::printf(" | monotone |\n|---|---|---|\n");
  int worse = 0;
  for (const Input& in : inputs) {
    const double load = static_cast<double>(std::max<int64_t>(compute_load(in.problem), 1));
    std::string row;
    int64_t prev = INT64_MAX;
    bool monotone = true;
    for (double limit : limits) {
      SolveOptions o;
      o.time_limit_seconds = limit;
      o.threads = threads;
      const SolveResult r = solve(in.problem, "auto", o);
      const int64_t peak = r.solution ? r.solution->peak : INT64_MAX;
      monotone = monotone && peak <= prev;
      prev = peak;
      char cell[96];
      std::snprintf(cell, sizeof cell, " %.4f (%s)", r.solution ? static_cast<double>(peak) / load : 0.0,
                    r.detail.substr(0, r.detail.find(' ')).c_str());
      row += cell;
    }
    worse += !monotone;
    std::printf("| %s |%s | %s |\n", in.name.c_str(), row.c_str(), monotone ? "yes" : "NO");
  }
  return failures || worse ? 1 : 0;
}
