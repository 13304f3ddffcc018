// The exact search at scale, and alignment-aware inference. Prints Markdown tables.
//
// Usage: exact_scale_bench table [seconds=10] [seeds=5] [threads=2] [sizes=400,800,1600,3200,6400]
//                              [kinds=tiling,pinwheel,aligned] [budget=cpu|wall] [first_seed=1]
//                              [backjump|plain]
//          Perfect packings (memplan generate --kind tiling|pinwheel|aligned, capacity 2^20,
//          horizon 2^20, seeds first_seed..first_seed+seeds-1, never chosen; the tuning seeds
//          are 100 and up): the `exact` solver on `threads`
//          threads. A run is solved when it returns a plan at the known optimum (= capacity
//          = LOAD; every plan checked by the validator). budget=wall: the time limit is
//          `seconds` of wall time. budget=cpu (for a shared, loaded machine): the run is
//          cancelled once the process has used threads x seconds of CPU time (what the
//          threads would use in `seconds` on an idle machine), under a wall limit of 40 x
//          seconds. Per kind and size: solved fraction, median wall and CPU seconds (an
//          unsolved run counts as the budget: the median is then a lower bound, marked >).
//          plain: the cell searches without backjumping (conflicts.h), for a side-by-side run.
//        exact_scale_bench nodes [instances=200] [buffers=17]
//          Random instances with alignments 1-8 and sizes 1-12 (not multiples of their
//          alignment, as in issue 21), seeds 1..instances: the optimum by the exact solver,
//          (2 s, one thread), then the proof at optimum - 1 by the canonical and the lowest-cell search, with
//          and without the alignment-aware inference (aligned_stacks_fit), under a cap of
//          10M nodes each. Prints the node totals, medians and maxima.
//        exact_scale_bench plan_order [sizes=400,800] [seeds=100-106] [kind=aligned]
//          The generator's own plan followed cell by cell as the lowest-cell search would
//          (lowest floor, its leftmost section; candidates: the unplaced buffers live there
//          whose floors are all at h, h a multiple of their alignment, h + size <= capacity),
//          placing the plan's buffer at each cell. Per size: the cells with 2+ candidates,
//          and in how many of them the plan's buffer comes first in preorder rank (TAW) and
//          first by the valuation of its top (aligned_cells.h). An order that puts the
//          plan's buffer first more often goes wrong less (the plan need not be the only one).
//        exact_scale_bench strategies [sizes=800,1600] [kinds=tiling,pinwheel,aligned,aligned1]
//                                   [seeds=100-104] [budget=4] [orders=WAT,TAW,TWA,TWO] [searches=0,1,2,3,4]
//          (searches 5 and 6: restart_cells seeded by the order's name, its restarts carrying
//          the dead-end weights of search.h (5) or not (6); budget x n nodes in all;
//          7 and 8: searches 4 and 5 without backjumping, conflicts.h, which every other runs;
//          9: search 4 restarted with each of the root cell's candidates first in turn,
//          rotate_root_cells in aligned_cells.h)
//          Which search finds perfect packings: each of the round robin's searches (0 canonical,
//          1 re-ranking canonical, lowest cell by 2 least slack, 3 fewest branches, 4 fewest
//          branches over all wells, CellChoice::kWells) under each preorder (WAT, TAW, TWA,
//          TWO; Rk = random_order seeded k; Jk = jittered_order seeded k), alone, at capacity = LOAD with budget x n nodes, one
//          thread, on the tuning seeds. Kind aligned1: the aligned instances with every
//          alignment set to 1. Prints, per kind, size and search, how many of the seeds x 4
//          preorders found the packing, their median nodes, the nodes of all its runs, the
//          alternatives its backjumps skipped, and the CPU seconds spent.
//        exact_scale_bench guided [size=800] [seeds=100-109] [budget=8] [K=0,50,100,200,400] [kind=aligned]
//          Where the search goes wrong: the cell search over all wells under WAT with the
//          generator's plan tried first at its first K placements (aligned_cells.h,
//          guide_plan), budget x n nodes. Per seed and K: + found / . not, and the nodes.
//          If K = k finds and K = k - 1 does not, the search's own choice at placement k
//          (plan-consistent before it) leads to a subtree it cannot leave in the budget.
//        exact_scale_bench setup [sizes=5000,10000,20000,40000] [seeds=1-3] [kind=uniform] [reps=3]
//          The search's set-up (exact::prepare: sections, degrees, the overlap lists sorted
//          by size) on generated instances: per size and seed, the overlapping pairs and the
//          median wall seconds of `reps` set-ups (one thread).
// Run from anywhere (instances are generated).
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/exact/aligned_cells.h"
#include "solvers/exact/conflicts.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/restarts.h"
#include "solvers/exact/search.h"
#include "solvers/exact/stacking.h"

using namespace memplan;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) out.push_back(part);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `memplan generate --kind KIND -n SIZE --seed SEED` (capacity and horizon: the defaults).
GenerateOptions generated(const std::string& kind, const std::string& size, int seed) {
  GenerateOptions g;
  g.kind = kind;
  g.buffers = std::stoll(size);
  g.seed = static_cast<uint64_t>(seed);
  return g;
}

int table(double seconds, int seeds, int threads, const std::vector<std::string>& sizes,
          const std::vector<std::string>& kinds, bool cpu_budget, int first_seed) {
  std::printf("| kind | buffers | solved | median wall s | median CPU s |\n|---|---:|---:|---:|---:|\n");
  for (const std::string& kind : kinds)
    for (const std::string& size : sizes) {
      int solved = 0;
      std::vector<double> wall, cpu;
      for (int seed = first_seed; seed < first_seed + seeds; ++seed) {
        const GenerateOptions g = generated(kind, size, seed);
        const Problem p = generate(g);
        SolveOptions o;
        o.time_limit_seconds = cpu_budget ? 40 * seconds : seconds;
        o.threads = threads;
        std::atomic<bool> cancel{false}, done{false};
        o.cancel = &cancel;
        const double c0 = cpu_seconds();
        std::thread watch([&] {  // the CPU budget
          while (cpu_budget && !done) {
            if (cpu_seconds() - c0 >= seconds * threads) cancel = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        });
        const auto t0 = std::chrono::steady_clock::now();
        const SolveResult r = solve(p, "exact", o);
        const double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double c = cpu_seconds() - c0;
        done = true;
        watch.join();
        if (r.solution && !validate(p, r.solution->offsets).ok) {
          std::fprintf(stderr, "invalid plan: %s n=%s seed %d\n", kind.c_str(), size.c_str(), seed);
          return 1;
        }
        const bool ok = r.solution && r.solution->peak == g.capacity;
        solved += ok;
        wall.push_back(ok ? w : std::max(w, seconds));
        cpu.push_back(ok ? c : std::max(c, cpu_budget ? seconds * threads : seconds));
        std::fprintf(stderr, "%s n=%s seed %d: %s peak/LOAD %.4f wall %.2f s CPU %.2f s\n", kind.c_str(),
                     size.c_str(), seed, ok ? "solved" : "unsolved",
                     r.solution ? static_cast<double>(r.solution->peak) / static_cast<double>(g.capacity) : 0.0, w,
                     c);
      }
      const bool lower = solved * 2 <= seeds;  // the median is an unsolved run's limit
      std::printf("| %s | %s | %d/%d | %s%.2f | %s%.2f |\n", kind.c_str(), size.c_str(), solved, seeds,
                  lower ? ">" : "", median(wall), lower ? ">" : "", median(cpu));
      std::fflush(stdout);
    }
  return 0;
}

struct Count {
  std::vector<double> nodes;
  int64_t total = 0;
  int unproven = 0;
};

int nodes(int instances, int buffers) {
  constexpr int64_t kCap = 10'000'000;
  Count counts[2][2];  // [search: canonical, cells][inference: without, with]
  int used = 0;
  for (int seed = 1; seed <= instances; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed));
    Problem p;
    for (int i = 0; i < buffers; ++i) {
      Buffer b;
      b.id = std::to_string(i);
      b.start = static_cast<int64_t>(rng() % 8);
      b.end = b.start + 1 + static_cast<int64_t>(rng() % 4);
      b.size = 1 + static_cast<int64_t>(rng() % 12);
      b.alignment = int64_t{1} << (rng() % 4);
      p.buffers.push_back(b);
    }
    SolveOptions o;
    o.time_limit_seconds = 2;
    o.threads = 1;
    const SolveResult r = solve(p, "exact", o);
    if (r.status != Status::kOptimal) continue;  // counted below as skipped
    ++used;
    const int64_t opt = r.solution->peak;
    const exact::Instance in = *exact::prepare(p, 1 << 30, Deadline());
    const std::vector<int32_t> order = exact::preorder(in, "WAT");
    for (int on = 0; on < 2; ++on) {
      exact::aligned_inference = on == 1;
      const exact::SearchResult a = exact::search(in, opt - 1, order, kCap, Deadline(), "WAT");
      const exact::SearchResult c =
          exact::search_cells(in, opt - 1, order, exact::CellChoice::kLeastSlack, kCap, Deadline());
      for (int s = 0; s < 2; ++s) {
        const exact::SearchResult& x = s == 0 ? a : c;
        if (x.outcome == exact::Outcome::kFound) {
          std::fprintf(stderr, "seed %d: a plan below the proven optimum\n", seed);
          return 1;
        }
        counts[s][on].nodes.push_back(static_cast<double>(x.nodes));
        counts[s][on].total += x.nodes;
        counts[s][on].unproven += x.outcome != exact::Outcome::kInfeasible;
      }
    }
    exact::aligned_inference = true;
  }
  std::printf("%d random instances of %d buffers (alignments 1-8, sizes 1-12), %d proven optimal by `exact` "
              "in 2 s and used; proof at optimum - 1, at most %lld nodes:\n\n",
              instances, buffers, used, static_cast<long long>(kCap));
  std::printf("| search | inference | total nodes | median | max | not proven |\n|---|---|---:|---:|---:|---:|\n");
  for (int s = 0; s < 2; ++s)
    for (int on = 0; on < 2; ++on) {
      const Count& k = counts[s][on];
      std::printf("| %s | %s | %lld | %.0f | %.0f | %d |\n", s == 0 ? "canonical" : "lowest-cell",
                  on ? "padded (aligned_stacks_fit)" : "unaligned", static_cast<long long>(k.total),
                  median(k.nodes), k.nodes.empty() ? 0.0 : *std::max_element(k.nodes.begin(), k.nodes.end()),
                  k.unproven);
    }
  return 0;
}

}  // namespace

int strategies(const std::vector<std::string>& sizes, const std::vector<std::string>& kinds, int first_seed,
               int last_seed, int64_t per_buffer, const std::vector<std::string>& orders,
               const std::vector<std::string>& searches) {
  constexpr int kSearches = 10;
  const char* names[kSearches] = {"canonical", "re-ranking", "cells, least slack", "cells, fewest branches",
                                  "cells, wells", "wells, restarts",
                                  "wells, restarts, unweighted", "cells, wells, no backjumping",
                                  "wells, restarts, no backjumping", "wells, root rotations"};
  std::vector<char> on(kSearches, 0);
  for (const std::string& k : searches) on.at(std::stoul(k)) = 1;
  std::printf("| kind | buffers | search | found | median nodes when found | nodes | alternatives skipped | CPU s |\n"
              "|---|---:|---|---:|---:|---:|---:|---:|\n");
  for (const std::string& kind : kinds)
    for (const std::string& size : sizes) {
      std::vector<double> nodes[kSearches];
      int found[kSearches] = {}, runs[kSearches] = {};
      int64_t all_nodes[kSearches] = {}, skipped[kSearches] = {};
      double cpu[kSearches] = {};
      for (int seed = first_seed; seed <= last_seed; ++seed) {
        const GenerateOptions g = generated(kind == "aligned1" ? "aligned" : kind, size, seed);
        Problem p = generate(g);
        if (kind == "aligned1")
          for (Buffer& b : p.buffers) b.alignment = 1;
        const exact::Instance in = *exact::prepare(p, int64_t{1} << 30, Deadline());
        for (const std::string& name : orders) {
          const bool random = name[0] == 'R', jittered = name[0] == 'J';
          const char* keys = random || jittered ? "" : name.c_str();
          const std::vector<int32_t> order = random     ? exact::random_order(in.n, std::stoull(name.substr(1)))
                                             : jittered ? exact::jittered_order(in, std::stoull(name.substr(1)))
                                                        : exact::preorder(in, keys);
          for (int k = 0; k < kSearches; ++k) {
            if (!on[k]) continue;
            const double c0 = cpu_seconds();
            const int64_t budget = per_buffer * g.buffers;
            exact::SearchResult r;
            // On a thread whose stack holds n levels, as in the solver (else a deep search stops).
            exact::run_deep(1, in.n + 2, [&] {
              exact::weigh_dead_ends = k != 6;
              exact::backjump_cells = k < 7 ? exact::Backjump::kAlways : exact::Backjump::kNever;
              exact::backjump_counts = {};
              r = k == 9 ? exact::rotate_root_cells(in, g.capacity, order, budget, Deadline())
                  : k == 5 || k == 6 || k == 8
                      ? exact::restart_cells(in, g.capacity, std::hash<std::string>{}(name), budget, Deadline())
                  : k < 2 ? exact::search(in, g.capacity, order, budget, Deadline(), k == 1 ? keys : "")
                        : exact::search_cells(in, g.capacity, order,
                                              k == 2   ? exact::CellChoice::kLeastSlack
                                              : k == 3 ? exact::CellChoice::kFewestBranches
                                                       : exact::CellChoice::kWells,
                                              budget, Deadline());
              skipped[k] += exact::backjump_counts.skipped;
            });
            all_nodes[k] += r.nodes;
            cpu[k] += cpu_seconds() - c0;
            ++runs[k];
            if (r.outcome == exact::Outcome::kFound) {
              if (!validate(p, r.offsets).ok) {
                std::fprintf(stderr, "invalid plan: %s n=%s seed %d\n", kind.c_str(), size.c_str(), seed);
                return 1;
              }
              ++found[k];
              nodes[k].push_back(static_cast<double>(r.nodes));
            }
          }
        }
      }
      for (int k = 0; k < kSearches; ++k) {
        if (!on[k]) continue;
        std::printf("| %s | %s | %s | %d/%d | ", kind.c_str(), size.c_str(), names[k], found[k], runs[k]);
        if (found[k] > 0) std::printf("%.0f", median(nodes[k]));
        std::printf(" | %lld | %lld | %.2f |\n", static_cast<long long>(all_nodes[k]),
                    static_cast<long long>(skipped[k]), cpu[k]);
      }
      std::fflush(stdout);
    }
  return 0;
}

int plan_order(const std::vector<std::string>& sizes, int first_seed, int last_seed, const std::string& kind) {
  std::printf("| kind | buffers | seeds | cells with 2+ candidates | plan's buffer first by rank (TAW) | "
              "first by top valuation |\n|---|---:|---|---:|---:|---:|\n");
  for (const std::string& size : sizes) {
    int64_t cells = 0, by_rank = 0, by_top = 0;
    for (int seed = first_seed; seed <= last_seed; ++seed) {
      const GenerateOptions g = generated(kind, size, seed);
      const Packing pk = generate_packing(g);
      const exact::Instance in = *exact::prepare(pk.problem, int64_t{1} << 30, Deadline());
      const std::vector<int32_t> order = exact::preorder(in, "TAW");
      std::vector<int32_t> rank(in.n);
      for (int32_t k = 0; k < in.n; ++k) rank[order[k]] = k;
      std::vector<int64_t> floor(in.sections, 0);
      std::vector<char> placed(in.n, 0);
      for (int32_t step = 0; step < in.n; ++step) {
        int32_t cell = -1;
        for (int32_t s = 0; s < in.sections; ++s)
          if (floor[s] < g.capacity && (cell < 0 || floor[s] < floor[cell])) cell = s;
        if (cell < 0) break;
        const int64_t h = floor[cell];
        std::vector<int32_t> cands;  // in rank order
        int32_t want = -1;
        for (int32_t i : order) {
          if (placed[i] || in.sec_lo[i] > cell || in.sec_hi[i] <= cell || h % in.align[i] != 0 ||
              h + in.size[i] > g.capacity)
            continue;
          if (*std::max_element(floor.begin() + in.sec_lo[i], floor.begin() + in.sec_hi[i]) != h) continue;
          cands.push_back(i);
          if (pk.offsets[i] == h) want = i;
        }
        if (want < 0) {
          std::fprintf(stderr, "%s %s seed %d: no plan buffer at a cell\n", kind.c_str(), size.c_str(), seed);
          return 1;
        }
        if (cands.size() >= 2) {
          ++cells;
          by_rank += cands[0] == want;
          exact::order_by_top_valuation(in, h, g.capacity, cands, 0);
          by_top += cands[0] == want;
        }
        placed[want] = 1;
        for (int32_t s = in.sec_lo[want]; s < in.sec_hi[want]; ++s) floor[s] = h + in.size[want];
      }
    }
    std::printf("| %s | %s | %d-%d | %lld | %lld | %lld |\n", kind.c_str(), size.c_str(), first_seed, last_seed,
                static_cast<long long>(cells), static_cast<long long>(by_rank), static_cast<long long>(by_top));
    std::fflush(stdout);
  }
  return 0;
}

// guided: the cell search over all wells (kWells, WAT) with the generator's plan tried first
// at its first K placements (aligned_cells.h, guide_plan), for each K: does it then find a
// packing within budget x n nodes? One line per seed: found (+) or not (.) per K.
int guided(const std::string& size, int first_seed, int last_seed, int64_t per_buffer,
           const std::vector<std::string>& ks, const std::string& kind) {
  std::printf("| seed |");
  for (const std::string& k : ks) std::printf(" K=%s |", k.c_str());
  std::printf("\n|---|");
  for (size_t k = 0; k < ks.size(); ++k) std::printf("---|");
  std::printf("\n");
  for (int seed = first_seed; seed <= last_seed; ++seed) {
    const GenerateOptions g = generated(kind, size, seed);
    const Packing pk = generate_packing(g);
    const exact::Instance in = *exact::prepare(pk.problem, int64_t{1} << 30, Deadline());
    const std::vector<int32_t> order = exact::preorder(in, "WAT");
    std::printf("| %d |", seed);
    for (const std::string& k : ks) {
      exact::SearchResult r;
      exact::run_deep(1, in.n + 2, [&] {
        exact::guide_plan = &pk.offsets;
        exact::guide_placements = std::stoll(k);
        r = exact::search_cells(in, g.capacity, order, exact::CellChoice::kWells, per_buffer * g.buffers, Deadline());
        exact::guide_plan = nullptr;
      });
      if (r.outcome == exact::Outcome::kFound && !validate(pk.problem, r.offsets).ok) return 1;
      std::printf(" %s %lld |", r.outcome == exact::Outcome::kFound ? "+" : ".", static_cast<long long>(r.nodes));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}

int setup(const std::vector<std::string>& sizes, int first, int last, const std::string& kind, int reps) {
  std::printf("| kind | buffers | seed | overlapping pairs | median set-up s |\n|---|---:|---:|---:|---:|\n");
  for (const std::string& size : sizes)
    for (int seed = first; seed <= last; ++seed) {
      const GenerateOptions g = generated(kind, size, seed);
      const Problem p = generate(g);
      std::vector<double> times;
      int64_t pairs = 0;
      for (int k = 0; k < reps; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::optional<exact::Instance> in = exact::prepare(p, int64_t{1} << 40, Deadline());
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (!in) return 1;
        pairs = static_cast<int64_t>(in->adj.size()) / 2;
      }
      std::printf("| %s | %s | %d | %lld | %.3f |\n", kind.c_str(), size.c_str(), seed, static_cast<long long>(pairs),
                  median(times));
      std::fflush(stdout);
    }
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "table";
  auto arg = [&](int k, const char* fallback) { return std::string(argc > k ? argv[k] : fallback); };
  if (mode == "table" && arg(9, "backjump") == "plain") exact::backjump_cells = exact::Backjump::kNever;
  if (mode == "table")
    return table(std::stod(arg(2, "10")), std::stoi(arg(3, "5")), std::stoi(arg(4, "2")),
                 split(arg(5, "400,800,1600,3200,6400")), split(arg(6, "tiling,pinwheel,aligned")),
                 arg(7, "cpu") == "cpu", std::stoi(arg(8, "1")));
  if (mode == "nodes") return nodes(std::stoi(arg(2, "200")), std::stoi(arg(3, "17")));
  // "A-B" (or "A"): the first and last seed.
  auto seed_range = [](const std::string& seeds) {
    const size_t dash = seeds.find('-');
    return std::pair(std::stoi(seeds.substr(0, dash)), std::stoi(dash == std::string::npos ? seeds : seeds.substr(dash + 1)));
  };
  if (mode == "plan_order") {
    const auto [first, last] = seed_range(arg(3, "100-106"));
    return plan_order(split(arg(2, "400,800")), first, last, arg(4, "aligned"));
  }
  if (mode == "strategies") {
    const auto [first, last] = seed_range(arg(4, "100-104"));
    return strategies(split(arg(2, "800,1600")), split(arg(3, "tiling,pinwheel,aligned,aligned1")), first, last,
                      std::stoll(arg(5, "4")), split(arg(6, "WAT,TAW,TWA,TWO")), split(arg(7, "0,1,2,3,4")));
  }
  if (mode == "guided") {
    const auto [first, last] = seed_range(arg(3, "100-109"));
    return guided(arg(2, "800"), first, last, std::stoll(arg(4, "8")), split(arg(5, "0,50,100,200,400")),
                  arg(6, "aligned"));
  }
  if (mode == "setup") {
    const auto [first, last] = seed_range(arg(3, "1-3"));
    return setup(split(arg(2, "5000,10000,20000,40000")), first, last, arg(4, "uniform"), std::stoi(arg(5, "3")));
  }
  std::fprintf(stderr, "usage: exact_scale_bench table|nodes|strategies|plan_order|guided|setup ... (see the source's header)\n");
  return 2;
}
