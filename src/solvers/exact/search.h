// Internal: the exact decision search ("is there a plan with peak <= C?") over canonical
// solutions, after Moffitt's MiniMalloc (ASPLOS'23, §4-5) as our research notes describe it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::exact {

// The problem prepared once for every probe: overlap lists, sections, fixed buffers.
struct Instance {
  int32_t n = 0;
  std::vector<int64_t> size, align, start, end;
  std::vector<bool> fixed;                  // pre-placed
  std::vector<int64_t> fixed_offset;
  std::vector<int32_t> adj_begin, adj;      // CSR: buffers whose lifetimes overlap
  std::vector<int32_t> sec_lo, sec_hi;      // sections spanned: [sec_lo, sec_hi)
  int32_t sections = 0;
  std::vector<int64_t> section_total;       // total size live in each section
  std::vector<std::vector<int32_t>> fixed_near;  // per buffer: overlapping fixed buffers
  int64_t granularity = 1;                  // every canonical peak is a multiple of it
  std::vector<int32_t> by_start;            // buffers sorted by start (then end)
};

// Builds the instance, or returns nullopt when the overlap lists would exceed
// `max_pairs` entries (the search then declines) or the deadline passes during setup.
std::optional<Instance> prepare(const Problem& p, int64_t max_pairs, const Deadline& deadline);

enum class Outcome { kFound, kInfeasible, kBudget };

// Identical movable buffers (same lifetime, size and alignment): for each buffer, the one
// before it in `order`, or -1. Searches place such a buffer only after its predecessor
// (any plan can swap identical buffers into that order).
std::vector<int32_t> twins(const Instance& in, const std::vector<int32_t>& order);

// Static preorder keys (MiniMalloc's letters): W = lifetime length, A = area, T = largest
// section total during the lifetime, Z = size, L = start. All descending except L.
std::vector<int32_t> preorder(const Instance& in, const std::string& keys);

// One depth-first search for a plan with peak <= capacity, visiting at most `node_budget`
// nodes. kInfeasible is a proof (the canonical space was exhausted); kBudget means unknown.
struct SearchResult {
  Outcome outcome = Outcome::kBudget;
  std::vector<int64_t> offsets;
  int64_t nodes = 0;
};
SearchResult search(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                    int64_t node_budget, const Deadline& deadline);

// The same decision by the lowest-cell search (cells.cpp): branches on what occupies the
// lowest free cell (section x offset) instead of which buffer comes next. Much stronger on
// tight instances; declines (kBudget, no nodes) when there are pre-placed buffers.
// `choice` picks the cell among the sections at the lowest floor (see cells.cpp).
enum class CellChoice { kLeastSlack, kFewestBranches };
SearchResult search_cells(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                          CellChoice choice, int64_t node_budget, const Deadline& deadline);

// Testing aid for soundness: the same search, but a buffer is a candidate only when its
// minimum offset equals `target[i]`, the offsets of a known canonical plan (every buffer at
// its minimum offset given the buffers below it; identical buffers' offsets ascending in
// preorder rank). Every pruning rule stays on, so kFound means none of them cuts the path
// to that plan, and anything else means a rule is unsound.
SearchResult search_following(const Instance& in, int64_t capacity,
                              const std::vector<int32_t>& order,
                              const std::vector<int64_t>& target, const Deadline& deadline);

}  // namespace memplan::exact
