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
  int64_t align = 1;  // a power of two: the item sits at a multiple of it
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

// stacks_fit's two choices, shared with first_unstackable: whether the tree pays (the sum
// of spans is large against k log S + S), and the compression of a wide range with few
// items (false: not worth it; else `packed` holds the items over compressed sections
// [0, ends.size() - 1), compressed section c standing for sections [ends[c], ends[c + 1])).
bool stacking_tree_pays(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi);
bool compress_sections(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, std::vector<int32_t>& ends,
                       std::vector<StackItem>& packed);

// The leftmost section of [s_lo, s_hi) whose items do not stack below cap (stacks_fit's
// test on that section alone: max(base + its total, max over its items i of release_i +
// its sizes released at or after release_i) > cap), or s_hi when every section's do (then
// and only then stacks_fit is true). The section a bisection with stacks_fit would narrow
// a failing range to (taking the left half whenever it fails), in one pass: the cell
// search's reason for a failed inference (cells.cpp). Needs base <= cap; `items` sorted by
// increasing release, within [s_lo, s_hi); `low` has at least s_hi entries (scratch).
int32_t first_unstackable(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                          int64_t cap, std::vector<int64_t>& low, std::vector<int64_t>& tree);

// The same test with alignment padding, for every alignment level A > 1 among the items
// (`items` sorted by increasing release, as above). The test above ignores padding: sound,
// but blind to the bytes an aligned buffer must skip. For a level A, the items aligned to A
// or more sit at multiples of A, so two of them in one section stand at least
// round_up(size, A) apart (the upper one starts at a multiple of A at or above the lower
// one's top), each at or above round_up(release, A) and round_up(base, A), and each ends
// with x + round_up(size, A) <= round_down(cap - size, A) + round_up(size, A). Those
// rounded items must therefore stack without alignment under the largest such top: the
// test above on them (a relaxation of the aligned problem, so sound; the items below A are
// left out). A level where rounding changes nothing is the test above on a subset, and is
// skipped. Returns false if some level cannot stack, or sections_fit_exactly fails. Scratch: `rounded`, `low`, `tree`.
bool aligned_stacks_fit(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                        int64_t cap, std::vector<StackItem>& rounded, std::vector<int64_t>& low,
                        std::vector<int64_t>& tree);

// Per section with 2-10 items of mixed alignments, whether its items stack below cap with
// their padding, exactly (section_fits; each section on its own is a relaxation, so sound),
// when the items' spans total at most 4,096 section entries (else true: not checked). Called
// by aligned_stacks_fit once its rounded levels pass.
bool sections_fit_exactly(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                          int64_t cap);

// Whether the items of one section (all pairwise live together; at most 20) stack disjointly
// at or above `base` and their releases, each at a multiple of its alignment, below cap:
// first a depth-first search over stacking orders that stops at the first order that fits,
// and if it has not decided within `expansions` states (default 2 x 2^k), a dynamic program
// over all 2^k subsets (the same answer). stacking.cpp says why both are exact.
bool section_fits(const std::vector<const StackItem*>& live, int64_t base, int64_t cap, int64_t expansions = -1);

// When a search calls aligned_stacks_fit (each search holds one gate). The padded test costs
// about a node's work, and where releases and sizes are already aligned it rarely refutes
// (generated `aligned` packings of 800 buffers, probes above LOAD: 4 % of calls, which made
// the search 3x slower in nodes per second than without it), while on small instances with
// unaligned sizes it halves the nodes of a proof. So it runs on every node while at least
// one call in kRate refutes (counted over the calls it ran, halved every kWindow of them so
// that a phase of the search that needs it is seen), and otherwise on one node in kSample,
// which keeps the count current. A rule on counts, not the clock: the same nodes and plan
// whatever the load.
struct PaddingGate {
  static constexpr int64_t kWarm = 64, kRate = 16, kSample = 16, kWindow = 1024;
  int64_t calls = 0, runs = 0, refuted = 0;
  bool open() {
    ++calls;
    return runs < kWarm || refuted * kRate >= runs || calls % kSample == 0;
  }
  void record(bool refutes) {
    ++runs, refuted += refutes;
    if (runs >= 2 * kWindow) runs /= 2, refuted /= 2;
  }
};

// Test hook: when set on a thread, the cell search checks its incremental section
// inference against the same test from scratch at every node, and its incremental parts and
// memo keys (section_parts.h) against a scan of the buffers, and throws std::logic_error
// on a difference.
inline thread_local bool check_inference = false;

// Test hook: when false on a thread, the cell search skips its well test (well_can_fill).
inline thread_local bool well_tiling = true;

// Test hook: when false on a thread, the searches skip aligned_stacks_fit (the node
// counts before and after it, in bench/exact_scale_bench.cpp).
inline thread_local bool aligned_inference = true;

// Whether a search runs the padded test at this node: only on aligned instances, with the
// test hook on and the search's gate open (which counts the call). A search that asks
// before it builds the items (the cell search) skips their sort when the gate is closed.
inline bool padded_test_due(PaddingGate& gate, bool aligned) {
  return aligned && aligned_inference && gate.open();
}

// aligned_stacks_fit once padded_test_due said yes, the gate recording whether it refuted.
inline bool recorded_aligned_stacks_fit(PaddingGate& gate, std::span<const StackItem> items, int32_t s_lo,
                                        int32_t s_hi, int64_t base, int64_t cap, std::vector<StackItem>& rounded,
                                        std::vector<int64_t>& low, std::vector<int64_t>& tree) {
  const bool fits = aligned_stacks_fit(items, s_lo, s_hi, base, cap, rounded, low, tree);
  gate.record(!fits);
  return fits;
}

// aligned_stacks_fit as a search calls it, after stacks_fit passed: when padded_test_due,
// recorded. False only when the padded test ran and refuted.
inline bool gated_aligned_stacks_fit(PaddingGate& gate, bool aligned, std::span<const StackItem> items,
                                     int32_t s_lo, int32_t s_hi, int64_t base, int64_t cap,
                                     std::vector<StackItem>& rounded, std::vector<int64_t>& low,
                                     std::vector<int64_t>& tree) {
  return !padded_test_due(gate, aligned) ||
         recorded_aligned_stacks_fit(gate, items, s_lo, s_hi, base, cap, rounded, low, tree);
}

}  // namespace memplan::exact
