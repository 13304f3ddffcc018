// Production-allocator baselines on every benchmark file: prints two Markdown tables,
// peak/LOAD and wall time per baseline (rows) and input (columns). Every plan is checked
// with memplan::validate; a failed check prints ERROR, a baseline that gave up (time limit
// or size guard) prints "-" and is listed below the tables with its reason.
//
// Usage (from the repository root): baselines_bench [--time-limit S] [--only SUBSTR]
//        [--inputs SUBSTR] [--root DIR]
//   --time-limit  per run (default 30 s); O(n^2)-and-worse baselines stop there.
//   --only        run only baselines whose name contains SUBSTR.
//   --inputs      run only inputs whose name contains SUBSTR.
//   --root        repository root holding benchmarks/ (default ".").
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace fs = std::filesystem;
using namespace memplan;

namespace {

struct Input {
  std::string name;
  std::string path;
  Lifetimes lifetimes;
};

std::vector<Input> inputs(const std::string& root) {
  std::vector<Input> out;
  auto add_dir = [&](const std::string& dir, const std::string& prefix, Lifetimes lt) {
    std::vector<Input> here;
    for (const auto& e : fs::directory_iterator(root + "/" + dir))
      if (e.path().extension() == ".csv")
        here.push_back({prefix + e.path().stem().string(), e.path().string(), lt});
    std::sort(here.begin(), here.end(), [](const Input& a, const Input& b) { return a.name < b.name; });
    out.insert(out.end(), here.begin(), here.end());
  };
  add_dir("benchmarks/minimalloc", "", Lifetimes::kHalfOpen);
  add_dir("benchmarks/idealloc/iree", "", Lifetimes::kInclusive);
  add_dir("benchmarks/idealloc/iopddl", "", Lifetimes::kHalfOpen);
  add_dir("benchmarks/idealloc/somas_tensors", "", Lifetimes::kHalfOpen);
  for (Input& in : out) {  // "A.1048576" -> "A"
    const auto dot = in.name.find(".1048576");
    if (dot != std::string::npos) in.name = in.name.substr(0, dot);
  }
  return out;
}

bool is_baseline(const std::string& n) {
  for (const char* p : {"tflite-", "tvm-", "xla-", "somas", "triton-", "onnxruntime-", "executorch-",
                        "iree-"})
    if (n.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  double limit = 30;
  std::string only, only_inputs, root = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--time-limit" && i + 1 < argc) limit = std::stod(argv[++i]);
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--inputs" && i + 1 < argc) only_inputs = argv[++i];
    else if (a == "--root" && i + 1 < argc) root = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--time-limit S] [--only SUBSTR] [--inputs SUBSTR] [--root DIR]\n", argv[0]);
      return 2;
    }
  }
  std::vector<Input> ins;
  for (const Input& in : inputs(root))
    if (only_inputs.empty() || in.name.find(only_inputs) != std::string::npos) ins.push_back(in);
  std::vector<std::string> algos;
  for (const SolverInfo& s : all_solvers())
    if (is_baseline(s.name) && (only.empty() || s.name.find(only) != std::string::npos))
      algos.push_back(s.name);

  std::vector<std::vector<std::string>> ratio(algos.size(), std::vector<std::string>(ins.size()));
  std::vector<std::vector<std::string>> secs(algos.size(), std::vector<std::string>(ins.size()));
  std::vector<std::string> notes;
  std::vector<int64_t> loads;
  for (size_t c = 0; c < ins.size(); ++c) {
    Problem p = read_csv_file(ins[c].path, ins[c].lifetimes).problem;
    for (Buffer& b : p.buffers) b.offset.reset();  // IREE's own plan is not an input
    const int64_t load = compute_load(p);
    loads.push_back(load);
    std::fprintf(stderr, "%s (%zu buffers)\n", ins[c].name.c_str(), p.buffers.size());
    for (size_t r = 0; r < algos.size(); ++r) {
      SolveOptions opt;
      opt.time_limit_seconds = limit;
      const auto t0 = std::chrono::steady_clock::now();
      const SolveResult res = solve(p, algos[r], opt);
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f", dt);
      secs[r][c] = buf;
      if (!res.solution) {
        ratio[r][c] = "-";
        notes.push_back(algos[r] + " on " + ins[c].name + ": " + res.detail);
      } else if (!validate(p, res.solution->offsets).ok) {
        ratio[r][c] = "ERROR";
      } else {
        std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(res.solution->peak) / load);
        ratio[r][c] = buf;
      }
      std::fprintf(stderr, "  %-36s %8s %8ss\n", algos[r].c_str(), ratio[r][c].c_str(), secs[r][c].c_str());
    }
  }
  auto table = [&](const char* title, const std::vector<std::vector<std::string>>& cells) {
    std::printf("\n### %s\n\n| baseline |", title);
    for (const Input& in : ins) std::printf(" %s |", in.name.c_str());
    std::printf("\n|---|");
    for (size_t c = 0; c < ins.size(); ++c) std::printf("---:|");
    std::printf("\n");
    for (size_t r = 0; r < algos.size(); ++r) {
      std::printf("| %s |", algos[r].c_str());
      for (size_t c = 0; c < ins.size(); ++c) std::printf(" %s |", cells[r][c].c_str());
      std::printf("\n");
    }
  };
  std::printf("Baselines: peak/LOAD and seconds per run (time limit %.0f s per run).\n", limit);
  table("peak / LOAD (ERROR = plan failed validation, - = gave up)", ratio);
  table("wall time (s)", secs);
  if (!notes.empty()) {
    std::printf("\nGave up:\n\n");
    for (const std::string& n : notes) std::printf("- %s\n", n.c_str());
  }
  return 0;
}
