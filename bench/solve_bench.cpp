// Benchmark harness: solves each input with one algorithm in a child process (so peak RSS is
// per run) and prints a Markdown table row per input. Every plan is validated.
//
//   solve_bench --algo auto --time-limit 10 --threads 2 [--capacity C] [--iterations N]
//               [--seed S] [--generate KIND:N:SEED]... FILE...
//
// Files under an iree/ folder use inclusive lifetimes and carry IREE's own plan in their
// offset column: they are read as inclusive and their offsets cleared.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

using namespace memplan;

namespace {

struct Input {
  std::string name, path, generate;
};

Problem load(const Input& in) {
  if (!in.generate.empty()) {
    GenerateOptions g;
    const auto a = in.generate.find(':'), b = in.generate.rfind(':');
    g.kind = in.generate.substr(0, a);
    g.buffers = std::stoll(in.generate.substr(a + 1, b - a - 1));
    g.seed = std::stoull(in.generate.substr(b + 1));
    return generate(g);
  }
  const bool iree = in.path.find("/iree/") != std::string::npos;
  Problem p = read_csv_file(in.path, iree ? Lifetimes::kInclusive : Lifetimes::kHalfOpen).problem;
  if (iree)
    for (Buffer& b : p.buffers) b.offset.reset();
  return p;
}

std::string run_one(const Input& in, const std::string& algo, const SolveOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const Problem p = load(in);
  const auto t1 = std::chrono::steady_clock::now();
  const SolveResult r = solve(p, algo, opt);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const double read = std::chrono::duration<double>(t1 - t0).count();
  const int64_t load = compute_load(p);
  char line[512];
  if (!r.solution) {
    std::snprintf(line, sizeof line, "| %s | %zu | %lld | none (%s) | - | %s | %lld | %.3f | %.3f |", in.name.c_str(),
                  p.buffers.size(), (long long)load, to_string(r.status),
                  r.status == Status::kInfeasible ? "infeasible" : "no", (long long)r.lower_bound, secs, read);
    return line;
  }
  const Validation v = validate(p, r.solution->offsets, opt.capacity);
  std::snprintf(line, sizeof line, "| %s | %zu | %lld | %lld | %.4f%s | %s | %lld | %.3f | %.3f |", in.name.c_str(),
                p.buffers.size(), (long long)load, (long long)r.solution->peak,
                double(r.solution->peak) / double(load), v.ok ? "" : " **INVALID**",
                r.status == Status::kOptimal ? "yes" : "no", (long long)r.lower_bound, secs, read);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "auto";
  SolveOptions opt;
  opt.threads = 2;
  std::vector<Input> inputs;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto next = [&] { return std::string(k + 1 < argc ? argv[++k] : ""); };
    if (a == "--algo") algo = next();
    else if (a == "--time-limit") opt.time_limit_seconds = std::stod(next());
    else if (a == "--threads") opt.threads = std::stoi(next());
    else if (a == "--capacity") opt.capacity = std::stoll(next());
    else if (a == "--iterations") opt.iterations = std::stoll(next());
    else if (a == "--seed") opt.seed = std::stoull(next());
    else if (a == "--generate") {
      const std::string g = next();
      inputs.push_back({g, "", g});
    } else {
      // "A.1048576.csv" -> "A", "pangu_2.6B.csv" -> "pangu_2.6B".
      std::string name = a.substr(a.find_last_of('/') + 1);
      name = name.substr(0, name.rfind('.'));
      const auto dot = name.rfind('.');
      if (dot != std::string::npos && name.find_first_not_of("0123456789", dot + 1) == std::string::npos)
        name = name.substr(0, dot);
      inputs.push_back({name, a, ""});
    }
  }
  std::printf("algo=%s time_limit=%g threads=%d%s\n\n", algo.c_str(), opt.time_limit_seconds, opt.threads,
              opt.capacity ? (" capacity=" + std::to_string(*opt.capacity)).c_str() : "");
  std::printf("| input | buffers | LOAD | peak | peak/LOAD | optimal | lower bound | solve s | read s | max RSS MB |\n");
  std::printf("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  for (const Input& in : inputs) {
    int fd[2];
    if (pipe(fd) != 0) return 1;
    const pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      std::string row;
      try {
        row = run_one(in, algo, opt);
      } catch (const std::exception& e) {
        row = "| " + in.name + " | error: " + e.what() + " |||||||";
      }
      if (write(fd[1], row.data(), row.size()) < 0) _exit(1);
      _exit(0);
    }
    close(fd[1]);
    std::string row;
    char buf[4096];
    for (ssize_t got; (got = read(fd[0], buf, sizeof buf)) > 0;) row.append(buf, got);
    close(fd[0]);
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    if (row.empty()) row = "| " + in.name + " | crashed (status " + std::to_string(status) + ") |||||||";
    std::printf("%s %.1f |\n", row.c_str(), ru.ru_maxrss / 1024.0);
    std::fflush(stdout);
  }
}
