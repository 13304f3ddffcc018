// memplan command-line tool: solve, validate, stats, list, generate.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "cli/bench_cmd.h"
#include "cli/load.h"
#include "memplan/solver.h"
#include "memplan/svg.h"
#include "memplan/validate.h"
#include "memplan/version.h"
#ifdef MEMPLAN_HAVE_ONNX
#include "memplan/graph.h"
#include "memplan/onnx.h"
#endif

using namespace memplan;

namespace {

constexpr int kExitOk = 0, kExitInvalid = 1, kExitBadInput = 2, kExitNoPlan = 3;

// --ignore-fixed-offsets: plan every buffer freely, e.g. idealloc's IREE sets, whose offset
// column holds IREE's own plan rather than constraints.
bool g_ignore_fixed_offsets = false;
// --dim, --input, --strict: how .onnx models are read.
ModelOptions g_model;

Loaded load_problem(const std::string& path, const std::string& lifetimes) {
  Loaded l = load_problem_as_given(path, lifetimes, g_model);
  if (g_ignore_fixed_offsets) {
    for (Buffer& b : l.problem.buffers) b.offset.reset();
    if (l.table)
      for (Buffer& b : l.table->problem.buffers) b.offset.reset();
  }
  return l;
}


// Model tensors may have any name; a CSV id cannot hold a comma or a line break.
void require_csv_ids(const Problem& p, const std::string& output) {
  for (const Buffer& b : p.buffers)
    if (b.id.find_first_of(",\n\r") != std::string::npos)
      throw InputError((output.empty() ? std::string("stdout") : output) + ": tensor '" + b.id +
                       "' has a comma or line break in its name, which CSV cannot hold; write JSON (-o FILE.json)");
}

std::string fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

// Shows elapsed time on stderr once a run passes one second, only on a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(std::string what) : what_(std::move(what)) {
    if (!isatty(2)) return;
    thread_ = std::thread([this] {
      std::unique_lock lock(mu_);
      const auto t0 = std::chrono::steady_clock::now();
      while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return done_; })) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < 1.0) continue;
        std::fprintf(stderr, "\r\033[K[memplan] %s: %.1f s %s", what_.c_str(), s, status_.c_str());
        shown_ = true;
      }
      if (shown_) std::fprintf(stderr, "\r\033[K");
    });
  }
  void status(const std::string& s) {
    std::lock_guard lock(mu_);
    status_ = s;
  }
  ~ProgressLine() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::string what_, status_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false, shown_ = false;
  std::thread thread_;
};

int cmd_solve(const std::string& input, const std::string& algo, std::optional<int64_t> capacity,
              double time_limit, uint64_t seed, int threads, int64_t iterations,
              const std::string& output, const std::string& lifetimes, bool validate_plan,
              const std::string& svg) {
  if (has_extension(output, ".plc")) {
    std::cerr << "memplan: error: " << output << ": cannot write PLC; use .csv or .json\n";
    return kExitBadInput;
  }
  Loaded l = load_problem(input, lifetimes);
  SolveOptions opt;
  opt.capacity = capacity;
  opt.time_limit_seconds = time_limit;
  opt.seed = seed;
  opt.threads = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  opt.iterations = iterations;
  opt.validate = validate_plan;  // --no-validate: status=unchecked, never optimal
  if (!find_solver(algo)) {
    std::cerr << "memplan: unknown algorithm '" << algo << "' (see 'memplan list')\n";
    return kExitBadInput;
  }
  const auto t0 = std::chrono::steady_clock::now();
  SolveResult r;
  {
    ProgressLine progress("solving with " + algo);
    opt.progress = [&progress](const std::string& s) { progress.status(s); };
    r = solve(l.problem, algo, opt);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int64_t load = compute_load(l.problem);
  std::ostringstream line;
  line << "algo=" << algo << " buffers=" << l.problem.buffers.size();
  bool valid = false;
  if (r.solution) {
    const Validation v = validate(l.problem, r.solution->offsets, capacity_of(l.problem, opt));
    valid = v.ok && v.peak == r.solution->peak;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.4f",
                  load > 0 ? static_cast<double>(r.solution->peak) / static_cast<double>(load) : 1.0);
    line << " peak=" << r.solution->peak << " load=" << load << " ratio=" << ratio;
    line << " time=" << fmt_seconds(secs) << " valid=" << (validate_plan ? (valid ? "yes" : "no") : "unchecked");
    if (validate_plan && !v.ok)
      for (const std::string& e : v.errors) std::cerr << "memplan: invalid plan: " << e << "\n";
  } else {
    line << " peak=none load=" << load << " ratio=none time=" << fmt_seconds(secs) << " valid=none";
  }
  line << " status=" << to_string(r.status) << " optimal=" << (r.status == Status::kOptimal ? "yes" : "no")
       << " lower_bound=" << r.lower_bound << " iterations=" << r.iterations;
  if (const auto cap = capacity_of(l.problem, opt)) line << " capacity=" << *cap;
  if (!r.detail.empty()) line << " " << r.detail;
  std::cout << line.str() << std::endl;
  if (r.status == Status::kInvalid) {
    std::cerr << "memplan: the plan failed the independent check (a bug): " << r.detail << "\n";
    return kExitInvalid;
  }
  if (!r.solution) {
    std::cerr << "memplan: "
              << (r.status == Status::kInfeasible ? "proven infeasible: no plan fits the capacity"
                                                  : "no plan found that fits (within the time limit)")
              << "\n";
    return kExitNoPlan;
  }
  if (validate_plan && !valid) return kExitInvalid;
  if (!output.empty()) {
    std::ostringstream out;
    if (has_extension(output, ".json")) {
      out << problem_to_json(l.problem, &r.solution->offsets,
                             {{"algo", algo}, {"status", to_string(r.status)}});
    } else if (l.table) {
      write_csv(out, *l.table, &r.solution->offsets);
    } else {
      require_csv_ids(l.problem, output);
      write_csv(out, l.problem, &r.solution->offsets);
    }
    write_file_atomic(output, out.str());
  }
  if (!svg.empty()) {
    SvgOptions so;
    so.title = input + ": " + algo + ", peak " + std::to_string(r.solution->peak);
    write_file_atomic(svg, plan_to_svg(l.problem, r.solution->offsets, load, so));
  }
  return kExitOk;
}

int cmd_validate(const std::string& input, const std::string& solution,
                 std::optional<int64_t> capacity, const std::string& lifetimes) {
  Loaded l = load_problem(input, lifetimes);
  std::vector<int64_t> offsets;
  if (has_extension(solution, ".json")) {
    offsets = read_json_solution_file(solution, l.problem);
  } else {
    offsets = read_solution_csv_file(solution, l.problem);
  }
  const Validation v = validate(l.problem, offsets, capacity);
  const int64_t load = compute_load(l.problem);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.4f", load > 0 ? double(v.peak) / double(load) : 1.0);
  std::cout << "valid=" << (v.ok ? "yes" : "no") << " buffers=" << l.problem.buffers.size()
            << " peak=" << v.peak << " load=" << load << " ratio=" << ratio << std::endl;
  for (const std::string& e : v.errors) std::cout << "error: " << e << "\n";
  return v.ok ? kExitOk : kExitInvalid;
}

int cmd_stats(const std::string& input, const std::string& lifetimes) {
  Loaded l = load_problem(input, lifetimes);
  const InstanceStats s = compute_stats(l.problem);
  std::cout << "buffers=" << s.buffers << "\n"
            << "time_span=[" << s.time_min << "," << s.time_max << ") distinct_times=" << s.distinct_times << "\n"
            << "size_min=" << s.size_min << " size_max=" << s.size_max << " size_ratio=" << s.size_ratio << "\n"
            << "total_size=" << s.total_size << "\n"
            << "load=" << s.load << "\n"
            << "max_live_buffers=" << s.max_live_buffers << "\n"
            << "overlapping_pairs=" << s.overlapping_pairs << " overlap_density=" << s.overlap_density << "\n"
            << "fixed=" << s.fixed << " aligned=" << s.aligned << " with_gaps=" << s.with_gaps << "\n";
  if (l.problem.capacity) std::cout << "capacity=" << *l.problem.capacity << "\n";
  return kExitOk;
}

#ifdef MEMPLAN_HAVE_ONNX
std::string mb(int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld bytes (%.2f MB)", static_cast<long long>(bytes), bytes / 1e6);
  return buf;
}

// `memplan onnx`: the model's buffers as CSV, and/or its summary.
int cmd_onnx(const std::string& input, int64_t alignment, bool weights, bool summary, const std::string& output) {
  OnnxImportOptions o = onnx_options(g_model);
  o.alignment = alignment;
  o.include_weights = weights;
  std::vector<std::string> warnings;
  o.warnings = &warnings;
  const Graph g = onnx_graph(input, o);
  print_warnings(warnings);
  const LoweredGraph lowered = lower_onnx(g, o);
  if (!output.empty() || !summary) {
    std::ostringstream out;
    if (has_extension(output, ".json")) {
      out << problem_to_json(lowered.problem, nullptr, {});
    } else {
      require_csv_ids(lowered.problem, output);
      write_csv(out, lowered.problem, nullptr);
    }
    if (output.empty()) std::cout << out.str();
    else write_file_atomic(output, out.str());
  }
  if (!summary) return kExitOk;
  SolveOptions opt;
  opt.threads = std::max(1u, std::thread::hardware_concurrency());
  const std::string algo = find_solver("auto") ? "auto" : "greedy";
  const SolveResult r = solve(lowered.problem, algo, opt);
  if (!r.solution) {
    std::cerr << "memplan: no plan found for " << input << "\n";
    return kExitNoPlan;
  }
  const GraphSummary s = summarize(lowered, r.solution->offsets);
  std::cout << "model: " << input << "\n"
            << "operators: " << g.ops.size() << ", tensors: " << g.tensors.size() << "\n"
            << "buffers: " << s.buffers << "\n"
            << "naive sum (no reuse): " << mb(s.naive_bytes) << "\n"
            << "graph-order LOAD: " << mb(s.load) << "\n"
            << "memplan peak (" << algo << "): " << mb(s.peak) << "\n"
            << "weights: " << mb(s.weight_bytes) << (weights ? " (planned)" : " (not planned)") << "\n";
  std::string at;
  if (s.peak_instant >= 0 && s.peak_instant < static_cast<int64_t>(g.ops.size()))
    at = " (operator '" + g.ops[s.peak_instant].name + "', " + g.ops[s.peak_instant].type + ")";
  std::cout << "largest live set, at step " << s.peak_instant << at << ":\n";
  for (const auto& [id, bytes] : s.live_at_peak) std::printf("  %12lld  %s\n", static_cast<long long>(bytes), id.c_str());
  return kExitOk;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"memplan: static memory planner for ML compilers (offsets for buffers with known lifetimes)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("memplan ") + memplan::version());
  std::string lifetimes = "half-open";
  auto add_lifetimes = [&](CLI::App* c) {
    c->add_option("--lifetimes", lifetimes, "CSV lifetime convention: half-open [lower,upper) or inclusive [lower,upper]")
        ->check(CLI::IsMember({"half-open", "inclusive"}));
    c->add_flag("--ignore-fixed-offsets", g_ignore_fixed_offsets,
                "treat an input 'offset' column as information, not as pre-placed buffers");
  };

  auto* solve_cmd = app.add_subcommand("solve", "plan offsets for a problem (CSV, JSON or PLC trace)");
  std::string input, output, algo = find_solver("auto") ? "auto" : "greedy";
  std::optional<int64_t> capacity;
  double time_limit = 10.0;
  uint64_t seed = 1;
  int threads = 0;
  int64_t iterations = 0;
  bool no_validate = false;
  solve_cmd->add_option("input", input, "problem file (.csv MiniMalloc format, .json, or .plc idealloc trace)")->required();
  solve_cmd->add_option("-a,--algo", algo, "algorithm (see 'memplan list')");
  solve_cmd->add_option("--capacity", capacity, "memory capacity in bytes: the plan must fit")->check(CLI::NonNegativeNumber);
  solve_cmd->add_option("--time-limit", time_limit, "seconds; the best plan so far is returned (0 = none)")->check(CLI::NonNegativeNumber);
  solve_cmd->add_option("--seed", seed, "seed for randomized algorithms");
  solve_cmd->add_option("--threads", threads, "worker threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  solve_cmd->add_option("--iterations", iterations, "iterations for iterative algorithms (0 = default)")->check(CLI::NonNegativeNumber);
  solve_cmd->add_option("-o,--output", output, "write the plan here (CSV, or JSON if it ends in .json)");
  solve_cmd->add_flag("--no-validate", no_validate, "skip the independent check of the plan");
  std::string svg;
  solve_cmd->add_option("--svg", svg, "also draw the plan as an SVG picture here");
  add_lifetimes(solve_cmd);
  add_model_options(solve_cmd, g_model);

  auto* validate_cmd = app.add_subcommand("validate", "check a plan against a problem");
  std::string solution;
  validate_cmd->add_option("input", input, "problem file")->required();
  validate_cmd->add_option("solution", solution, "plan file (CSV with id and offset columns, or JSON)")->required();
  validate_cmd->add_option("--capacity", capacity, "also check against this capacity");
  add_lifetimes(validate_cmd);

  auto* stats_cmd = app.add_subcommand("stats", "print instance statistics and the LOAD bound");
  stats_cmd->add_option("input", input, "problem file")->required();
  add_lifetimes(stats_cmd);

  auto* list_cmd = app.add_subcommand("list", "list algorithms and generator kinds");

  auto* gen_cmd = app.add_subcommand("generate", "write a seeded synthetic instance (MiniMalloc CSV)");
  GenerateOptions gen;
  gen_cmd->add_option("--kind", gen.kind, "dnn, uniform, tiling or streams");
  gen_cmd->add_option("--streams", gen.streams, "streams: number of parallel streams")->check(CLI::PositiveNumber);
  gen_cmd->add_option("-n,--buffers", gen.buffers, "number of buffers")->check(CLI::NonNegativeNumber);
  gen_cmd->add_option("--seed", gen.seed, "random seed");
  gen_cmd->add_option("--max-size", gen.max_size, "uniform: largest size")->check(CLI::PositiveNumber);
  gen_cmd->add_option("--horizon", gen.horizon, "uniform/tiling: time horizon")->check(CLI::NonNegativeNumber);
  gen_cmd->add_option("--max-length", gen.max_length, "uniform: longest lifetime")->check(CLI::NonNegativeNumber);
  gen_cmd->add_option("--capacity", gen.capacity, "tiling: width of the tiled memory (the optimum)")->check(CLI::PositiveNumber);
  gen_cmd->add_option("-o,--output", output, "output file (default: stdout)");

#ifdef MEMPLAN_HAVE_ONNX
  auto* onnx_cmd = app.add_subcommand("onnx", "turn an ONNX model into buffers (MiniMalloc CSV)");
  int64_t onnx_alignment = 1;
  bool onnx_weights = false, onnx_summary = false;
  onnx_cmd->add_option("model", input, "ONNX model file")->required();
  add_model_options(onnx_cmd, g_model);
  onnx_cmd->add_option("--alignment", onnx_alignment, "alignment of every buffer")->check(CLI::PositiveNumber);
  onnx_cmd->add_flag("--weights", onnx_weights, "include initializers and constants (live for the whole run)");
  onnx_cmd->add_flag("--summary", onnx_summary,
                     "print buffers, naive sum, LOAD, memplan's peak, weights and the largest live set at the peak");
  onnx_cmd->add_option("-o,--output", output, "output CSV (default: stdout, unless --summary)");
#endif
  BenchArgs bench_args;
  add_bench_commands(app, bench_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  try {
    if (*solve_cmd)
      return cmd_solve(input, algo, capacity, time_limit, seed, threads, iterations, output, lifetimes, !no_validate, svg);
    if (*validate_cmd) return cmd_validate(input, solution, capacity, lifetimes);
    if (*stats_cmd) return cmd_stats(input, lifetimes);
#ifdef MEMPLAN_HAVE_ONNX
    if (*onnx_cmd) return cmd_onnx(input, onnx_alignment, onnx_weights, onnx_summary, output);
#endif
    if (bench_args.bench->parsed() || bench_args.report->parsed()) return run_bench_command(bench_args);
    if (*list_cmd) {
      std::cout << "algorithms:\n";
      for (const SolverInfo& s : all_solvers()) std::printf("  %-28s %s\n", s.name.c_str(), s.description.c_str());
      std::cout << "generator kinds:\n";
      for (const auto& [k, d] : generator_kinds()) std::printf("  %-28s %s\n", k.c_str(), d.c_str());
      return kExitOk;
    }
    if (*gen_cmd) {
      const Problem p = generate(gen);
      std::ostringstream out;
      write_csv(out, p, nullptr);
      if (output.empty()) std::cout << out.str();
      else write_file_atomic(output, out.str());
      return kExitOk;
    }
  } catch (const InputError& e) {
    std::cerr << "memplan: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "memplan: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "memplan: error: " << e.what() << "\n";
    return kExitBadInput;
  }
  return kExitBadInput;
}
