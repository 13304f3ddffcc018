// Fair comparison of `idealloc-mcts` (UCT over Theorem 2's critical points) with plain
// `idealloc` iterations. Prints Markdown tables.
//
// Usage: idealloc_mcts_bench [mode, default equal] [seconds, default 1] [seeds, default 20]
//                            [threads, default 1]
//   equal: per instance (MiniMalloc A-K and the idealloc real sets), both solvers with the
//          same wall-time limit and the same seeds 1..seeds (arms alternate which runs first);
//          paired wins/ties/losses of mcts against plain per seed and the median peak/LOAD.
//   tenth: per A-K instance and seed, plain idealloc with 10,000 iterations (its wall time
//          W measured), then idealloc-mcts with the time limit W / 10; does mcts reach the
//          plain 10k peak?
//   tune:  the parameter grid on generated instances only (memplan generate kinds uniform
//          n=300 and dnn n=500, seeds 1..seeds) at the given seconds per run.
// Run from the repository root (reads benchmarks/...).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/idealloc/idealloc.h"

using namespace memplan;
using idealloc::MctsParams;

namespace {

struct Instance {
  std::string name;
  Problem p;
  int64_t load = 0;
};

Instance load_csv(const std::string& name, const std::string& path) {
  Instance i{name, read_csv_file(path).problem, 0};
  i.load = compute_load(i.p);
  return i;
}

std::vector<Instance> instances(bool ak, bool real) {
  std::vector<Instance> out;
  if (ak)
    for (char c = 'A'; c <= 'K'; ++c)
      out.push_back(load_csv(std::string(1, c), std::string("benchmarks/minimalloc/") + c + ".1048576.csv"));
  if (real) {
    const std::string ia = "benchmarks/idealloc/";
    out.push_back(load_csv("resnet50", ia + "somas_tensors/resnet50.csv"));
    out.push_back(load_csv("pangu_2.6B", ia + "somas_tensors/pangu_2.6B.csv"));
    out.push_back(load_csv("S_1", ia + "iopddl/S_1.csv"));
    out.push_back(load_csv("Y_1", ia + "iopddl/Y_1.csv"));
  }
  return out;
}

struct Run {
  int64_t peak = 0;
  double seconds = 0;
  int64_t iterations = 0;
};

// One solve; the plan is checked by the independent validator (a bad plan aborts the bench).
Run run(const Instance& in, bool mcts, const MctsParams& mp, uint64_t seed, double seconds,
        int64_t iterations, int threads) {
  SolveOptions o;
  o.seed = seed;
  o.threads = threads;
  o.time_limit_seconds = seconds;
  o.iterations = iterations;
  const auto t0 = std::chrono::steady_clock::now();
  // Both arms through solve(), which keeps part of the limit for its plan check: the same
  // budget for both.
  const SolverInfo mcts_info{"idealloc-mcts", "", [&mp](const Problem& q, const SolveOptions& so) {
                               return idealloc::run_idealloc_mcts(q, so, mp);
                             }};
  const SolveResult r = mcts ? solve(in.p, mcts_info, o) : solve(in.p, "idealloc", o);
  Run out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.solution || !validate(in.p, r.solution->offsets).ok) {
    std::fprintf(stderr, "%s: no valid plan (%s)\n", in.name.c_str(), mcts ? "mcts" : "idealloc");
    std::exit(1);
  }
  out.peak = r.solution->peak;
  out.iterations = r.iterations;
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

void equal_time(double seconds, int seeds, int threads) {
  std::printf("Equal wall time %.2f s per run, seeds 1..%d, %d thread(s); W/T/L = seeds where "
              "idealloc-mcts's peak is lower / equal / higher than idealloc's\n\n",
              seconds, seeds, threads);
  std::printf("| instance | idealloc median peak/LOAD | idealloc-mcts median peak/LOAD | W/T/L | "
              "median iterations (plain / mcts) | mcts better | random+slack median | "
              "mcts vs random+slack W/T/L |\n|---|---|---|---|---|---|---|---|\n");
  int better_ak = 0;
  const MctsParams mp;
  // The control arm: mcts's squeeze (cut at best * (1 + slack)) with uniform decisions, to
  // separate what the tree adds from what the longer squeeze adds.
  MctsParams rnd = mp;
  rnd.pass_through = true;
  for (const Instance& in : instances(true, true)) {
    std::vector<double> rp, rm, rr, ip, im;
    int w = 0, t = 0, l = 0, w2 = 0, t2 = 0, l2 = 0;
    for (int s = 1; s <= seeds; ++s) {
      Run a, b, c;
      if (s % 2) {
        a = run(in, false, mp, uint64_t(s), seconds, INT64_MAX / 4, threads);
        b = run(in, true, mp, uint64_t(s), seconds, INT64_MAX / 4, threads);
        c = run(in, true, rnd, uint64_t(s), seconds, INT64_MAX / 4, threads);
      } else {
        c = run(in, true, rnd, uint64_t(s), seconds, INT64_MAX / 4, threads);
        b = run(in, true, mp, uint64_t(s), seconds, INT64_MAX / 4, threads);
        a = run(in, false, mp, uint64_t(s), seconds, INT64_MAX / 4, threads);
      }
      rr.push_back(double(c.peak) / double(in.load));
      (b.peak < c.peak ? w2 : b.peak == c.peak ? t2 : l2)++;
      rp.push_back(double(a.peak) / double(in.load));
      rm.push_back(double(b.peak) / double(in.load));
      ip.push_back(double(a.iterations));
      im.push_back(double(b.iterations));
      (b.peak < a.peak ? w : b.peak == a.peak ? t : l)++;
    }
    // Better: more paired wins than losses and a median no higher.
    const bool better = w > l && median(rm) <= median(rp);
    if (in.name.size() == 1 && better) ++better_ak;
    std::printf("| %s | %.4f | %.4f | %d/%d/%d | %.0f / %.0f | %s | %.4f | %d/%d/%d |\n",
                in.name.c_str(), median(rp), median(rm), w, t, l, median(ip), median(im),
                better ? "yes" : "no", median(rr), w2, t2, l2);
    std::fflush(stdout);
  }
  std::printf("\nA-K instances where idealloc-mcts is better: %d of 11 (goal: >= 8)\n", better_ak);
}

void tenth(int seeds, int threads) {
  std::printf("Plain idealloc 10,000 iterations (wall W) vs idealloc-mcts with time limit W/10, "
              "seeds 1..%d, %d thread(s)\n\n", seeds, threads);
  std::printf("| instance | median W (s) | plain 10k median peak/LOAD | mcts W/10 median peak/LOAD | "
              "seeds mcts <= plain 10k |\n|---|---|---|---|---|\n");
  int met = 0;
  const MctsParams mp;
  for (const Instance& in : instances(true, false)) {
    std::vector<double> wall, rp, rm;
    int reached = 0;
    for (int s = 1; s <= seeds; ++s) {
      const Run a = run(in, false, mp, uint64_t(s), 0, 10000, threads);
      const Run b = run(in, true, mp, uint64_t(s), a.seconds / 10, INT64_MAX / 4, threads);
      wall.push_back(a.seconds);
      rp.push_back(double(a.peak) / double(in.load));
      rm.push_back(double(b.peak) / double(in.load));
      reached += b.peak <= a.peak;
    }
    met += median(rm) <= median(rp);
    std::printf("| %s | %.3f | %.4f | %.4f | %d/%d |\n", in.name.c_str(), median(wall), median(rp),
                median(rm), reached, seeds);
    std::fflush(stdout);
  }
  std::printf("\nA-K instances where mcts's median at W/10 <= plain's 10k median: %d of 11\n", met);
}

void tune(double seconds, int seeds, int threads) {
  std::vector<Instance> gen;
  // Instances where the bootstrap does not reach LOAD already: long-lived uniform buffers
  // (n = 300, horizon 300, lifetimes up to 150) and a perfect tiling (n = 200, optimum LOAD).
  for (const char* kind : {"uniform", "tiling"}) {
    GenerateOptions g;
    g.kind = kind;
    g.buffers = std::string(kind) == "uniform" ? 300 : 200;
    g.horizon = std::string(kind) == "uniform" ? 300 : 0;
    g.max_length = std::string(kind) == "uniform" ? 150 : 0;
    g.seed = 1;
    Instance in{std::string(kind) + "-" + std::to_string(g.buffers), generate(g), 0};
    in.load = compute_load(in.p);
    gen.push_back(std::move(in));
  }
  std::printf("Tuning on generated instances, %.2f s per run, seeds 1..%d: median peak/LOAD\n\n",
              seconds, seeds);
  std::printf("| arm | %s | %s | wins/ties/losses vs plain |\n|---|---|---|---|\n",
              gen[0].name.c_str(), gen[1].name.c_str());
  struct Arm {
    std::string name;
    bool mcts;
    MctsParams mp;
  };
  std::vector<Arm> arms{{"idealloc (plain)", false, {}}};
  MctsParams b;
  b.tree = false;
  arms.push_back({"buckets (no tree)", true, b});
  for (double slack : {0.02, 0.05, 0.1}) {
    MctsParams r;
    r.pass_through = true;
    r.slack = slack;
    char name[64];
    std::snprintf(name, sizeof name, "random decisions, slack=%.2f", slack);
    arms.push_back({name, true, r});
  }
  for (double slack : {0.02, 0.05, 0.1})
    for (int depth : {4, 12})
      for (double c : {0.2, 0.5}) {
        MctsParams m;
        m.slack = slack;
        m.depth = depth;
        m.c = c;
        char name[96];
        std::snprintf(name, sizeof name, "uct slack=%.2f depth=%d c=%.1f", slack, depth, c);
        arms.push_back({name, true, m});
      }
  std::vector<std::vector<int64_t>> plain(gen.size());
  for (const Arm& arm : arms) {
    std::printf("| %s |", arm.name.c_str());
    int w = 0, t = 0, l = 0;
    for (size_t g = 0; g < gen.size(); ++g) {
      std::vector<double> r;
      for (int s = 1; s <= seeds; ++s) {
        const Run x = run(gen[g], arm.mcts, arm.mp, uint64_t(s), seconds, INT64_MAX / 4, threads);
        r.push_back(double(x.peak) / double(gen[g].load));
        if (!arm.mcts) plain[g].push_back(x.peak);
        else {
          const int64_t y = plain[g][size_t(s - 1)];
          (x.peak < y ? w : x.peak == y ? t : l)++;
        }
      }
      std::printf(" %.4f |", median(r));
    }
    std::printf(" %d/%d/%d |\n", w, t, l);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "equal";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  const int seeds = argc > 3 ? std::atoi(argv[3]) : 20;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 1;
  if (mode == "equal") equal_time(seconds, seeds, threads);
  else if (mode == "tenth") tenth(seeds, threads);
  else if (mode == "tune") tune(seconds, seeds, threads);
  else {
    std::fprintf(stderr, "unknown mode %s (equal, tenth, tune)\n", mode.c_str());
    return 2;
  }
  return 0;
}
