// Benchmark of the `idealloc` solver against the figures idealloc (the Rust research tool)
// reached (shared/research/idealloc.md §7). Prints a Markdown table.
//
// Usage: idealloc_bench [iterations for A-K, default 10000] [threads, default 1]
//                       [buffers of the synthetic instance, default 1000000]
// Run from the repository root (reads benchmarks/...). Each row runs in a forked child so
// that its peak RSS (getrusage) is its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

using namespace memplan;

namespace {

struct Row {
  std::string name;
  std::string path;  // empty: synthetic
  int64_t iterations;
  double target;          // idealloc's peak/LOAD
  std::string published;  // idealloc's time figure, as text
  int digits = 3;         // decimals idealloc's figure was published with
};

void run_row(const Row& row, int threads, int64_t synthetic_buffers) {
  Problem p;
  if (row.path.empty()) {
    GenerateOptions g;
    g.kind = "dnn";
    g.buffers = synthetic_buffers;
    g.seed = 1;
    p = generate(g);
  } else {
    p = read_csv_file(row.path).problem;
  }
  const int64_t load = compute_load(p);
  SolveOptions o;
  o.iterations = row.iterations;
  o.threads = threads;
  o.seed = 1;
  o.time_limit_seconds = 0;  // no limit
  const auto t0 = std::chrono::steady_clock::now();
  const SolveResult r = solve(p, "idealloc", o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const bool ok = r.solution && validate(p, r.solution->offsets).ok;
  const double ratio = r.solution ? double(r.solution->peak) / double(load) : 0;
  // Compared at the precision idealloc's figure was published with.
  const double scale = std::pow(10.0, row.digits);
  const bool not_worse = std::llround(ratio * scale) <= std::llround(row.target * scale);
  const double ms_it = r.iterations > 0 ? 1000.0 * wall / double(r.iterations) : 0;
  std::printf("| %s | %zu | %lld | %.4f | %s | %lld | %.2f | %.3f | %.0f | %s | %s | %s |\n",
              row.name.c_str(), p.buffers.size(), static_cast<long long>(row.iterations), ratio,
              row.target > 0 ? std::to_string(row.target).substr(0, size_t(2 + row.digits)).c_str() : "-",
              static_cast<long long>(r.iterations), wall, ms_it, double(ru.ru_maxrss) / 1024.0,
              row.published.c_str(), ok ? "yes" : "NO",
              row.target <= 0 ? "-" : (not_worse ? "yes" : "no"));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 10000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const int64_t synth = argc > 3 ? std::atoll(argv[3]) : 1000000;
  const std::string mm = "benchmarks/minimalloc/", ia = "benchmarks/idealloc/";
  const double targets[] = {1.218, 1.274, 1.351, 1.247, 1.333, 1.275,
                            1.305, 1.231, 1.410, 1.269, 1.277};
  const char* times[] = {"3.4 s", "3.6 s", "4.4 s", "5.2 s", "6.5 s", "5.5 s",
                         "6.2 s", "6.9 s", "8.9 s", "10.7 s", "13.6 s"};
  std::vector<Row> rows;
  for (int i = 0; i < 11; ++i) {
    const std::string c(1, char('A' + i));
    rows.push_back({c, mm + c + ".1048576.csv", n, targets[i],
                    std::string(times[i]) + " @10k it"});
  }
  rows.push_back({"resnet50", ia + "somas_tensors/resnet50.csv", 100, 1.0031, "0.60 s, 10 MB", 4});
  rows.push_back({"pangu_2.6B", ia + "somas_tensors/pangu_2.6B.csv", 100, 1.0261, "28.7 s, 300 MB", 4});
  rows.push_back({"iopddl S_1", ia + "iopddl/S_1.csv", 10, 1.0140, "11.9 s, 0.93 GB", 4});
  rows.push_back({"iopddl Y_1", ia + "iopddl/Y_1.csv", 1, 1.0036, "26.3 s, 3.6 GB", 4});
  if (synth > 0)
    rows.push_back({"dnn " + std::to_string(synth), "", 1, 0, "target < 60 s, < 2 GB"});
  std::printf("idealloc bench: A-K at %lld iterations, threads=%d, seed=1\n\n",
              static_cast<long long>(n), threads);
  std::printf("| instance | buffers | budget | peak/LOAD | idealloc peak/LOAD | iterations run | "
              "wall s | ms/iteration | peak RSS MB | idealloc time/RSS | valid | not worse |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  for (const Row& row : rows) {
    const pid_t pid = fork();
    if (pid == 0) {
      run_row(row, threads, synth);
      std::_Exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      std::printf("| %s | failed (status %d) |\n", row.name.c_str(), status);
  }
  return 0;
}
