// memplan: seeded synthetic instances.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

struct GenerateOptions {
  std::string kind = "dnn";  // see generator_kinds()
  int64_t buffers = 1000;
  uint64_t seed = 1;
  int64_t max_size = 1 << 20;   // uniform: sizes in [1, max_size]
  int64_t horizon = 0;          // uniform: times in [0, horizon); 0 = buffers
  int64_t max_length = 0;       // uniform: lifetimes in [1, max_length]; 0 = horizon/20+1
  int64_t capacity = 1 << 20;   // tiling, pinwheel, aligned: width of the packed rectangle (= optimal peak)
  int64_t streams = 4;          // streams: number of parallel streams
};

// {name, one-line description} of every kind.
std::vector<std::pair<std::string, std::string>> generator_kinds();

// Throws std::invalid_argument for an unknown kind or bad option. Deterministic in seed.
Problem generate(const GenerateOptions& options);

// The perfect-packing kinds (tiling, pinwheel, aligned): the instance and the generator's own
// plan (one offset per buffer), whose peak is `capacity` = LOAD, the known optimum.
struct Packing {
  Problem problem;
  std::vector<int64_t> offsets;
};
bool is_packing_kind(const std::string& kind);
// Same instance as generate() for those kinds; throws std::invalid_argument for another kind.
Packing generate_packing(const GenerateOptions& options);

}  // namespace memplan
