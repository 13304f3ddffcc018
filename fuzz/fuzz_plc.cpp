// idealloc PLC reader: any bytes read or raise InputError.
#include <sstream>

#include "fuzz_common.h"
#include "memplan/bounds.h"
#include "memplan/io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  if (size > fuzz::kMaxBytes) return 0;
  std::istringstream in(fuzz::text(data, size));
  try {
    compute_load(read_plc(in, "fuzz.plc"));
  } catch (const InputError&) {
  }
  return 0;
}
