// ONNX front end through its public entry point: the bytes as a model file. Any bytes give
// a problem that passes the checks, or raise InputError (never another exception, never a
// crash).
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "fuzz_common.h"
#include "memplan/io.h"
#include "memplan/onnx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  if (size > fuzz::kMaxBytes) return 0;
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/memplan_fuzz_onnx_" + std::to_string(::getpid()) + ".onnx";
  }();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const Problem p = import_onnx(path);
    check_problem(p, "imported");  // what the front end returns obeys the model's rules
  } catch (const InputError&) {
  }
  return 0;
}
