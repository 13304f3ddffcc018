// memplan-mlir: the one seam between the MLIR pass and libmemplan.
//
// LLVM/MLIR is built without exceptions, libmemplan throws them. This header uses plain
// standard-library types only and its implementation (Bridge.cpp) is compiled with
// -fexceptions and catches everything, so no exception ever reaches MLIR code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memplan_mlir {

// One planned allocation: bytes, alignment (power of two) and the half-open lifetime
// [start, end) in the pass's operation numbering.
struct ArenaItem {
  std::string id;
  int64_t size = 0;
  int64_t alignment = 1;
  int64_t start = 0;
  int64_t end = 0;
};

struct ArenaRequest {
  std::vector<ArenaItem> items;
  std::string algo = "auto";
  double time_limit_seconds = 1.0;
  int64_t capacity = 0;  // 0: none
};

struct ArenaPlan {
  bool ok = false;
  std::string error;             // why no plan (unknown algo, capacity, invalid plan)
  std::vector<int64_t> offsets;  // offsets[i] belongs to items[i]
  int64_t peak = 0;              // arena bytes
  int64_t load = 0;              // lower bound: most bytes live at one instant
  std::string status;            // memplan's status word (optimal, feasible, ...)
};

// Solves with memplan and checks the plan with memplan's independent validator.
// Never throws.
ArenaPlan plan_arena(const ArenaRequest& request) noexcept;

}  // namespace memplan_mlir
