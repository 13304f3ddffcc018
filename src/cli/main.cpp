// memplan command-line tool: solve, validate, stats, list, generate.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/explain.h"
#include "memplan/generate_graph.h"
#include "memplan/graph_io.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "cli/bench_cmd.h"
#include "cli/bound_cmd.h"
#include "cli/huge_pages.h"
#include "cli/load.h"
#include "cli/options.h"
#include "cli/spaces_cmd.h"
#include "cli/schedule_out.h"
#include "memplan/solver.h"
#include "memplan/streams.h"
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
// --lenient: unknown JSON fields are warnings, not errors.
bool g_lenient = false;

Loaded load_problem(const std::string& path, const std::string& lifetimes, const std::function<bool()>& stop = {}) {
  Loaded l = load_problem_as_given(path, lifetimes, g_model, g_lenient, stop);
  if (g_ignore_fixed_offsets) {
    for (Buffer& b : l.problem.buffers) b.offset.reset();
  }
  return l;
}


// Model tensors may have any name; a CSV id cannot hold a line break (commas and quotes are
// quoted, csv_fields.h).
void require_csv_ids(const Problem& p, const std::string& output) {
  for (const Buffer& b : p.buffers)
    if (b.id.find_first_of("\n\r") != std::string::npos)
      throw InputError((output.empty() ? std::string("stdout") : output) + ": tensor '" + b.id +
                       "' has a line break in its name, which CSV cannot hold; write JSON (-o FILE.json)");
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
              const std::string& svg, const std::string& order_out, const std::string& initial) {
  if (has_extension(output, ".plc")) {
    std::cerr << "memplan: error: " << output << ": cannot write PLC; use .csv or .json\n";
    return kExitBadInput;
  }
  // Exit 2 promises no output: refuse unwritable outputs before solving, and write all of
  // them at the end, all or nothing (write_files_atomic).
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"-o", output}, {"--svg", svg}, {"--order-out", order_out}, {"--transfers", spaces_args().transfers}};
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    for (size_t j = 0; j < i; ++j)
      if (outputs[j].second == outputs[i].second)
        throw InputError(outputs[i].second + ": named for both " + outputs[j].first + " and " + outputs[i].first);
    check_writable(outputs[i].second);
  }
  // A model's order is chosen within a fifth of the time limit; the plans get the rest.
  if (time_limit > 0) g_model.schedule_time_limit = std::min(10.0, 0.2 * time_limit);
  // The limit covers everything after parsing: a partial order's conflicts are derived
  // under it (its clock starts at the reader's first poll, when parsing ends), and the
  // solve gets what the derivation left.
  std::optional<Deadline> derive;
  Loaded l;
  try {
    l = load_problem(input, lifetimes, [&] {
      if (!derive) derive.emplace(time_limit);
      return derive->expired();
    });
  } catch (const DerivationStopped& e) {
    std::cout << "algo=" << algo << " peak=none valid=none status=" << to_string(Status::kNoPlan)
              << " optimal=no reason=time_limit_in_conflict_derivation" << std::endl;
    std::cerr << "memplan: " << input << ": " << e.what() << " (--time-limit " << time_limit
              << " s); no plan\n";
    return kExitNoPlan;
  }
  const double derived_seconds = derive ? derive->elapsed_seconds() : 0.0;
  if (!order_out.empty() && !l.graph) {
    std::cerr << "memplan: error: --order-out needs a model (.onnx or .jsonl graph) input\n";
    return kExitBadInput;
  }
  load_spaces(l, input);
  SolveOptions opt;
  opt.capacity = capacity;
  opt.time_limit_seconds = time_limit > 0 ? std::max(0.01, time_limit - derived_seconds) : time_limit;
  if (l.graph && time_limit > 0) opt.time_limit_seconds = std::max(0.01, time_limit - l.scheduled.seconds);
  opt.seed = seed;
  opt.threads = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  opt.iterations = iterations;
  opt.validate = validate_plan;  // --no-validate: status=unchecked, never optimal
  if (!find_solver(algo)) {
    std::cerr << "memplan: error: unknown algorithm '" << algo << "' (see 'memplan list')\n";
    return kExitBadInput;
  }
  if (!initial.empty()) {  // --initial: a valid plan of this problem, or exit 2 before solving
    if (l.graph) throw InputError(initial + ": --initial needs a problem file, not a model");
    auto offsets = std::make_shared<std::vector<int64_t>>(
        has_extension(initial, ".json") ? read_json_solution_file(initial, l.problem)
                                        : read_solution_csv_file(initial, l.problem));
    const Validation v = validate(l.problem, *offsets);
    if (!v.ok) throw InputError(initial + ": not a valid plan of " + input + ": " + v.errors.front());
    opt.initial = std::move(offsets);
    if (algo != "lns")  // SolveOptions::initial: only lns starts from it
      std::cerr << "memplan: warning: --initial is read by lns only; -a " << algo << " ignores it\n";
  }
  if (const int code = solve_spaces(l, input, algo, opt, output, svg); code >= 0) return code;
  const auto t0 = std::chrono::steady_clock::now();
  SolveResult r;
  std::optional<ScheduledPlan> scheduled;  // a model: planned on its order and on graph order
  {
    ProgressLine progress("solving with " + algo);
    opt.progress = [&progress](const std::string& s) { progress.status(s); };
    if (l.graph) {
      scheduled = solve_model(l, algo, opt);
      r = scheduled->result;
    } else {
      r = solve(l.problem, algo, opt);
    }
    // `progress` ends here, but opt goes on to explain_failure's solves below: a callback
    // left pointing at it was a use after scope (an aligned perfect packing that no search
    // finished at its capacity crashed the CLI with "Invalid argument" or an abort).
    opt.progress = nullptr;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int64_t load = compute_load(l.problem);
  std::ostringstream line;
  line << "algo=" << algo << " buffers=" << l.problem.buffers.size();
  bool valid = false;
  if (r.solution) {
    // solve() reports a plan as feasible or optimal only once the independent validator
    // passed it, on this problem (a model's lowered one) under this capacity; so the check
    // runs here only for a plan solve() did not check, and not at all under --no-validate,
    // whose plan is reported unchecked. (It ran every time: ~0.25 s of CPU at 1M buffers.)
    Validation v;
    if (validate_plan) {
      const bool checked = r.status == Status::kFeasible || r.status == Status::kOptimal;
      if (!checked) v = validate(l.problem, r.solution->offsets, capacity_of(l.problem, opt));
      valid = checked || (v.ok && v.peak == r.solution->peak);
    }
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.4f",
                  load > 0 ? static_cast<double>(r.solution->peak) / static_cast<double>(load) : 1.0);
    line << " peak=" << r.solution->peak << " load=" << load << " ratio=" << ratio;
    line << " time=" << fmt_seconds(secs) << " valid=" << (validate_plan ? (valid ? "yes" : "no") : "unchecked");
    if (validate_plan && !valid)
      for (const std::string& e : v.errors) std::cerr << "memplan: invalid plan: " << e << "\n";
  } else {
    line << " peak=none load=" << load << " ratio=none time=" << fmt_seconds(secs) << " valid=none";
  }
  line << " status=" << to_string(r.status) << " optimal=" << (r.status == Status::kOptimal ? "yes" : "no")
       << " lower_bound=" << r.lower_bound << " iterations=" << r.iterations;
  if (const auto cap = capacity_of(l.problem, opt)) line << " capacity=" << *cap;
  if (!r.detail.empty()) line << " " << r.detail;
  if (r.explanation) std::cerr << r.explanation->report(l.problem);  // explain= is in detail
  if (scheduled) line << schedule_fields(*scheduled);
  std::cout << line.str() << std::endl;
  if (r.status == Status::kInvalid) {
    std::cerr << "memplan: the plan failed the independent check (a bug): " << r.detail << "\n";
    return kExitInvalid;
  }
  if (!r.solution) {
    std::cerr << "memplan: "
              << (r.status == Status::kInfeasible && capacity_of(l.problem, opt) ? "proven infeasible: no plan fits the capacity"
                  : r.status == Status::kInfeasible ? "proven infeasible: the problem's own constraints contradict (see reason=)"
                  : capacity_of(l.problem, opt)   ? "no plan found that fits (within the time limit)"
                                                  : "no plan found within the time limit (raise --time-limit)")
              << "\n";
    return kExitNoPlan;
  }
  if (validate_plan && !valid) return kExitInvalid;
  std::vector<std::pair<std::string, std::string>> files;
  if (scheduled && !order_out.empty()) files.emplace_back(order_out, order_file_text(order_out, *l.graph, *scheduled));
  if (!output.empty() && has_extension(output, ".json")) {
    files.emplace_back(output, problem_to_json(l.problem, &r.solution->offsets,
                                               {{"algo", algo}, {"status", to_string(r.status)}}));
  } else if (!output.empty()) {
    std::ostringstream out;
    if (l.table) {
      write_csv(out, *l.table, l.problem, &r.solution->offsets);
    } else {
      require_csv_ids(l.problem, output);
      write_csv(out, l.problem, &r.solution->offsets);
    }
    files.emplace_back(output, std::move(out).str());
  }
  if (!svg.empty()) {
    SvgOptions so;
    so.title = input + ": " + algo + ", peak " + std::to_string(r.solution->peak);
    files.emplace_back(svg, plan_to_svg(l.problem, r.solution->offsets, load, so));
  }
  write_files_atomic(files);
  return kExitOk;
}

int cmd_validate(const std::string& input, const std::string& solution,
                 std::optional<int64_t> capacity, const std::string& lifetimes) {
  Loaded l = load_problem(input, lifetimes);
  auto offsets_for = [&](const Problem& p) {
    return has_extension(solution, ".json") ? read_json_solution_file(solution, p) : read_solution_csv_file(solution, p);
  };
  std::vector<int64_t> offsets;
  // A plan with memories or absences (solve --memories / --swap): their own checks.
  if (const int rc = validate_plan_file(l, input, solution, capacity, &offsets); rc >= 0) return rc;
  Validation v = validate(l.problem, offsets, capacity);
  // A model's plan holds for the order solve kept (`kept=`): its schedule's, or the graph
  // order when that plan's peak was lower. Checked in the schedule's order, then in graph
  // order; the line says which (a plan solve kept in graph order was reported overlapping).
  std::string order;
  if (l.graph) {
    order = " order=schedule";
    if (!v.ok) {
      Problem in_graph_order = lower(*l.graph, {}, l.lower).problem;
      std::vector<int64_t> graph_offsets = offsets_for(in_graph_order);
      Validation g = validate(in_graph_order, graph_offsets, capacity);
      if (g.ok) l.problem = std::move(in_graph_order), v = std::move(g), order = " order=graph";
    }
  }
  const int64_t load = compute_load(l.problem);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.4f", load > 0 ? double(v.peak) / double(load) : 1.0);
  std::cout << "valid=" << (v.ok ? "yes" : "no") << " buffers=" << l.problem.buffers.size()
            << " peak=" << v.peak << " load=" << load << " ratio=" << ratio << order << std::endl;
  for (const std::string& e : v.errors) std::cout << "error: " << e << "\n";
  return v.ok ? kExitOk : kExitInvalid;
}

int cmd_stats(const std::string& input, const std::string& lifetimes, double time_limit) {
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
  if (!l.problem.conflicts.empty() || l.problem.clock_dim > 0) {
    // A partial order (README "Parallel streams"): load above is the linear extension's.
    std::cout << "streams=" << l.problem.clock_dim << " explicit_conflicts=" << l.problem.conflicts.size();
    // The flow grows faster than n (~n^1.6 on generated 4-stream programs), so it is
    // bounded; stopped, it still gives a true antichain, reported as not the heaviest.
    const Deadline deadline(time_limit);
    if (const auto a = antichain_bound(l.problem, [&] { return deadline.expired(); }))
      std::cout << " antichain_bound=" << a->weight << " antichain_exact=" << (a->exact ? "yes" : "no");
    std::cout << "\n";
  }
  return kExitOk;
}

// `memplan schedule MODEL`: the execution order alone (no offsets): one line of LOADs, and
// the order written with -o (names per line, or JSON).
int cmd_schedule(const std::string& input, double time_limit, const std::string& order_out) {
  if (!order_out.empty()) check_writable(order_out);
  g_model.schedule_time_limit = time_limit;
  const Loaded l = load_problem(input, "half-open");
  if (l.model && !l.graph) {  // on several streams: a partial order, no single order to write
    std::cerr << "memplan: error: " << input << ": schedule orders one stream; the model runs on several "
              << "(--streams or stream annotations): plan them with 'memplan solve'\n";
    return kExitBadInput;
  }
  if (!l.graph) {
    std::cerr << "memplan: error: " << input << ": schedule needs a model (.onnx) or a graph file (.jsonl)\n";
    return kExitBadInput;
  }
  const ScheduleResult& r = l.scheduled;
  std::ostringstream line;
  line << "schedule=" << r.method << " operators=" << l.graph->ops.size() << " tensors=" << l.graph->tensors.size()
       << " load=" << r.load << " graph_order_load=" << r.graph_order_load
       << " proven_optimal=" << (r.proven_optimal ? "yes" : "no") << " lower_bound=" << r.lower_bound
       << " blocks=" << r.blocks << " largest_block=" << r.largest_block;
  for (const HeuristicLoad& h : r.heuristics) line << " " << h.name << "=" << h.load;
  if (!r.heuristics.empty()) line << " local_search=" << r.local_search_load;
  if (r.method == "exact") line << " exact_blocks=" << r.exact_blocks;
  if (r.fell_back) line << " fell_back=\"" << r.fell_back_reason << "\"";
  line << " time=" << fmt_seconds(r.seconds);
  std::cout << line.str() << std::endl;
  if (!order_out.empty()) {
    std::ostringstream out;
    if (has_extension(order_out, ".json")) write_order_json(out, *l.graph, r);
    else write_order_text(out, *l.graph, r.order);
    write_file_atomic(order_out, out.str());
  }
  return kExitOk;
}

#ifdef MEMPLAN_HAVE_ONNX
std::string mb(int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld bytes (%.2f MB)", static_cast<long long>(bytes), bytes / 1e6);
  return buf;
}

// `memplan onnx`: the model's buffers as CSV (lifetimes in the kept order), the order,
// and/or the summary. The order --schedule chose and the graph order are both planned, and
// the one whose plan has the lower peak is kept (schedule_plan.h).
int cmd_onnx(const std::string& input, int64_t alignment, bool weights, bool summary, const std::string& output,
             const std::string& order_out) {
  OnnxImportOptions o = onnx_options(g_model);
  o.alignment = alignment;
  o.include_weights = weights;
  std::vector<std::string> warnings;
  o.warnings = &warnings;
  Graph raw = onnx_graph(input, o);
  print_model_warnings(warnings, raw, input, weights);
  Graph g = onnx_sized(std::move(raw));
  ScheduleOptions so;
  so.mode = parse_schedule_mode(g_model.schedule);
  so.lower.include_weights = weights;
  so.lower.alignment = alignment;
  if (auto p = streams_problem(g, g_model, so.lower)) {  // several streams: the buffers as a partial order
    if (summary || !order_out.empty()) throw InputError("--summary and --order-out need one stream (no --streams)");
    std::ostringstream out;
    if (has_extension(output, ".json")) {
      out << problem_to_json(*p, nullptr, {});
    } else {
      require_csv_ids(*p, output);
      write_csv(out, *p, nullptr);
    }
    if (output.empty()) std::cout << out.str();
    else write_file_atomic(output, out.str());
    return kExitOk;
  }
  SolveOptions opt;
  opt.threads = std::max(1u, std::thread::hardware_concurrency());
  const std::string algo = find_solver("auto") ? "auto" : "greedy";
  const ScheduledPlan sp = plan_scheduled(g, so, algo, opt);
  const LoweredGraph& lowered = sp.lowered;
  std::vector<std::pair<std::string, std::string>> files;  // written all or nothing
  if (!output.empty() || (!summary && order_out.empty())) {
    std::ostringstream out;
    if (has_extension(output, ".json")) {
      out << problem_to_json(lowered.problem, nullptr, {});
    } else {
      require_csv_ids(lowered.problem, output);
      write_csv(out, lowered.problem, nullptr);
    }
    if (output.empty()) std::cout << out.str();
    else files.emplace_back(output, out.str());
  }
  if (!order_out.empty()) files.emplace_back(order_out, order_file_text(order_out, g, sp));
  write_files_atomic(files);
  if (!summary) return kExitOk;
  const SolveResult& r = sp.result;
  if (!r.solution) {
    std::cerr << "memplan: no plan found for " << input << "\n";
    return kExitNoPlan;
  }
  const GraphSummary s = summarize(lowered, r.solution->offsets);
  const ScheduleResult& sr = sp.schedule;
  const std::string kept = sp.kept_graph_order ? "graph" : sr.method;
  std::cout << "model: " << input << "\n"
            << "operators: " << g.ops.size() << ", tensors: " << g.tensors.size() << "\n"
            << "buffers: " << s.buffers << "\n"
            << "naive sum (no reuse): " << mb(s.naive_bytes) << "\n"
            << "graph-order LOAD: " << mb(sr.graph_order_load) << "\n"
            << "scheduled LOAD (" << sr.method << (sr.proven_optimal ? ", proven optimal" : "") << "): "
            << mb(sr.load) << "\n";
  if (sr.fell_back) std::cout << "exact fell back to memory on some blocks: " << sr.fell_back_reason << "\n";
  if (!sr.heuristics.empty()) {
    std::cout << "heuristic LOADs:";
    for (const HeuristicLoad& h : sr.heuristics) std::cout << " " << h.name << "=" << h.load;
    std::cout << "\n";
  }
  std::cout << "order kept: " << kept << " (peak " << sp.schedule_peak << " on the " << sr.method
            << " order, " << sp.graph_peak << " on the graph order; schedule " << fmt_seconds(sr.seconds)
            << " s)\n"
            << "LOAD of the kept order: " << mb(s.load) << "\n"
            << "memplan peak (" << algo << "): " << mb(s.peak) << "\n"
            << "weights: " << mb(s.weight_bytes) << (weights ? " (planned)" : " (not planned)") << "\n";
  std::string at;
  if (s.peak_instant >= 0 && s.peak_instant < static_cast<int64_t>(sp.order.size())) {
    const Operator& op = g.ops[sp.order[s.peak_instant]];
    at = " (operator '" + op.name + "', " + op.type + ")";
  }
  std::cout << "largest live set, at step " << s.peak_instant << at << ":\n";
  for (const auto& [id, bytes] : s.live_at_peak) std::printf("  %12lld  %s\n", static_cast<long long>(bytes), id.c_str());
  return kExitOk;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  memplan::use_huge_pages(argv);  // first: it may re-run the program
  CLI::App app{"memplan: static memory planner for ML compilers (offsets for buffers with known lifetimes)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("memplan ") + memplan::version());
  std::string lifetimes = "half-open";
  auto add_lifetimes = [&](CLI::App* c) {
    c->add_option("--lifetimes", lifetimes, "CSV lifetime convention: half-open [lower,upper) or inclusive [lower,upper]")
        ->check(CLI::IsMember({"half-open", "inclusive"}));
    c->add_flag("--ignore-fixed-offsets", g_ignore_fixed_offsets,
                "treat an input 'offset' column as information, not as pre-placed buffers");
    c->add_flag("--lenient", g_lenient, "ignore unknown JSON fields (with a warning) instead of failing");
  };

  auto* solve_cmd = app.add_subcommand("solve", "plan offsets for a problem (CSV, JSON or PLC trace)");
  std::string input, output, algo = find_solver("auto") ? "auto" : "greedy";
  std::optional<int64_t> capacity;
  double time_limit = 10.0;
  uint64_t seed = 1;
  int threads = 0;
  int64_t iterations = 0;
  bool no_validate = false;
  solve_cmd->add_option("input", input,
                        "problem file (.csv MiniMalloc format, .json, .plc idealloc trace), or a model (.onnx, "
                        ".jsonl memplan graph) planned in the order --schedule chooses")
      ->required();
  solve_cmd->add_option("-a,--algo", algo, "algorithm (see 'memplan list')");
  solve_cmd->add_option("--capacity", capacity, "memory capacity in bytes (or with a unit: 4MiB, 512KB): the plan must fit")
      ->transform(bytes_in(0, INT64_MAX, "a capacity in bytes, >= 0"));
  solve_cmd->add_option("--time-limit", time_limit,
                        "seconds, at most 1000000; the best plan so far is returned (0 = no limit)")
      ->check(seconds_option());
  solve_cmd->add_option("--seed", seed, "seed for randomized algorithms")
      ->check(integer_in<uint64_t>(0, UINT64_MAX, "an unsigned 64-bit integer"));
  solve_cmd->add_option("--threads", threads, "worker threads (0 = all cores)")
      ->check(integer_in<int>(0, INT_MAX, "a thread count, an integer >= 0 (0 = all cores)"));
  solve_cmd->add_option("--iterations", iterations, "iterations for iterative algorithms (0 = default)")
      ->check(integer_in<int64_t>(0, INT64_MAX, "an integer >= 0 (0 = the solver's default)"));
  solve_cmd->add_option("-o,--output", output, "write the plan here (CSV, or JSON if it ends in .json)");
  solve_cmd->add_flag("--no-validate", no_validate, "skip the independent check of the plan");
  std::string svg;
  solve_cmd->add_option("--svg", svg, "also draw the plan as an SVG picture here");
  add_lifetimes(solve_cmd);
  add_model_options(solve_cmd, g_model);
  add_spaces_options(solve_cmd);
  std::string order_out, initial;
  solve_cmd->add_option("--initial", initial,
                        "a plan of the input to start from (CSV or JSON; algorithms that improve a plan: lns)");
  solve_cmd->add_option("--order-out", order_out,
                        "a model: write the kept execution order here (names per line, or .json)");

  auto* schedule_cmd = app.add_subcommand(
      "schedule", "choose a model's execution order (a topological order that lowers LOAD); no offsets");
  std::string schedule_order_out;
  double schedule_time_limit = 10.0;
  schedule_cmd->add_option("model", input, "a memplan graph file (.jsonl, see 'generate --kind dag') or an ONNX model")
      ->required();
  add_model_options(schedule_cmd, g_model);
  schedule_cmd->add_option("--time-limit", schedule_time_limit, "seconds for choosing the order (0 = no limit)")
      ->check(seconds_option());
  schedule_cmd->add_option("--seed", g_model.schedule_seed, "seed of the local search")
      ->check(integer_in<uint64_t>(0, UINT64_MAX, "an unsigned 64-bit integer"));
  schedule_cmd->add_option("-o,--order-out", schedule_order_out,
                           "write the order here: operator names one per line, or JSON if it ends in .json");

  auto* validate_cmd = app.add_subcommand("validate", "check a plan against a problem");
  std::string solution;
  validate_cmd->add_option("input", input, "problem file")->required();
  validate_cmd->add_option("solution", solution, "plan file (CSV with id and offset columns, or JSON)")->required();
  validate_cmd->add_option("--capacity", capacity, "also check against this capacity (bytes, or with a unit: 4MiB)")
      ->transform(bytes_in(0, INT64_MAX, "a capacity in bytes, >= 0"));
  add_lifetimes(validate_cmd);
  add_model_options(validate_cmd, g_model);  // a model's plan: lowered as `solve` lowered it
  add_validate_spaces_options(validate_cmd);

  auto* stats_cmd = app.add_subcommand("stats", "print instance statistics and the LOAD bound");
  stats_cmd->add_option("input", input, "problem file")->required();
  add_lifetimes(stats_cmd);
  add_model_options(stats_cmd, g_model);
  double stats_time_limit = 10.0;
  stats_cmd->add_option("--time-limit", stats_time_limit,
                        "seconds for the antichain bound of a partial order (0 = no limit)")
      ->check(seconds_option());

  auto* list_cmd = app.add_subcommand("list", "list algorithms and generator kinds");

  auto* gen_cmd = app.add_subcommand(
      "generate", "write a seeded synthetic instance (MiniMalloc CSV; JSON when -o ends in .json), or a model graph (--kind dag, wired)");
  GenerateOptions gen;
  gen_cmd->add_option("--kind", gen.kind,
                      "dnn, uniform, training, tiling, pinwheel, aligned or streams (buffers, CSV); dag or wired (a memplan graph "
                      "file, .jsonl, of -n operators)")
      ->check(CLI::IsMember({"dnn", "uniform", "training", "tiling", "pinwheel", "aligned", "streams", "dag", "wired"}));
  gen_cmd->add_option("--streams", gen.streams, "streams: number of parallel streams")
      ->check(integer_in<int64_t>(1, 4096, "a stream count, an integer >= 1"));
  gen_cmd->add_option("-n,--buffers", gen.buffers, "number of buffers (dag, wired: operators)")
      ->check(integer_in<int64_t>(0, INT64_MAX, "a buffer count, an integer >= 0"));
  gen_cmd->add_option("--seed", gen.seed, "random seed")
      ->check(integer_in<uint64_t>(0, UINT64_MAX, "an unsigned 64-bit integer"));
  gen_cmd->add_option("--max-size", gen.max_size, "uniform: largest size")
      ->check(integer_in<int64_t>(1, INT64_MAX, "a size in bytes, an integer >= 1"));
  gen_cmd->add_option("--horizon", gen.horizon, "uniform/tiling/pinwheel/aligned: time horizon (0 = the default: uniform -n, packings 2^20)")
      ->check(integer_in<int64_t>(0, INT64_MAX, "an integer >= 0"));
  gen_cmd->add_option("--max-length", gen.max_length, "uniform: longest lifetime (0 = the default, horizon/20 + 1)")
      ->check(integer_in<int64_t>(0, INT64_MAX, "an integer >= 0"));
  gen_cmd->add_option("--capacity", gen.capacity, "tiling/pinwheel/aligned: width of the packed memory (the optimum; bytes, or with a unit: 1MiB)")
      ->transform(bytes_in(1, INT64_MAX, "a capacity in bytes, >= 1"));
  gen_cmd->add_option("-o,--output", output, "output file (default: stdout)");

#ifdef MEMPLAN_HAVE_ONNX
  auto* onnx_cmd = app.add_subcommand("onnx", "turn an ONNX model into buffers (MiniMalloc CSV)");
  int64_t onnx_alignment = 1;
  bool onnx_weights = false, onnx_summary = false;
  onnx_cmd->add_option("model", input, "ONNX model file")->required();
  add_model_options(onnx_cmd, g_model);
  onnx_cmd->add_option("--order-out", order_out,
                       "write the kept execution order here: operator names one per line, or JSON if it ends in .json");
  onnx_cmd->add_option("--alignment", onnx_alignment, "alignment of every buffer")->check(power_of_two_option());
  onnx_cmd->add_flag("--weights", onnx_weights, "include initializers and constants (live for the whole run)");
  onnx_cmd->add_flag("--summary", onnx_summary,
                     "print buffers, naive sum, LOAD, memplan's peak, weights and the largest live set at the peak");
  onnx_cmd->add_option("-o,--output", output, "output CSV (default: stdout, unless --summary)");
#endif
  ExplainArgs explain_args;
  add_explain_command(app, explain_args);
  BoundArgs bound_args;
  add_bound_command(app, bound_args);
  BenchArgs bench_args;
  add_bench_commands(app, bench_args);
  if (argc > 1 && argv[1][0] != '-') {  // CLI11 would say only "A subcommand is required"
    std::string names;
    bool known = false;
    for (const CLI::App* c : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || c->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + c->get_name();
    }
    if (!known) {
      std::cerr << "memplan: error: unknown command '" << argv[1] << "' (commands: " << names << ")\n";
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  try {
    if (*solve_cmd)
      return cmd_solve(input, algo, capacity, time_limit, seed, threads, iterations, output, lifetimes, !no_validate, svg,
                       order_out, initial);
    if (*explain_args.cmd) return run_explain(explain_args);
    if (*bound_args.cmd) return run_bound(bound_args);
    if (*validate_cmd) return cmd_validate(input, solution, capacity, lifetimes);
    if (*stats_cmd) return cmd_stats(input, lifetimes, stats_time_limit);
    if (*schedule_cmd) return cmd_schedule(input, schedule_time_limit, schedule_order_out);
#ifdef MEMPLAN_HAVE_ONNX
    if (*onnx_cmd) return cmd_onnx(input, onnx_alignment, onnx_weights, onnx_summary, output, order_out);
#endif
    if (bench_args.bench->parsed() || bench_args.report->parsed()) return run_bench_command(bench_args);
    if (*list_cmd) {
      std::cout << "algorithms:\n";
      for (const SolverInfo& s : all_solvers())
        std::printf("  %-28s %s%s\n", s.name.c_str(), s.description.c_str(),
                    s.supports.explicit_conflicts ? " [conflicts]" : "");
      std::cout << "generator kinds:\n";
      for (const auto& [k, d] : generator_kinds()) std::printf("  %-28s %s\n", k.c_str(), d.c_str());
      for (const auto& [k, d] : graph_generator_kinds()) std::printf("  %-28s %s\n", k.c_str(), d.c_str());
      return kExitOk;
    }
    if (*gen_cmd) {
      std::ostringstream out;
      bool graph_kind = false;
      for (const auto& kind : graph_generator_kinds()) graph_kind |= kind.first == gen.kind;
      // A graph read back by extension (.jsonl): under another name it was JSON Lines in a
      // file every command then read as CSV ("missing required column").
      if (graph_kind && !output.empty() && !has_extension(output, ".jsonl"))
        throw InputError("-o " + output + ": --kind " + gen.kind +
                         " writes a memplan graph (JSON Lines): name the file .jsonl, as solve and schedule read it");
      if (graph_kind) write_graph_jsonl(out, generate_graph(gen.kind, gen.buffers, gen.seed));
      else if (has_extension(output, ".json")) out << problem_to_json(generate(gen), nullptr);
      else write_csv(out, generate(gen), nullptr);
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
