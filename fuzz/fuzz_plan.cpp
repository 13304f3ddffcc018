// Plan reader + validate: the input is a problem CSV, a line "---", then a plan (CSV with id
// and offset columns). Whatever reads is validated without a crash, and a plan the checker
// accepts really has no two live buffers sharing a byte (checked here pairwise, without gaps).
#include <sstream>

#include "fuzz_common.h"
#include "memplan/io.h"
#include "memplan/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  if (size > fuzz::kMaxBytes) return 0;
  const std::string all = fuzz::text(data, size);
  const size_t cut = all.find("\n---\n");
  if (cut == std::string::npos) return 0;
  std::istringstream problem_in(all.substr(0, cut + 1)), plan_in(all.substr(cut + 5));
  try {
    const Problem p = read_csv(problem_in, "p.csv").problem;
    const std::vector<int64_t> offsets = read_solution_csv(plan_in, "plan.csv", p);
    const Validation v = validate(p, offsets);
    if (!v.ok || p.buffers.size() > 200) return 0;
    for (const Buffer& b : p.buffers)
      if (!b.gaps.empty() || !b.inplace_of.empty() || !b.group.empty() || b.from_top) return 0;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      for (size_t j = i + 1; j < p.buffers.size(); ++j) {
        const Buffer &a = p.buffers[i], &b = p.buffers[j];
        if (lifetimes_overlap(a, b) && offsets[i] < offsets[j] + b.size && offsets[j] < offsets[i] + a.size)
          fuzz::fail("validate accepted overlapping buffers");
      }
  } catch (const InputError&) {
  }
  return 0;
}
