// Internal: section inference's stacking test, shared by the exact search and its tests.
// In a section, the unplaced buffers live there are pairwise live together, so they stack
// disjointly, each at or above its release (lowest possible offset) and the base. Stacking in
// increasing release gives the lowest top (one machine with release dates, 1|r_j|Cmax), and
// that top is max(base + total, max over buffers i of release_i + the sizes released at or
// after release_i). The test: in every section, that top is at most the capacity.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace memplan::exact {

struct StackItem {
  int32_t lo, hi;  // sections [lo, hi)
  int64_t release, size;
};

// Direct: stacks every item in every one of its sections, O(sum of spans). `items` sorted by
// increasing release; `low` has at least s_hi entries (scratch).
bool stacks_fit_direct(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi,
                       int64_t base, int64_t cap, std::vector<int64_t>& low);

// The same answer in O(k log S + S): items taken in decreasing release add their size to
// their sections (range add on a max segment tree), and each is checked against the largest
// total released at or after it over its sections (range max). For long lifetimes (real
// models: hundreds of sections per buffer) this is what keeps a node cheap.
bool stacks_fit_tree(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                     int64_t cap, std::vector<int64_t>& tree);

// Picks one of the two by cost: direct while the sum of spans is small against k log S + S.
// `low` has at least s_hi entries; both vectors are scratch.
bool stacks_fit(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                int64_t cap, std::vector<int64_t>& low, std::vector<int64_t>& tree);

}  // namespace memplan::exact
