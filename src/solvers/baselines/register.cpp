// Registers every production-allocator baseline (see docs/baselines.md).
#include "solvers/baselines/baselines.h"
#include "solvers/families.h"

namespace memplan {

void register_baselines(std::vector<SolverInfo>& out) {
  baselines::register_tflite_gpu(out);
  baselines::register_tflite_cpu(out);
  baselines::register_tflite_micro(out);
  baselines::register_tvm(out);
  baselines::register_xla(out);
  baselines::register_somas(out);
  baselines::register_triton(out);
  baselines::register_onnxruntime(out);
  baselines::register_executorch(out);
  baselines::register_iree(out);
}

}  // namespace memplan
