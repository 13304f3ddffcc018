// `memplan bench` and `memplan report`: run solvers over inputs and write tables, charts
// and a self-contained HTML page.
#include "cli/bench_cmd.h"

#include <climits>

#include "cli/options.h"

#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/load.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/report.h"

namespace memplan {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Files and folders (every .csv, .json, .plc and .onnx problem below a folder). IREE's files use inclusive lifetimes and
// carry IREE's own plan in the offset column, which is dropped.
std::vector<BenchInput> load_inputs(const std::vector<std::string>& paths, const std::vector<std::string>& gens,
                                    const ModelOptions& model, bool lenient) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (std::filesystem::is_directory(p)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file() && (e.path().extension() == ".csv" || e.path().extension() == ".json" ||
                                    e.path().extension() == ".plc" || e.path().extension() == ".onnx"))
          found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  std::vector<BenchInput> out;
  for (const std::string& f : files) {
    const bool iree = f.find("/iree/") != std::string::npos && has_extension(f, ".csv");
    BenchInput in;
    in.problem = load_problem_as_given(f, iree ? "inclusive" : "half-open", model, lenient).problem;
    if (iree)
      for (Buffer& b : in.problem.buffers) b.offset.reset();
    std::string name = std::filesystem::path(f).stem().string();
    if (const auto dot = name.rfind('.'); dot != std::string::npos &&
                                          name.find_first_not_of("0123456789", dot + 1) == std::string::npos)
      name = name.substr(0, dot);  // "A.1048576" -> "A"
    in.name = name;
    out.push_back(std::move(in));
  }
  for (const std::string& g : gens) {
    const auto parts = [&] {
      std::vector<std::string> v;
      std::stringstream s(g);
      for (std::string x; std::getline(s, x, ':');) v.push_back(x);
      return v;
    }();
    if (parts.size() != 3) throw InputError("--generate '" + g + "': expected KIND:BUFFERS:SEED");
    GenerateOptions o;
    o.kind = parts[0];
    try {
      o.buffers = std::stoll(parts[1]);
      o.seed = std::stoull(parts[2]);
    } catch (const std::exception&) {
      throw InputError("--generate '" + g + "': BUFFERS and SEED must be integers");
    }
    out.push_back({g, generate(o)});
  }
  if (out.empty()) throw InputError("no inputs: give files, folders or --generate KIND:BUFFERS:SEED");
  return out;
}

std::vector<std::string> pick_solvers(const std::string& list, bool all_by_default) {
  if (!list.empty()) {
    std::vector<std::string> out = split_list(list);
    for (const std::string& s : out)
      if (!find_solver(s)) throw InputError("--algos: unknown algorithm '" + s + "' (see 'memplan list')");
    return out;
  }
  std::vector<std::string> out;
  if (all_by_default) {
    for (const SolverInfo& s : all_solvers()) out.push_back(s.name);
    return out;
  }
  for (const char* s : {"auto", "idealloc", "greedy", "first-fit", "best-fit", "tflite-gpu-greedy-by-size",
                        "xla-choose-best", "somas"})
    if (find_solver(s)) out.push_back(s);
  return out;
}

}  // namespace

void add_bench_commands(CLI::App& app, BenchArgs& a) {
  a.bench = app.add_subcommand("bench", "run solvers over inputs; write Markdown/CSV tables and SVG charts");
  a.report = app.add_subcommand("report", "run solvers over inputs; write one self-contained HTML report");
  for (CLI::App* c : {a.bench, a.report}) {
    c->add_option("inputs", a.inputs, "problem files or folders (every .csv, .json, .plc and .onnx below)");
    c->add_option("--algos", a.algos, "comma-separated algorithms (default: bench all, report a fast set)");
    c->add_option("--generate", a.generate, "generated input KIND:BUFFERS:SEED (repeatable)");
    c->add_option("--repeat", a.repeat, "runs per solver and input (time is the mean)")->check(integer_in<int>(1, INT_MAX, "an integer >= 1"));
    c->add_option("--time-limit", a.time_limit, "seconds per run (0 = no limit)")->check(seconds_option());
    c->add_option("--threads", a.threads, "threads per run")->check(integer_in<int>(1, INT_MAX, "an integer >= 1"));
    c->add_option("--seed", a.seed, "seed for randomized solvers");
    add_model_options(c, a.model);
    c->add_flag("--lenient", a.lenient, "ignore unknown JSON fields (with a warning) instead of failing");
  }
  a.bench->add_option("-o,--output", a.output, "output folder (bench.md, bench.csv, ratio.svg, time.svg)")->required();
  a.report->add_option("-o,--output", a.output, "output HTML file")->required();
}

int run_bench_command(const BenchArgs& a) {
  const bool is_report = a.report && a.report->parsed();
  const std::vector<BenchInput> inputs = load_inputs(a.inputs, a.generate, a.model, a.lenient);
  const std::vector<std::string> solvers = pick_solvers(a.algos, !is_report);
  SolveOptions opt;
  opt.time_limit_seconds = a.time_limit;
  opt.threads = a.threads;
  opt.seed = a.seed;
  const std::vector<BenchRow> rows = run_bench(inputs, solvers, opt, a.repeat);
  int errors = 0;
  for (const BenchRow& r : rows) errors += !r.error.empty();
  if (is_report) {
    write_file_atomic(a.output, report_html(inputs, rows));
    std::cout << "report written to " << a.output << " (" << rows.size() << " runs, " << errors << " errors)\n";
  } else {
    std::filesystem::create_directories(a.output);
    const std::string md = bench_markdown(rows);
    write_file_atomic(a.output + "/bench.md", md);
    write_file_atomic(a.output + "/bench.csv", bench_csv(rows));
    write_file_atomic(a.output + "/ratio.svg", ratio_chart_svg(rows));
    write_file_atomic(a.output + "/time.svg", time_chart_svg(rows));
    std::cout << md;
  }
  return errors ? 1 : 0;
}

}  // namespace memplan
