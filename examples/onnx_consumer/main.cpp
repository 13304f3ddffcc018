// Reads an ONNX model, plans its activations with memplan, checks the plan and prints a
// summary and one line per tensor. Usage: plan_onnx MODEL.onnx
#include <iostream>

#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/onnx.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "memplan/version.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: plan_onnx MODEL.onnx\n";
    return 2;
  }
  memplan::Problem problem;
  try {
    memplan::OnnxImportOptions import;
    import.alignment = 64;
    problem = memplan::import_onnx(argv[1], import);
  } catch (const memplan::InputError& e) {
    std::cerr << "plan_onnx: " << e.what() << "\n";
    return 2;
  }
  memplan::SolveOptions options;
  options.time_limit_seconds = 2.0;
  const memplan::SolveResult result = memplan::solve(problem, "greedy", options);
  if (!result.solution) return 3;
  const memplan::Validation check = memplan::validate(problem, result.solution->offsets);
  std::cout << "memplan " << memplan::version() << ": tensors=" << problem.buffers.size()
            << " peak=" << result.solution->peak << " load=" << memplan::compute_load(problem)
            << " valid=" << (check.ok ? "yes" : "no") << "\n";
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const memplan::Buffer& b = problem.buffers[i];
    std::cout << b.id << " [" << b.start << ", " << b.end << ") " << b.size << " bytes at "
              << result.solution->offsets[i] << "\n";
  }
  return check.ok ? 0 : 1;
}
