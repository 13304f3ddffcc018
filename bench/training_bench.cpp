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
//   training_bench --walk first-fit-size,first-fit-area,... [--sizes ...] [--seeds 3]
// instead prints, per size and greedy solver, what the occupancy index does per query
// (PlacementEngine::collect_walk_stats: sets read, runs passed, floor upkeep, sets per insert,
// share of the placed pieces that reached the index)
// beside the pass's CPU time and three n log n references timed on the same instance in the
// same process (the independent validator on the pass's plan; a sort of the 2n lifetime
// endpoints; a lookup of each buffer's start among them, in the pass's order), then the
// growth exponents between consecutive sizes: whether a pass grows faster than n log n *on
// this machine*, where memory latency grows with the working set.
//   training_bench --memory first-fit-size,... [--sizes ...] [--seeds 3]
// instead prints where the occupancy index's bytes lie at the end of each pass
// (PlacementEngine::index_memory): per kind of set, the sets, runs, bytes and a histogram of
// runs per set.
// The default solvers: first-fit and best-fit in each greedy order (first-fit is
// first-fit-size, best-fit is best-fit-size), greedy (all 16), online-best-fit and auto.
#include <sys/resource.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

// The order named `name` (order_name), or std::end(kAllOrders).
const Order* order_named(const std::string& name) {
  return std::find_if(std::begin(kAllOrders), std::end(kAllOrders), [&](Order o) { return name == order_name(o); });
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
      const Order* order = order_named(name);
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

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// One greedy pass ("first-fit-ORDER" or "best-fit-ORDER") on the placement engine, with its
// index's counters and CPU time, and the two references' CPU times on the same instance.
struct WalkRun {
  WalkStats stats;
  IndexMemory memory;  // the index's at the pass's end
  double pass = 0, validate = 0, sort = 0, search = 0;
  bool ok = false;
};

WalkRun walk_run(const Problem& p, Order order, Fit fit) {
  WalkRun run;
  double t0 = cpu_now();
  PlacementEngine engine(p);
  engine.collect_walk_stats(&run.stats);
  const std::vector<int32_t> by = make_order(p, order);
  place_in_order(engine, by, fit);
  run.pass = cpu_now() - t0;
  run.memory = engine.index_memory();
  t0 = cpu_now();
  run.ok = validate(p, engine.offsets()).ok;
  run.validate = cpu_now() - t0;
  t0 = cpu_now();
  std::vector<int64_t> ends;
  ends.reserve(2 * p.buffers.size());
  for (const Buffer& b : p.buffers) ends.push_back(b.start), ends.push_back(b.end);
  std::sort(ends.begin(), ends.end());
  run.sort = cpu_now() - t0;
  // Random access: each buffer's start looked up in the sorted endpoints, in the pass's order
  // (binary searches over 2n keys: n log n, with a cache miss per probe once 2n keys outgrow
  // the caches, as the index's sets do).
  t0 = cpu_now();
  int64_t sum = 0;
  for (const int32_t i : by) sum += std::lower_bound(ends.begin(), ends.end(), p.buffers[i].start) - ends.begin();
  run.search = cpu_now() - t0;
  if (sum < 0) std::printf("?");  // keeps the searches
  return run;
}

int print_walk(const std::vector<std::string>& sizes, const std::vector<std::string>& algos, int seeds) {
  struct Row {
    double n, pass, validate, sort, search, per_query;
  };
  std::vector<std::vector<Row>> rows(algos.size());
  std::printf("the occupancy index's work per query on training traces (generate --kind training, seeds 1..%d), "
              "in-process, medians over seeds\n\n",
              seeds);
  std::printf("| buffers | solver | queries | sets / query | steps / query | floor steps / query | "
              "sets / insert | indexed %% | pass CPU s | validate CPU s | sort CPU s | search CPU s |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& size : sizes) {
    const std::vector<Problem> problems = training_instances(size, seeds);
    for (size_t a = 0; a < algos.size(); ++a) {
      const std::string& algo = algos[a];
      const bool first = algo.rfind("first-fit-", 0) == 0, best = algo.rfind("best-fit-", 0) == 0;
      const std::string name = algo.substr(first ? 10 : 9);
      const Order* order = order_named(name);
      if ((!first && !best) || order == std::end(kAllOrders)) {
        std::fprintf(stderr, "--walk takes first-fit-ORDER or best-fit-ORDER, not %s\n", algo.c_str());
        return 2;
      }
      std::vector<double> queries, sets, steps, floor_steps, per_insert, indexed, pass, val, sorted, searched, work;
      for (const Problem& p : problems) {
        const WalkRun r = walk_run(p, *order, first ? Fit::kFirst : Fit::kBest);
        if (!r.ok) {
          std::fprintf(stderr, "%s at %s: the validator rejected the plan\n", algo.c_str(), size.c_str());
          return 1;
        }
        const WalkStats& st = r.stats;
        const double q = double(std::max<int64_t>(st.queries, 1));
        queries.push_back(double(st.queries));
        sets.push_back(double(st.sources) / q);
        steps.push_back(double(st.steps) / q);
        floor_steps.push_back(double(st.floor_steps) / q);
        per_insert.push_back(double(st.set_inserts) / double(std::max<int64_t>(st.inserts, 1)));
        // Pieces that reached the index, of all placed (training traces: one piece a buffer);
        // below 100 where best-fit kept some in the free cells only (set_lookahead).
        indexed.push_back(100.0 * double(st.inserts) / double(std::max<size_t>(p.buffers.size(), 1)));
        work.push_back(double(st.sources + st.steps + st.floor_steps) / q);
        pass.push_back(r.pass);
        val.push_back(r.validate);
        sorted.push_back(r.sort);
        searched.push_back(r.search);
      }
      std::printf("| %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.1f | %.3f | %.3f | %.3f | %.3f |\n",
                  size.c_str(), algo.c_str(), median(queries), median(sets), median(steps), median(floor_steps),
                  median(per_insert), median(indexed), median(pass), median(val), median(sorted), median(searched));
      std::fflush(stdout);
      rows[a].push_back(
          {std::stod(size), median(pass), median(val), median(sorted), median(searched), median(work)});
    }
  }
  // Exponent e with cost ~ n^e between consecutive sizes (n log n is about n^1.08 from 100k to 1M).
  std::printf("\ngrowth exponents between consecutive sizes (cost ~ n^e; per query: sets + steps + floor steps)\n\n");
  std::printf("| solver | from | to | pass CPU | validate CPU | sort CPU | search CPU | work per query |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  auto e = [](double from, double to, double n0, double n1) {
    return from > 0 && to > 0 ? std::log(to / from) / std::log(n1 / n0) : 0.0;
  };
  for (size_t a = 0; a < algos.size(); ++a)
    for (size_t k = 0; k + 1 < rows[a].size(); ++k) {
      const Row &x = rows[a][k], &y = rows[a][k + 1];
      std::printf("| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", algos[a].c_str(), x.n, y.n,
                  e(x.pass, y.pass, x.n, y.n), e(x.validate, y.validate, x.n, y.n), e(x.sort, y.sort, x.n, y.n),
                  e(x.search, y.search, x.n, y.n), e(x.per_query, y.per_query, x.n, y.n));
    }
  return 0;
}

// --memory: where the index's bytes lie at the end of each pass, by kind of set.
int print_memory(const std::vector<std::string>& sizes, const std::vector<std::string>& algos, int seeds) {
  static const char* kKind[] = {"here", "below", "raw", "crossing here", "crossing all"};
  std::printf("the occupancy index's memory at the end of a pass on training traces (generate --kind training, "
              "seeds 1..%d), medians over seeds; heap MB = reserved bytes with glibc's chunk overhead plus the "
              "24-byte vector headers; sets by runs held: 1 | 2-3 | 4-15 | 16-63 | 64-255 | 256-1023 | 1024-4095 | "
              "4096+\n\n",
              seeds);
  std::printf("| buffers | solver | kind | headers | sets | runs | runs / set | used MB | reserved MB | heap MB | "
              "sets by runs held |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (const std::string& size : sizes) {
    const std::vector<Problem> problems = training_instances(size, seeds);
    for (const std::string& algo : algos) {
      const bool first = algo.rfind("first-fit-", 0) == 0, best = algo.rfind("best-fit-", 0) == 0;
      const Order* order = order_named(algo.substr(first ? 10 : 9));
      if ((!first && !best) || order == std::end(kAllOrders)) {
        std::fprintf(stderr, "--memory takes first-fit-ORDER or best-fit-ORDER, not %s\n", algo.c_str());
        return 2;
      }
      std::vector<IndexMemory> ms;
      for (const Problem& p : problems) ms.push_back(walk_run(p, *order, first ? Fit::kFirst : Fit::kBest).memory);
      auto med = [&](auto get) {
        std::vector<double> v;
        for (const IndexMemory& m : ms) v.push_back(double(get(m)));
        return median(v);
      };
      const double mb = 1.0 / (1 << 20);
      double total = 0;
      for (int k = 0; k < IndexMemory::kKinds; ++k) {
        const double heap = med([&](const IndexMemory& m) { return m.heap_bytes[k] + 24 * m.headers[k]; });
        total += heap;
        const double sets = med([&](const IndexMemory& m) { return m.sets[k]; });
        const double runs = med([&](const IndexMemory& m) { return m.entries[k]; });
        std::string hist;
        for (int b = 0; b < IndexMemory::kBuckets; ++b)
          hist += (b ? " | " : "") + std::to_string(int64_t(med([&](const IndexMemory& m) { return m.by_size[k][b]; })));
        std::printf("| %s | %s | %s | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %.1f | %s |\n", size.c_str(),
                    algo.c_str(), kKind[k], med([&](const IndexMemory& m) { return m.headers[k]; }), sets, runs,
                    runs / std::max(sets, 1.0), mb * med([&](const IndexMemory& m) { return m.used_bytes[k]; }),
                    mb * med([&](const IndexMemory& m) { return m.reserved_bytes[k]; }), mb * heap, hist.c_str());
      }
      const double other = med([](const IndexMemory& m) { return m.other_bytes; });
      std::printf("| %s | %s | other | | | | | | | %.1f | |\n", size.c_str(), algo.c_str(), mb * other);
      std::printf("| %s | %s | **total** | | | | | | | **%.1f** | |\n", size.c_str(), algo.c_str(),
                  mb * (total + other));
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
  std::vector<std::string> walk;   // --walk: greedy solvers whose index work to count
  std::vector<std::string> memory;  // --memory: greedy solvers whose index bytes to count
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
    else if (a == "--walk") walk = split(v);
    else if (a == "--memory") memory = split(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!holes.empty()) return print_holes(sizes, holes, seeds);
  if (!walk.empty()) return print_walk(sizes, walk, seeds);
  if (!memory.empty()) return print_memory(sizes, memory, seeds);
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
