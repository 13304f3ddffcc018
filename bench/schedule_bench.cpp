// Benchmark of the scheduling layer: per graph, the LOAD of graph order, of each production
// heuristic, of `memory` and of `exact`, with times, the plan's peak on the memory order
// (greedy offsets, validated) and the peak RSS of the run. Each graph runs in a child
// process, so the RSS is per graph. Prints a Markdown table.
//
//   schedule_bench [--graphs dnn:1000,wired:1000,...] [--seed S] [--time-limit S] [--no-plan]
//
// dnn:N is generate_dnn_graph(N, seed), wired:N generate_random_wired_graph(N, seed).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "memplan/generate_graph.h"
#include "memplan/schedule.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

using namespace memplan;

namespace {

void row(const std::string& kind, int64_t size, uint64_t seed, double time_limit, bool plan) {
  const Graph g = kind == "wired" ? generate_random_wired_graph(size, seed) : generate_dnn_graph(size, seed);
  ScheduleOptions opt;
  opt.seed = seed;
  opt.time_limit = time_limit;
  opt.mode = ScheduleMode::kMemory;
  const ScheduleResult mem = schedule(g, opt);
  opt.mode = ScheduleMode::kExact;
  const ScheduleResult ex = schedule(g, opt);
  if (!is_topological(g, mem.order) || !is_topological(g, ex.order)) {
    std::printf("| %s:%lld | ERROR: not a topological order |\n", kind.c_str(), static_cast<long long>(size));
    return;
  }
  std::string plan_cell = "-";
  if (plan) {
    const LoweredGraph l = lower(g, mem.order);
    SolveOptions so;
    so.time_limit_seconds = time_limit;
    const SolveResult s = solve(l.problem, "greedy", so);
    plan_cell = s.solution && validate(l.problem, s.solution->offsets).ok
                    ? std::to_string(s.solution->peak) : "ERROR";
  }
  std::printf("| %s:%lld:%llu | %zu | %lld | %lld |", kind.c_str(), static_cast<long long>(size),
              static_cast<unsigned long long>(seed), g.ops.size(), static_cast<long long>(mem.blocks),
              static_cast<long long>(mem.largest_block));
  std::printf(" %lld |", static_cast<long long>(mem.graph_order_load));
  for (const auto& h : mem.heuristics) std::printf(" %lld |", static_cast<long long>(h.load));
  std::printf(" %lld | %.2f | %.3f |", static_cast<long long>(mem.load),
              static_cast<double>(mem.graph_order_load) / static_cast<double>(std::max<int64_t>(1, mem.load)),
              mem.seconds);
  std::printf(" %lld%s | %.3f | %s |\n", static_cast<long long>(ex.load), ex.proven_optimal ? " (opt)" : "",
              ex.seconds, plan_cell.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> graphs{"dnn:1000", "dnn:10000", "dnn:100000", "wired:1000", "wired:10000", "wired:100000"};
  uint64_t seed = 1;
  double time_limit = 10;
  bool plan = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--graphs" && i + 1 < argc) {
      graphs.clear();
      std::string s = argv[++i];
      for (size_t p = 0; p <= s.size();) {
        const size_t q = std::min(s.find(',', p), s.size());
        graphs.push_back(s.substr(p, q - p));
        p = q + 1;
      }
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::stoull(argv[++i]);
    } else if (a == "--time-limit" && i + 1 < argc) {
      time_limit = std::stod(argv[++i]);
    } else if (a == "--no-plan") {
      plan = false;
    } else {
      std::fprintf(stderr, "usage: schedule_bench [--graphs dnn:N,wired:N,...] [--seed S] [--time-limit S] [--no-plan]\n");
      return 2;
    }
  }
  std::printf("| graph | operators | blocks | largest block | graph order | xla-list | xla-dfs | "
              "xla-postorder | lpmf | bfs | inductor-dfs | memory | graph/memory | memory s | exact | "
              "exact s | planned peak (memory order) | max RSS MB |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  int status_all = 0;
  for (const std::string& spec : graphs) {
    const size_t colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    if (colon == std::string::npos || (kind != "dnn" && kind != "wired")) {
      std::fprintf(stderr, "schedule_bench: bad graph '%s' (dnn:N or wired:N)\n", spec.c_str());
      return 2;
    }
    const int64_t size = std::stoll(spec.substr(colon + 1));
    int fds[2];
    if (pipe(fds) != 0) return 1;
    std::fflush(stdout);  // the child must not inherit unwritten rows
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      row(kind, size, seed, time_limit, plan);
      _exit(0);
    }
    close(fds[1]);
    std::string line;
    char buf[4096];
    for (ssize_t k; (k = read(fds[0], buf, sizeof buf)) > 0;) line.append(buf, static_cast<size_t>(k));
    close(fds[0]);
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (status != 0) {
      std::printf("| %s | ERROR: child exited %d |\n", spec.c_str(), status);
      status_all = 1;
      continue;
    }
    std::printf("%s %.0f |\n", line.c_str(), static_cast<double>(ru.ru_maxrss) / 1024.0);
  }
  return status_all;
}
