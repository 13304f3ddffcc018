// Benchmark: swapping, several memories and explanations on the bundled sets. Prints three
// Markdown tables (every plan checked by validate_swaps / validate_spaces):
//  1. swap: capacity 90/75/50 % of LOAD, every buffer with an idle stretch evictable (uses
//     default to first and last instant), unit steps, bandwidth = half the largest buffer per
//     step (a copy takes at most 2 steps), one copy channel;
//  2. memories: sram = 25 % of LOAD, dram unbounded, every buffer sram|dram: the density
//     planner (memories.h) against "biggest first to sram";
//  3. explain at capacity LOAD - 1: time and the worst instant.
//
//   spaces_bench [--algo greedy] [--time-limit 2] FILE...
// Files under an iree/ folder use inclusive lifetimes; their offset column is IREE's plan
// and is cleared.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/explain.h"
#include "memplan/io.h"
#include "memplan/memories.h"
#include "memplan/swap.h"
#include "memplan/validate_spaces.h"

using namespace memplan;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string base(const std::string& path) {
  const size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

Problem load(const std::string& path) {
  const bool iree = path.find("iree/") != std::string::npos;
  Problem p = read_csv_file(path, iree ? Lifetimes::kInclusive : Lifetimes::kHalfOpen).problem;
  if (iree)
    for (Buffer& b : p.buffers) b.offset.reset();
  return p;
}

// Share of all accesses (default: uses) served by the first memory.
double fast_share(const Problem& p, const SpacesResult& r) {
  double all = 0, fast = 0;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const double a = p.buffers[i].end - p.buffers[i].start > 1 ? 2 : 1;
    all += a;
    if (r.ok && r.space[i] == 0) fast += a;
  }
  return all > 0 ? 100 * fast / all : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "greedy";
  double limit = 2;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--algo") && i + 1 < argc) algo = argv[++i];
    else if (!std::strcmp(argv[i], "--time-limit") && i + 1 < argc) limit = std::atof(argv[++i]);
    else files.push_back(argv[i]);
  }
  SolveOptions opt;
  opt.time_limit_seconds = limit;
  opt.threads = 1;

  std::printf("### Swap (algo %s, time limit %.1f s per run)\n\n", algo.c_str(), limit);
  std::printf("| set | buffers | LOAD | capacity | fits | evictions | bytes moved | moved / LOAD | plans | valid | time (s) |\n");
  std::printf("|---|---:|---:|---|---|---:|---:|---:|---:|---|---:|\n");
  for (const std::string& f : files) {
    Problem p = load(f);
    const int64_t load = compute_load(p);
    int64_t max_size = 1;
    for (Buffer& b : p.buffers) {
      b.evictable = b.end - b.start >= 3;
      max_size = std::max(max_size, b.size);
    }
    SwapOptions so;
    so.bandwidth = (max_size + 1) / 2;
    for (int pct : {90, 75, 50}) {
      const int64_t cap = load * pct / 100;
      const auto t0 = std::chrono::steady_clock::now();
      const SwapResult r = plan_swaps(p, cap, algo, opt, so);
      const double secs = since(t0);
      std::string valid = "-";
      if (r.solution)
        valid = validate_swaps(p, r.offsets, cap, r.evictions, r.transfers, so).ok ? "yes" : "NO";
      std::printf("| %s | %zu | %lld | %d %% | %s | %zu | %lld | %.2f | %d | %s | %.2f |\n", base(f).c_str(),
                  p.buffers.size(), static_cast<long long>(load), pct, r.solution ? "yes" : "no",
                  r.evictions.size(), static_cast<long long>(r.bytes_moved),
                  load ? static_cast<double>(r.bytes_moved) / static_cast<double>(load) : 0.0, r.rounds,
                  valid.c_str(), secs);
      std::fflush(stdout);
    }
  }

  std::printf("\n### Two memories: sram = 25 %% of LOAD, dram unbounded (algo %s)\n\n", algo.c_str());
  std::printf("| set | planner | ok | accesses in sram | sram peak | dram peak | moves | valid | time (s) |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---|---:|\n");
  for (const std::string& f : files) {
    Problem p = load(f);
    const int64_t load = compute_load(p);
    p.memories = {{"sram", std::max<int64_t>(1, load / 4), 1}, {"dram", std::nullopt, 1}};
    for (Buffer& b : p.buffers) b.spaces = {"sram", "dram"};
    for (int density = 1; density >= 0; --density) {
      const auto t0 = std::chrono::steady_clock::now();
      const SpacesResult r = density ? plan_spaces(p, algo, opt) : plan_spaces_biggest_first(p, algo, opt);
      const double secs = since(t0);
      std::vector<int64_t> peaks(2, 0);
      std::string valid = "-";
      if (r.ok) {
        std::vector<std::string> names;
        for (int m : r.space) names.push_back(p.memories[static_cast<size_t>(m)].name);
        valid = validate_spaces(p, names, r.offsets, &peaks).ok ? "yes" : "NO";
      }
      std::printf("| %s | %s | %s | %.1f %% | %lld | %lld | %d | %s | %.2f |\n", base(f).c_str(),
                  density ? "density" : "biggest first", r.ok ? "yes" : "no", fast_share(p, r),
                  static_cast<long long>(peaks[0]), static_cast<long long>(peaks[1]), r.moves, valid.c_str(), secs);
      std::fflush(stdout);
    }
  }

  std::printf("\n### Explain at capacity LOAD - 1\n\n");
  std::printf("| set | LOAD | worst instant | overloaded runs | live there | time (s) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const std::string& f : files) {
    const Problem p = load(f);
    const int64_t load = compute_load(p);
    const auto t0 = std::chrono::steady_clock::now();
    const Explanation e = explain(p, load - 1, algo, opt);
    std::printf("| %s | %lld | %lld | %zu | %zu | %.3f |\n", base(f).c_str(), static_cast<long long>(e.worst_load),
                static_cast<long long>(e.worst_time), e.overloaded.size(), e.live.size(), since(t0));
  }
  return 0;
}
