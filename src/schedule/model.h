// The scheduler's view of a Graph: the lowering's memory model (graph.h) reduced to
// "families" (a base tensor and its views: one buffer) and per-operator lists, plus an
// incremental sweep that scores an order step by step with rollback.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "memplan/graph.h"

namespace memplan::sched {

// Compressed lists: items of row r are items[off[r] .. off[r+1]).
struct Csr {
  std::vector<int32_t> off{0};
  std::vector<int32_t> items;
  int32_t size(int32_t r) const { return off[r + 1] - off[r]; }
  const int32_t* begin(int32_t r) const { return items.data() + off[r]; }
  const int32_t* end(int32_t r) const { return items.data() + off[r + 1]; }
};

struct Model {
  int32_t n = 0;  // operators
  // Families (one per base tensor).
  std::vector<int64_t> bytes;   // bytes of its buffer; 0 when it has none
  std::vector<char> pinned;     // lives to the end (an output or weight member)
  std::vector<int32_t> uses;    // distinct operators reading a member
  int64_t initial_live = 0;     // families without producer, live from step 0
  int64_t initial_unused = 0;   // of those, the ones nobody reads (dead after step 0)
  // Per operator.
  Csr born;                     // families it produces (non-view outputs)
  Csr reads;                    // distinct families it reads
  Csr inplace;                  // families its outputs may take over when they die here
  std::vector<int64_t> alloc;   // bytes born
  std::vector<int64_t> scratch;
  Csr preds, succs;             // distinct operator edges
  std::vector<int32_t> gorder;  // graph_order(g)
  std::vector<int32_t> pos;     // position in gorder
};

// Throws InputError (naming the tensor) for an unknown size, like lower().
Model build_model(const Graph& g, const LowerOptions& options);

// The state after a prefix of an order: live bytes, uses left per family, and the peak of
// the steps run since the last mark(). run() scores one step; rollback() undoes to mark().
class Sweep {
 public:
  explicit Sweep(const Model& m);
  // Live bytes at `v`'s step if it ran next.
  int64_t mem(int32_t v) const;
  // Bytes that die after `v`'s step (its last reads), without in-place effects.
  int64_t freed(int32_t v) const;
  // In-place savings at `v`'s step if it ran next.
  int64_t savings(int32_t v) const;
  void run(int32_t v);
  void mark();
  void rollback();
  int64_t live() const { return live_; }
  int32_t step() const { return step_; }
  int64_t peak() const { return peak_; }   // since mark()
  int64_t area() const { return area_; }   // sum of step memories since mark()
  int32_t remaining(int32_t f) const { return remaining_[f]; }
  const Model& model() const { return m_; }

 private:
  bool dies_here(int32_t f) const;
  const Model& m_;
  std::vector<int32_t> remaining_;
  int64_t live_ = 0, peak_ = 0, area_ = 0;
  int32_t step_ = 0;
  struct Saved { int64_t live, peak, area; int32_t step; size_t log; };
  Saved saved_{};
  std::vector<int32_t> log_;  // families whose remaining count was decremented
  bool marked_ = false;
};

// Peak of the whole order from the initial state (n == 0: the initial live bytes).
int64_t score(const Model& m, const std::vector<int32_t>& order);

// Cut positions: p such that gorder[p] is comparable with every operator (note §7.2).
// Blocks are the maximal ranges between cuts; each cut is a block of its own. Returns the
// block boundaries b_0 = 0 < b_1 < ... < b_k = n (positions in gorder).
std::vector<int32_t> split_blocks(const Model& m);

// A sound lower bound on the live bytes at `v`'s step in every order.
int64_t step_lower_bound(const Model& m, int32_t v);

class Clock {
 public:
  explicit Clock(double limit_s) : limit_(limit_s), t0_(std::chrono::steady_clock::now()) {}
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  bool expired(double fraction = 1.0) const { return limit_ > 0 && elapsed() >= limit_ * fraction; }
  double limit() const { return limit_; }

 private:
  double limit_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace memplan::sched
