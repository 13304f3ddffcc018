// CSV reader: any bytes either read or raise InputError; what is read writes back and reads
// again to the same problem, and the bound and the checker run on it without trouble.
#include <sstream>

#include "fuzz_common.h"
#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  if (size > fuzz::kMaxBytes) return 0;
  std::istringstream in(fuzz::text(data, size));
  CsvTable t;
  try {
    t = read_csv(in, "fuzz.csv", size % 2 ? Lifetimes::kInclusive : Lifetimes::kHalfOpen);
  } catch (const InputError&) {
    return 0;
  }
  std::ostringstream out;
  write_csv(out, t, nullptr);
  std::istringstream again(out.str());
  try {
    // Written half-open (an 'end' column stays inclusive and says so), so read back as such.
    const CsvTable back = read_csv(again, "again.csv", Lifetimes::kHalfOpen);
    if (back.problem.buffers != t.problem.buffers) fuzz::fail("CSV write/read changed the buffers");
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    fuzz::fail("CSV written by memplan does not read back");
  }
  compute_load(t.problem);
  validate(t.problem, std::vector<int64_t>(t.problem.buffers.size(), 0));
  return 0;
}
