// Several memories, swapping, explanations (research note memory-spaces-and-swap.md §8).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "files.h"
#include "memplan/bounds.h"
#include "memplan/constraints.h"
#include "memplan/explain.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "memplan/spaces_io.h"
#include "memplan/memories.h"
#include "memplan/swap.h"
#include "memplan/validate_spaces.h"
#include "testing.h"

namespace memplan {
namespace {

using testing::make_buffer;

Buffer use_buffer(std::string id, int64_t start, int64_t end, int64_t size, std::vector<int64_t> uses,
                  bool evictable) {
  Buffer b = make_buffer(std::move(id), start, end, size);
  b.uses = std::move(uses);
  b.evictable = evictable;
  return b;
}

SolveOptions quick(double seconds = 2.0) {
  SolveOptions o;
  o.time_limit_seconds = seconds;
  return o;
}

// The stretches between two consecutive uses of each evictable buffer: where the brute
// forces below may put an absence.
struct Idle {
  size_t b;
  int64_t u, v;
};
std::vector<Idle> idle_intervals(const Problem& p) {
  std::vector<Idle> idle;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].evictable)
      for (size_t k = 0; k + 1 < p.buffers[i].uses.size(); ++k)
        idle.push_back({i, p.buffers[i].uses[k], p.buffers[i].uses[k + 1]});
  return idle;
}

// Checks a swap result with the independent validator and the runtime simulation.
void expect_valid_swap(const Problem& p, const SwapResult& r, int64_t cap, const SwapOptions& so) {
  ASSERT_TRUE(r.solution.has_value()) << r.explain;
  const Validation v = validate_swaps(p, r.offsets, cap, r.evictions, r.transfers, so);
  if (!so.allow_stall) EXPECT_EQ(r.stall, 0) << "hidden copies never wait";
  EXPECT_TRUE(v.ok) << (v.errors.empty() ? "" : v.errors.front());
  EXPECT_LE(v.peak, cap);
  int64_t bytes = 0;
  for (const Eviction& e : r.evictions) bytes += 2 * p.buffers[e.buffer].size;
  EXPECT_EQ(r.bytes_moved, bytes);
  EXPECT_EQ(execute_swaps(p, r), "");
}

// ---- §8.1 / §8.2: one eviction fixes the peak; too slow copies cannot -----------------------

Problem example_81() {
  Problem p;
  p.buffers = {use_buffer("a", 0, 10, 4, {0, 9}, true), use_buffer("b", 2, 4, 4, {2, 3}, true),
               use_buffer("c", 5, 7, 4, {5, 6}, true)};
  return p;
}

TEST(Swap, SingleEvictionFixesThePeak) {
  const Problem p = example_81();
  SwapOptions so;
  so.bandwidth = 4;  // one step per copy
  const SwapResult r = plan_swaps(p, 6, "greedy", quick(), so);
  expect_valid_swap(p, r, 6, so);
  ASSERT_EQ(r.evictions.size(), 1u);
  EXPECT_EQ(r.evictions[0].buffer, 0u);
  EXPECT_EQ(r.evictions[0].lo, 2);  // minimal cover of the overloaded steps {2,3,5,6}
  EXPECT_EQ(r.evictions[0].hi, 7);
  EXPECT_EQ(r.bytes_moved, 8);
  EXPECT_EQ(r.solution->peak, 4);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_TRUE(r.transfers[0].out);
  EXPECT_EQ(r.transfers[0].start, 1);
  EXPECT_EQ(r.transfers[0].end, 2);
  EXPECT_FALSE(r.transfers[1].out);
  EXPECT_EQ(r.transfers[1].start, 7);
  EXPECT_EQ(r.transfers[1].end, 8);
  // Pinned mode: the eviction is the gap 2-7 of a.
  ASSERT_EQ(r.problem.buffers[0].gaps.size(), 1u);
  EXPECT_EQ(format_gaps(r.problem.buffers[0].gaps), "2-7");
}

// An in-place chain occupies one place (its largest live member): a [0,2) and b [1,4) over
// it are 4 bytes, not 8, at step 1. Counted apart, step 1 (10 > 6 with x evicted or not)
// was reported infeasible; merged, only step 3 is over (8 > 6) and evicting x fixes it. (b
// is evictable too, but its one idle step, 2, is not over.)
Problem inplace_over_swap() {
  Problem p;
  p.buffers = {use_buffer("a", 0, 2, 4, {0, 1}, false), use_buffer("b", 1, 4, 4, {1, 3}, true),
               use_buffer("x", 0, 10, 2, {0, 9}, true), use_buffer("y", 3, 4, 2, {3}, false)};
  p.buffers[1].inplace_of = "a";
  return p;
}

TEST(Swap, AnInPlaceChainCountsOnce) {
  const Problem p = inplace_over_swap();
  const SwapResult r = plan_swaps(p, 6, "greedy", quick(), SwapOptions{});
  expect_valid_swap(p, r, 6, SwapOptions{});
  ASSERT_EQ(r.evictions.size(), 1u) << r.explain;
  EXPECT_EQ(p.buffers[r.evictions[0].buffer].id, "x");
  // The load profile and the explanation count the chain once too.
  const LoadProfile lp = load_profile(p);
  EXPECT_EQ(*std::max_element(lp.load.begin(), lp.load.end()), 8);
  const Explanation e = explain(p, 6, "greedy", quick());
  EXPECT_EQ(e.worst_load, 8);
  EXPECT_EQ(e.worst_time, 3);
}

TEST(Swap, AnInPlaceMemberGoesAwayWhileItsChainMatesAreDead) {
  // b took a's place in place at step 1 and is read again at 7; c needs the room at 3-4.
  // b may be away over [2, 7) (a is dead there): the chain's absence.
  Problem p;
  p.buffers = {use_buffer("a", 0, 2, 8, {0, 1}, true), use_buffer("b", 1, 8, 8, {1, 7}, true),
               use_buffer("c", 3, 5, 8, {3, 4}, false)};
  p.buffers[1].inplace_of = "a";
  const SwapResult r = plan_swaps(p, 8, "greedy", quick(), SwapOptions{});
  expect_valid_swap(p, r, 8, SwapOptions{});
  ASSERT_EQ(r.evictions.size(), 1u) << r.explain;
  EXPECT_EQ(p.buffers[r.evictions[0].buffer].id, "b");
  EXPECT_LE(r.evictions[0].lo, 3);
  EXPECT_GE(r.evictions[0].hi, 5);
  // The chain's head may go too, back for the step where b takes its place in place: the
  // copy in lands at step 5, before a is read there and b written over it.
  Problem head;
  head.buffers = {use_buffer("a", 0, 6, 8, {0, 5}, true), use_buffer("b", 5, 8, 8, {5, 7}, false),
                  use_buffer("c", 2, 5, 8, {2, 4}, false)};  // a away over [2, 5)
  head.buffers[1].inplace_of = "a";
  const SwapResult h = plan_swaps(head, 8, "greedy", quick(), SwapOptions{});
  expect_valid_swap(head, h, 8, SwapOptions{});
  ASSERT_EQ(h.evictions.size(), 1u) << h.explain;
  EXPECT_EQ(head.buffers[h.evictions[0].buffer].id, "a");
  EXPECT_EQ(h.evictions[0].hi, 5);
  // Still a chain where both are live: a read at 0 and 5, b from 1 (a mate live over the
  // whole stretch): neither may go, and c (not evictable) with the chain is 16 > 8 at step
  // 3: proven infeasible (no proof was made where two chain members are live).
  p.buffers[0] = use_buffer("a", 0, 6, 8, {0, 5}, true);
  const SwapResult both = plan_swaps(p, 8, "greedy", quick(), SwapOptions{});
  EXPECT_FALSE(both.solution.has_value());
  EXPECT_EQ(both.status, Status::kInfeasible) << both.explain;
}

// The proof of infeasibility with in-place chains, against a brute force written from the
// rules (swap.h, README "Swapping"): every choice of absences (none, or any stretch between
// two consecutive uses of an evictable buffer, instantaneous copies), a chain member away
// only where no mate is live; the chains counted as inplace_merged counts them. A claimed
// infeasibility needs every choice to leave the merged LOAD above the capacity.
TEST(Swap, InfeasibleWithInPlaceChainsAgreesWithBruteForce) {
  std::mt19937_64 rng(29);
  int proofs = 0, plans = 0;
  for (int it = 0; it < 300; ++it) {
    Problem p;
    auto rnd = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)); };
    // Two chains of two (the second takes the first's place at the first's last use; half
    // the time the first stays live, unread, past it: the second may then be away only after
    // the first ends, a window the planner does not take) and one or two plain buffers, over
    // about 10 steps.
    for (int c = 0; c < 2; ++c) {
      const int64_t s = rnd(0, 3), handoff = s + rnd(1, 3), e = handoff + rnd(1, 4);
      const int64_t head_end = rng() % 2 ? handoff + 1 : rnd(handoff + 1, e);
      const std::string head = "h" + std::to_string(c);
      p.buffers.push_back(use_buffer(head, s, head_end, rnd(1, 4), {s, handoff}, rng() % 2 == 0));
      p.buffers.push_back(use_buffer("m" + std::to_string(c), handoff, e, rnd(1, 4), {handoff, e - 1}, rng() % 2 == 0));
      p.buffers.back().inplace_of = head;
      if (rng() % 2) {  // a read in the middle of the member's life
        const int64_t u = rnd(handoff, e - 1);
        auto& uses = p.buffers.back().uses;
        uses.push_back(u);
        std::sort(uses.begin(), uses.end());
        uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
      }
    }
    for (int k = 0, n = static_cast<int>(rnd(1, 2)); k < n; ++k) {
      const int64_t s = rnd(0, 6), e = s + rnd(1, 3);
      p.buffers.push_back(use_buffer("x" + std::to_string(k), s, e, rnd(1, 4), {s, e - 1}, rng() % 3 == 0));
    }
    Problem merged;
    merged.buffers = inplace_merged(p);
    const int64_t cap = compute_load(merged) - rnd(1, 3);
    if (cap <= 0) continue;
    // Brute force: the least merged LOAD over every valid choice of absences.
    const std::vector<Idle> idle = idle_intervals(p);
    auto mate_live = [&](size_t i, int64_t lo, int64_t hi) {
      const Buffer& b = p.buffers[i];
      for (const Buffer& o : p.buffers) {
        const bool mate = (!b.inplace_of.empty() && o.id == b.inplace_of) || o.inplace_of == b.id;
        if (mate && o.start < hi && lo < o.end) return true;
      }
      return false;
    };
    int64_t least = INT64_MAX;
    Problem q = p;
    auto rec = [&](auto&& self, size_t d) -> void {
      if (d == idle.size()) {
        Problem m;
        m.buffers = inplace_merged(q);
        least = std::min(least, compute_load(m));
        return;
      }
      self(self, d + 1);
      Buffer& b = q.buffers[idle[d].b];
      for (int64_t lo = idle[d].u + 1; lo < idle[d].v; ++lo)
        for (int64_t hi = lo + 1; hi <= idle[d].v; ++hi) {
          if (mate_live(idle[d].b, lo, hi)) continue;
          b.gaps.push_back({lo, hi, false, 0, 0});
          std::sort(b.gaps.begin(), b.gaps.end(), [](const Gap& x, const Gap& y) { return x.start < y.start; });
          self(self, d + 1);
          b.gaps.erase(std::find(b.gaps.begin(), b.gaps.end(), Gap{lo, hi, false, 0, 0}));
        }
    };
    rec(rec, 0);
    const SwapResult r = plan_swaps(p, cap, "exact", quick(5), SwapOptions{});
    if (r.status == Status::kInfeasible) {
      ++proofs;
      EXPECT_GT(least, cap) << "claimed infeasible, but absences bring the merged LOAD to " << least << " <= " << cap
                            << "\n" << r.explain;
    }
    if (r.solution) {
      ++plans;
      expect_valid_swap(p, r, cap, SwapOptions{});
    }
  }
  EXPECT_GE(proofs, 50);
  EXPECT_GE(plans, 10);
  std::printf("[ brute ] %d infeasibility proofs checked, %d plans valid\n", proofs, plans);
}

TEST(Swap, AbsencesWidenWhenTheOffsetsNeedIt) {
  // Chain a [0,2) <- b [1,4) (4 bytes), x [0,10) 2 bytes evictable, y [3,6) 2 bytes. Only
  // step 3 is over 6 (4 + 2 + 2); evicting x there fits the LOAD, but y must then sit where
  // x comes back at step 4 (a and b hold [0,4) at step 3): x must stay out over [3,6).
  Problem p = inplace_over_swap();
  p.buffers[3] = use_buffer("y", 3, 6, 2, {3, 5}, false);
  const SwapResult r = plan_swaps(p, 6, "greedy", quick(), SwapOptions{});
  expect_valid_swap(p, r, 6, SwapOptions{});
  ASSERT_EQ(r.evictions.size(), 1u) << r.explain;
  EXPECT_LE(r.evictions[0].lo, 3);
  EXPECT_GE(r.evictions[0].hi, 6);
}

TEST(Swap, InfeasibleOnlyWithAProof) {
  // a and b (4 bytes, read at 0 and 9) must both be away at step 2 (c: 8 bytes, capacity 8);
  // each copy out takes one step and must run in step 1. On one channel the greedy relief
  // gets stuck: that is no proof (the least load at step 2, both away, is 8), so the status
  // is no_plan, not infeasible. On two channels it fits.
  Problem p;
  p.buffers = {use_buffer("a", 0, 10, 4, {0, 9}, true), use_buffer("b", 0, 10, 4, {0, 9}, true),
               use_buffer("c", 2, 3, 8, {2}, false)};
  SwapOptions so;
  so.bandwidth = 4;
  const SwapResult one = plan_swaps(p, 8, "greedy", quick(), so);
  EXPECT_FALSE(one.solution.has_value());
  EXPECT_EQ(one.status, Status::kNoPlan) << one.explain;
  EXPECT_NE(one.explain.find("not proven"), std::string::npos) << one.explain;
  so.channels = 2;
  const SwapResult two = plan_swaps(p, 8, "greedy", quick(), so);
  expect_valid_swap(p, two, 8, so);
  EXPECT_EQ(two.evictions.size(), 2u);
  // One byte more of c: even both away, step 2 holds 9 > 8: proven.
  p.buffers[2].size = 9;
  const SwapResult proven = plan_swaps(p, 8, "greedy", quick(), so);
  EXPECT_EQ(proven.status, Status::kInfeasible) << proven.explain;
}

TEST(Swap, CopiesTooSlowIsInfeasibleWithExplanation) {
  const Problem p = example_81();
  SwapOptions so;
  so.bandwidth = 1;  // 4 steps per copy: the idle steps 1-8 are all spent copying
  const SwapResult r = plan_swaps(p, 6, "greedy", quick(), so);
  EXPECT_FALSE(r.solution.has_value());
  EXPECT_EQ(r.status, Status::kInfeasible);
  EXPECT_NE(r.explain.find("step 2 load 8 > 6"), std::string::npos) << r.explain;
  EXPECT_NE(r.explain.find("a (4, no feasible window here)"), std::string::npos) << r.explain;
  EXPECT_NE(r.explain.find("b (4, no feasible window here)"), std::string::npos) << r.explain;
  // Longer compute steps make the same copies fit: durations 4 from step 1 on.
  so.durations = {1, 4, 4, 4, 4, 4, 4, 4, 4, 1};
  const SwapResult r2 = plan_swaps(p, 6, "greedy", quick(), so);
  expect_valid_swap(p, r2, 6, so);
  EXPECT_EQ(r2.bytes_moved, 8);
}

// ---- §8.3: copy-out keeps the buffer present; minimal cover; copy channels ----------------

Problem example_83(bool with_e) {
  Problem p;
  p.buffers = {use_buffer("a", 0, 10, 4, {0, 9}, true), use_buffer("d", 0, 10, 4, {0, 9}, true),
               use_buffer("b", 4, 6, 4, {4, 5}, false)};
  if (with_e) p.buffers.push_back(use_buffer("e", 4, 6, 4, {4, 5}, false));
  return p;
}

TEST(Swap, CopyOutKeepsTheBufferPresent) {
  SwapOptions so;
  so.bandwidth = 4;
  const SwapResult r = plan_swaps(example_83(false), 4, "greedy", quick(), so);
  EXPECT_EQ(r.status, Status::kInfeasible);
  EXPECT_NE(r.explain.find("step 0 load 8 > 4"), std::string::npos) << r.explain;
}

TEST(Swap, MinimalCoverNotTheWidestWindow) {
  const Problem p = example_83(false);
  SwapOptions so;
  so.bandwidth = 4;
  const SwapResult r = plan_swaps(p, 8, "greedy", quick(), so);
  expect_valid_swap(p, r, 8, so);
  ASSERT_EQ(r.evictions.size(), 1u);
  EXPECT_EQ(r.evictions[0].lo, 4);
  EXPECT_EQ(r.evictions[0].hi, 6);
  EXPECT_EQ(r.bytes_moved, 8);
}

TEST(Swap, OneChannelSlidesTheSecondWindowOutward) {
  const Problem p = example_83(true);
  SwapOptions so;
  so.bandwidth = 4;
  const SwapResult one = plan_swaps(p, 8, "greedy", quick(), so);
  expect_valid_swap(p, one, 8, so);
  std::map<std::string, std::pair<int64_t, int64_t>> w;
  for (const Eviction& e : one.evictions) w[p.buffers[e.buffer].id] = {e.lo, e.hi};
  EXPECT_EQ(w["a"], std::make_pair(int64_t{4}, int64_t{6}));
  EXPECT_EQ(w["d"], std::make_pair(int64_t{3}, int64_t{7}));
  EXPECT_EQ(one.bytes_moved, 16);
  so.channels = 2;
  const SwapResult two = plan_swaps(p, 8, "greedy", quick(), so);
  expect_valid_swap(p, two, 8, so);
  for (const Eviction& e : two.evictions) EXPECT_EQ(std::make_pair(e.lo, e.hi), std::make_pair(int64_t{4}, int64_t{6}));
  // The validator counts channels: the two-channel schedule breaks one channel.
  so.channels = 1;
  EXPECT_FALSE(validate_swaps(p, two.offsets, 8, two.evictions, two.transfers, so).ok);
}

// ---- §8.4: a benchmark at LOAD - 1 with every buffer evictable ----------------------------

TEST(Swap, BenchmarksAtLoadMinusOneAndNinetyPercent) {
  // Every buffer evictable (uses: first and last instant), copies of one step. A step where
  // every live buffer is being used (e.g. B's step 0) cannot be relieved: then the planner
  // must say so, naming a step whose load exceeds the capacity.
  int planned = 0;
  for (const char* f : {"A", "B", "C", "D"}) {
    Problem p = read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") + f + ".1048576.csv")).problem;
    for (Buffer& b : p.buffers) b.evictable = b.end - b.start > 2;
    const int64_t load = compute_load(p);
    for (const int64_t cap : {load - 1, load * 9 / 10}) {
      SwapOptions so;
      so.bandwidth = 1 << 30;
      // 3 s suffice on a quiet machine; instrumented (ASan, 5-10x slower) C ran out of it.
      const SwapResult r = plan_swaps(p, cap, "greedy", quick(static_cast<double>(testing::sanitizer_scaled(3, 30))), so);
      if (!r.solution) {
        // Either a step nothing can relieve, or LOAD brought within the capacity by the
        // evictions but no packing found (fragmentation rounds exhausted).
        const bool load_step = r.explain.find(" > " + std::to_string(cap)) != std::string::npos;
        const bool packing = r.explain.find("LOAD fits after") != std::string::npos;
        EXPECT_TRUE(load_step || packing) << f << " " << r.explain;
        if (packing) {
          const LoadProfile lp = load_profile(r.problem);
          EXPECT_LE(*std::max_element(lp.load.begin(), lp.load.end()), cap) << f;
          EXPECT_GE(r.evictions.size(), 1u);
        }
        continue;
      }
      ++planned;
      expect_valid_swap(p, r, cap, so);
    }
  }
  std::printf("[ swap ] %d of 8 benchmark runs fit\n", planned);
}

// Training steps (nested activations live until their backward use, `generate --kind
// training`) at 90 % and 70 % of LOAD: once the evictions bring LOAD within the capacity,
// first-fit still cannot pack the holes they leave, and the fragmentation rounds (a few
// evictions each, 8 rounds) gave no plan on every one of these; evicting down to a margin
// below the capacity (step 4b) gives a valid plan on each.
TEST(Swap, TrainingStepsFitAfterFragmentation) {
  for (const int64_t n : {1000, 2000, 3000}) {
    GenerateOptions g;
    g.kind = "training";
    g.buffers = n;
    g.seed = 1;
    Problem p = generate(g);
    for (Buffer& b : p.buffers) b.evictable = b.end - b.start >= 2;
    const int64_t load = compute_load(p);
    for (const int64_t percent : {90, 70}) {
      const int64_t cap = load * percent / 100;
      const SwapResult r = plan_swaps(p, cap, "first-fit", quick(static_cast<double>(testing::sanitizer_scaled(30, 300))), SwapOptions{});
      SCOPED_TRACE(std::to_string(n) + " buffers at " + std::to_string(percent) + " %");
      expect_valid_swap(p, r, cap, SwapOptions{});
    }
  }
}

// ---- Runtime: the arena executes the swaps; a wrong schedule is corruption -----------------

TEST(Swap, ArenaDetectsAWrongTransferSchedule) {
  const Problem p = example_81();
  SwapOptions so;
  so.bandwidth = 4;
  SwapResult r = plan_swaps(p, 6, "greedy", quick(), so);
  ASSERT_TRUE(r.solution);
  ASSERT_EQ(r.solution->offsets, (std::vector<int64_t>{0, 0, 0}));  // b and c reuse a's bytes
  EXPECT_EQ(execute_swaps(p, r), "");
  {  // copy in one step too late: a's use at 9 reads garbage
    SwapResult bad = r;
    for (Transfer& x : bad.transfers)
      if (!x.out) x.start += 2, x.end += 2;
    EXPECT_NE(execute_swaps(p, bad).find("buffer a"), std::string::npos);
    EXPECT_FALSE(validate_swaps(p, bad.solution->offsets, 6, bad.evictions, bad.transfers, so).ok);
  }
  {  // no copy out: nothing to copy back
    SwapResult bad = r;
    bad.transfers.erase(bad.transfers.begin());
    EXPECT_NE(execute_swaps(p, bad), "");
  }
  {  // copy out after b overwrote a's bytes: the host keeps b's pattern
    SwapResult bad = r;
    for (Transfer& x : bad.transfers)
      if (x.out) x.start = 2, x.end = 3;
    EXPECT_NE(execute_swaps(p, bad).find("buffer a"), std::string::npos);
  }
}

// ---- Brute force: greedy valid, exact mode minimal ----------------------------------------

// Every assignment of windows (or none) to the idle intervals, copies of one step each (unit
// durations, bandwidth = largest size), one channel; the fewest bytes for which the exact
// offset solver fits the capacity. Written from the rules in swap.h, not from the planner.
int64_t brute_min_bytes(const Problem& p, int64_t cap) {
  const std::vector<Idle> idle = idle_intervals(p);
  int64_t best = -1;
  std::vector<std::pair<int64_t, int64_t>> pick(idle.size(), {0, 0});
  auto rec = [&](auto&& self, size_t d, int64_t bytes) -> void {
    if (best >= 0 && bytes >= best) return;
    if (d == idle.size()) {
      std::map<int64_t, int> busy;
      Problem q = p;
      for (size_t k = 0; k < idle.size(); ++k) {
        if (pick[k].first == pick[k].second) continue;
        if (++busy[pick[k].first - 1] > 1 || ++busy[pick[k].second] > 1) return;
        q.buffers[idle[k].b].gaps.push_back({pick[k].first, pick[k].second, false, 0, 0});
      }
      for (Buffer& b : q.buffers)
        std::sort(b.gaps.begin(), b.gaps.end(), [](const Gap& x, const Gap& y) { return x.start < y.start; });
      if (testing::brute_force_load(q) > cap) return;  // no packing can fit
      SolveOptions o;
      o.capacity = cap;
      o.threads = 1;
      const SolveResult r = solve(q, "exact", o);
      if (r.solution && validate(q, r.solution->offsets, cap).ok) best = bytes;
      return;
    }
    pick[d] = {0, 0};
    self(self, d + 1, bytes);
    for (int64_t lo = idle[d].u + 2; lo < idle[d].v; ++lo)
      for (int64_t hi = lo + 1; hi + 1 <= idle[d].v; ++hi) {
        pick[d] = {lo, hi};
        self(self, d + 1, bytes + 2 * p.buffers[idle[d].b].size);
      }
    pick[d] = {0, 0};
  };
  rec(rec, 0, 0);
  return best;
}

TEST(Swap, BruteForceGreedyValidExactMinimal) {
  std::mt19937_64 rng(17);
  int compared = 0, greedy_worse = 0, with_stall = 0;
  for (int it = 0; it < 25; ++it) {
    // Two long evictable buffers (used at both ends) and short spikes in between.
    Problem p;
    int64_t max_size = 1;
    const int n = 3 + static_cast<int>(rng() % 2);
    for (int i = 0; i < n; ++i) {
      const bool longer = i < 2;
      const int64_t s = longer ? static_cast<int64_t>(rng() % 2) : 2 + static_cast<int64_t>(rng() % 4);
      const int64_t e = longer ? s + 7 + static_cast<int64_t>(rng() % 2) : s + 1 + static_cast<int64_t>(rng() % 2);
      const int64_t size = 1 + static_cast<int64_t>(rng() % 3);
      p.buffers.push_back(use_buffer("b" + std::to_string(i), s, e, size, {s, e - 1}, longer));
      max_size = std::max(max_size, size);
    }
    const int64_t load = compute_load(p);
    const int64_t cap = load - 1 - static_cast<int64_t>(rng() % 2);
    if (cap <= 0) continue;
    SwapOptions so;
    so.bandwidth = max_size;
    const int64_t want = brute_min_bytes(p, cap);
    SwapOptions ex = so;
    ex.exact = true;
    const SwapResult exact = plan_swaps(p, cap, "exact", quick(10), ex);
    const SwapResult greedy = plan_swaps(p, cap, "exact", quick(10), so);
    if (want < 0) {
      EXPECT_FALSE(exact.solution) << it;
      EXPECT_FALSE(greedy.solution) << it;
      continue;
    }
    ++compared;
    ASSERT_TRUE(exact.solution) << it;
    expect_valid_swap(p, exact, cap, so);
    EXPECT_EQ(exact.bytes_moved, want) << it;
    // Split mode (the buffer may come back elsewhere) has at least the pinned freedom.
    SwapOptions split = ex;
    split.split = true;
    const SwapResult relocated = plan_swaps(p, cap, "exact", quick(10), split);
    ASSERT_TRUE(relocated.solution) << it;
    expect_valid_swap(p, relocated, cap, split);
    EXPECT_LE(relocated.bytes_moved, want) << it;
    // Stall mode with slow copies (one byte per step): whatever it plans is valid, and the
    // stall is what the copies that do not fit their idle steps cost.
    SwapOptions slow = so;
    slow.bandwidth = 1;
    slow.allow_stall = true;
    const SwapResult stalled = plan_swaps(p, cap, "exact", quick(10), slow);
    if (stalled.solution) {
      expect_valid_swap(p, stalled, cap, slow);
      EXPECT_GE(stalled.stall, 0);
      ++with_stall;
    }
    if (greedy.solution) {
      expect_valid_swap(p, greedy, cap, so);
      EXPECT_GE(greedy.bytes_moved, want) << it;
      greedy_worse += greedy.bytes_moved > want;
    } else {
      ++greedy_worse;
    }
  }
  EXPECT_GE(compared, 8);
  EXPECT_GE(with_stall, compared / 2) << "stall mode plans where hidden copies do";
  std::printf("[ brute ] %d instances with a swap plan; greedy above the minimum on %d; %d stall-mode plans\n", compared,
              greedy_worse, with_stall);
}

// Where the greedy is not minimal: it takes the eviction covering the most bytes x steps (the
// big buffer) when a small one covering the short overload would do.
TEST(Swap, GreedyIsNotMinimalHereExactModeIs) {
  Problem p;
  p.buffers = {use_buffer("big", 0, 12, 8, {0, 11}, true), use_buffer("small", 0, 12, 2, {0, 11}, true),
               use_buffer("spike", 5, 7, 2, {5, 6}, false)};
  SwapOptions so;
  so.bandwidth = 8;  // one step per copy
  const SwapResult greedy = plan_swaps(p, 10, "exact", quick(), so);
  expect_valid_swap(p, greedy, 10, so);
  EXPECT_EQ(greedy.bytes_moved, 16);  // evicts big: 8 x 2 covered > 2 x 2
  so.exact = true;
  const SwapResult exact = plan_swaps(p, 10, "exact", quick(), so);
  expect_valid_swap(p, exact, 10, so);
  EXPECT_EQ(exact.bytes_moved, 4);
  EXPECT_EQ(brute_min_bytes(p, 10), 4);
}

// ---- §8.5: memory spaces ----------------------------------------------------------------

Problem example_85(int64_t acc_p, int64_t acc_q) {
  Problem p;
  p.memories = {{"sram", 4, 1}, {"dram", std::nullopt, 1}};
  p.buffers = {make_buffer("p", 0, 4, 4), make_buffer("q", 0, 4, 4)};
  p.buffers[0].accesses = acc_p;
  p.buffers[1].accesses = acc_q;
  for (Buffer& b : p.buffers) b.spaces = {"sram", "dram"};
  return p;
}

std::vector<std::string> names_of(const Problem& p, const SpacesResult& r) {
  std::vector<std::string> out;
  for (int m : r.space) out.push_back(p.memories[static_cast<size_t>(m)].name);
  return out;
}

TEST(Spaces, DensityDecidesTheFastMemory) {
  for (const auto& [ap, aq, want_p] : {std::tuple{10, 1, "sram"}, std::tuple{1, 10, "dram"}}) {
    const Problem p = example_85(ap, aq);
    const SpacesResult r = plan_spaces(p, "greedy", quick());
    ASSERT_TRUE(r.ok) << r.error;
    const auto names = names_of(p, r);
    EXPECT_EQ(names[0], want_p);
    EXPECT_NE(names[0], names[1]);
    std::vector<int64_t> peaks;
    EXPECT_TRUE(validate_spaces(p, names, r.offsets, &peaks).ok);
    EXPECT_EQ(peaks, (std::vector<int64_t>{4, 4}));
  }
}

TEST(Spaces, PinnedBuffersComeFirstAndAlignmentHolds) {
  Problem p = example_85(10, 1);
  p.buffers[1].spaces = {"sram"};  // q pinned: p, though denser, must give way
  p.memories[1].alignment = 64;
  p.buffers.push_back(make_buffer("r", 0, 4, 3));
  p.buffers.back().spaces = {"dram"};
  const SpacesResult r = plan_spaces(p, "greedy", quick());
  ASSERT_TRUE(r.ok) << r.error;
  const auto names = names_of(p, r);
  EXPECT_EQ(names, (std::vector<std::string>{"dram", "sram", "dram"}));
  EXPECT_TRUE(validate_spaces(p, names, r.offsets).ok);
  for (size_t i : {0u, 2u}) EXPECT_EQ(r.offsets[i] % 64, 0);
  // The checker catches a disallowed memory, a misaligned offset and an overfull memory.
  auto bad = names;
  bad[2] = "sram";
  EXPECT_FALSE(validate_spaces(p, bad, r.offsets).ok);
  auto off = r.offsets;
  off[2] += 1;
  EXPECT_FALSE(validate_spaces(p, names, off).ok);
  EXPECT_FALSE(validate_spaces(p, {"sram", "sram", "dram"}, {0, 0, 0}).ok);
}

TEST(Spaces, RandomPlansValidAndFragmentationRepaired) {
  // SRAM at half of LOAD: admission by LOAD can leave a memory that does not pack; the
  // planner then moves buffers on. Every plan must pass the independent checker.
  std::mt19937_64 rng(3);
  int moved = 0;
  for (int it = 0; it < 100; ++it) {
    testing::RandomSpec spec;
    spec.buffers = 12;
    spec.horizon = 10;
    spec.max_size = 8;
    Problem p = testing::random_problem(rng, spec);
    for (Buffer& b : p.buffers) b.offset.reset(), b.gaps.clear();
    p.memories = {{"sram", std::max<int64_t>(1, compute_load(p) / 2), 4}, {"dram", std::nullopt, 1}};
    for (Buffer& b : p.buffers) b.spaces = {"sram", "dram"};
    const SpacesResult r = plan_spaces(p, "first-fit", quick());
    ASSERT_TRUE(r.ok) << r.error;
    std::vector<int64_t> peaks;
    const Validation v = validate_spaces(p, names_of(p, r), r.offsets, &peaks);
    EXPECT_TRUE(v.ok) << (v.errors.empty() ? "" : v.errors.front());
    EXPECT_LE(peaks[0], *p.memories[0].capacity);
    moved += r.moves > 0;
  }
  EXPECT_GE(moved, 1);
  std::printf("[ spaces ] %d of 100 instances needed a fragmentation move\n", moved);
}

// ---- Explain ----------------------------------------------------------------------------

// Independent sweep: sorted starts and ends, two pointers; first instant of the maximum.
std::pair<int64_t, int64_t> sweep_peak(const Problem& p) {
  std::vector<std::pair<int64_t, int64_t>> s, e;
  for (const Buffer& b : p.buffers) s.push_back({b.start, b.size}), e.push_back({b.end, b.size});
  std::sort(s.begin(), s.end());
  std::sort(e.begin(), e.end());
  int64_t cur = 0, best = -1, at = 0;
  size_t j = 0;
  for (size_t i = 0; i < s.size();) {
    const int64_t t = s[i].first;
    while (j < e.size() && e[j].first <= t) cur -= e[j++].second;
    while (i < s.size() && s[i].first == t) cur += s[i++].second;
    if (cur > best) best = cur, at = t;
  }
  return {at, best};
}

TEST(Explain, EveryBundledBenchmarkAtLoadMinusOne) {
  const char* files[] = {"minimalloc/A.1048576.csv", "minimalloc/B.1048576.csv", "minimalloc/C.1048576.csv",
                         "minimalloc/D.1048576.csv", "minimalloc/E.1048576.csv", "minimalloc/F.1048576.csv",
                         "minimalloc/G.1048576.csv", "minimalloc/H.1048576.csv", "minimalloc/I.1048576.csv",
                         "minimalloc/J.1048576.csv", "minimalloc/K.1048576.csv", "minimalloc/input.12.csv",
                         "idealloc/iopddl/G_1.csv", "idealloc/iopddl/S_1.csv", "idealloc/iopddl/Y_1.csv",
                         "idealloc/iree/iree_mobilebert.csv", "idealloc/iree/iree_mobilenet.csv",
                         "idealloc/somas_tensors/bert_base.csv", "idealloc/somas_tensors/bert_large.csv",
                         "idealloc/somas_tensors/bert_nezha.csv", "idealloc/somas_tensors/pangu_13B.csv",
                         "idealloc/somas_tensors/pangu_2.6B.csv", "idealloc/somas_tensors/resnet50.csv",
                         "idealloc/somas_tensors/tiny_bert.csv"};
  for (const char* f : files) {
    const Problem p = read_csv_file(testing::source_path(std::string("benchmarks/") + f)).problem;
    // Plain variables, not a structured binding: a lambda below reads t (clang 14 cannot
    // capture a binding).
    const auto peak = sweep_peak(p);
    const auto t = peak.first;
    const auto load = peak.second;
    const Explanation e = explain(p, load - 1, "greedy", quick(1));
    EXPECT_TRUE(e.load_exceeds) << f;
    EXPECT_EQ(e.worst_time, t) << f;
    EXPECT_EQ(e.worst_load, load) << f;
    int64_t live = 0;
    for (size_t k = 0; k < e.live.size(); ++k) {
      const Buffer& b = p.buffers[e.live[k]];
      EXPECT_TRUE(b.start <= t && t < b.end) << f;
      if (k) EXPECT_GE(p.buffers[e.live[k - 1]].size, b.size) << f;
      live += b.size;
    }
    EXPECT_EQ(live, load) << f;
    ASSERT_FALSE(e.overloaded.empty());
    const bool covered = std::any_of(e.overloaded.begin(), e.overloaded.end(),
                                     [&](const auto& r) { return r.first <= t && t < r.second; });
    EXPECT_TRUE(covered) << f;
  }
}

TEST(Explain, InfeasibleSubsetWhenLoadFits) {
  // LOAD 3 fits capacity 3, but a pre-placed at byte 1 leaves no two adjacent bytes for b.
  // The deletion filter drops c and d (not needed) and keeps {b, a}; each of them is needed.
  Problem p;
  p.buffers = {make_buffer("a", 0, 4, 1), make_buffer("b", 0, 4, 2), make_buffer("c", 5, 6, 3),
               make_buffer("d", 4, 5, 2)};
  p.buffers[0].offset = 1;
  const int64_t cap = 3;
  ASSERT_EQ(compute_load(p), 3);
  const Explanation e = explain(p, cap, "exact", quick(5));
  EXPECT_FALSE(e.load_exceeds);
  ASSERT_TRUE(e.best_peak);
  EXPECT_EQ(*e.best_peak, 4);  // b above a
  EXPECT_TRUE(e.core_minimal);
  EXPECT_TRUE(e.core_proven);  // exact refuted the core itself
  std::vector<std::string> ids;
  for (size_t i : e.core) ids.push_back(p.buffers[i].id);
  EXPECT_EQ(ids, (std::vector<std::string>{"b", "a"}));
  const std::string rep = e.report(p);
  EXPECT_NE(rep.find("best peak without a capacity: 4"), std::string::npos) << rep;
  EXPECT_NE(rep.find("b (2), a (1)"), std::string::npos) << rep;
}

TEST(Explain, AHeuristicsFailureIsNoProof) {
  // first-fit finds no plan at 16, exact does (16 = LOAD): the subset first-fit leaves is
  // "unsolved", not a proven infeasible one (the filter started out proven and only an
  // unproven deletion cleared it; here every deletion lets the rest fit).
  Problem p;
  p.buffers = {make_buffer("b0", 3, 6, 4), make_buffer("b1", 2, 4, 8), make_buffer("b2", 1, 3, 8),
               make_buffer("b3", 4, 5, 5)};
  ASSERT_TRUE(solve(p, "exact", [] { SolveOptions o = quick(); o.capacity = 16; return o; }()).solution);
  const Explanation e = explain(p, 16, "first-fit", quick(2));
  EXPECT_FALSE(e.load_exceeds);
  EXPECT_EQ(e.core.size(), 4u);
  EXPECT_FALSE(e.core_proven);
  EXPECT_NE(e.summary(p).find(":unproven"), std::string::npos) << e.summary(p);
  // With exact at 15 (< LOAD) nothing to filter; at an infeasible capacity above LOAD the
  // core is proven (Explain.InfeasibleSubsetWhenLoadFits).
}

// ---- CLI: solve --swap / --memories, explain, bad input ------------------------------------

TEST(SpacesCli, SwapMemoriesExplainAndBadInput) {
  testing::TempDir dir;
  const std::string swap_csv = dir.file("swap.csv");
  testing::write_text(swap_csv, "id,lower,upper,size,uses,evictable\na,0,10,4,0 9,1\nb,2,4,4,,0\nc,5,7,4,,0\n");
  auto r = testing::run_cli("solve '" + swap_csv + "' -a greedy --capacity 6 --swap --bandwidth 4 -o '" +
                                dir.file("plan.csv") + "' --transfers '" + dir.file("tr.csv") + "'", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("evicted=1 bytes_moved=8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("valid=yes"), std::string::npos) << r.out;
  EXPECT_EQ(testing::read_text(dir.file("tr.csv")), "buffer,direction,start,end\na,out,1,2\na,in,7,8\n");
  EXPECT_NE(testing::read_text(dir.file("plan.csv")).find("2-7"), std::string::npos);
  // Without --swap it does not fit: the summary and stderr explain where.
  r = testing::run_cli("solve '" + swap_csv + "' -a greedy --capacity 6", dir);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("explain=t=2:load=8>6"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("live at t=2 (2 buffers, largest first): a (4), b (4)"), std::string::npos) << r.err;
  r = testing::run_cli("explain '" + swap_csv + "' --capacity 6", dir);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("overloaded instants (2 runs): [2,4) [5,7)"), std::string::npos) << r.out;
  r = testing::run_cli("explain '" + swap_csv + "' --capacity 6 --time-limit nan", dir);  // was "no limit"
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("--time-limit: 'nan' is not a number of seconds"), std::string::npos) << r.err;

  const std::string mem_csv = dir.file("mem.csv");
  testing::write_text(mem_csv, "id,lower,upper,size,space,accesses\np,0,4,4,sram|dram,10\nq,0,4,4,sram|dram,1\n");
  r = testing::run_cli("solve '" + mem_csv + "' -a greedy --memories sram=4,dram -o '" + dir.file("mplan.csv") + "'", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("peak_sram=4 peak_dram=4"), std::string::npos) << r.out;
  const std::string plan = testing::read_text(dir.file("mplan.csv"));
  // The input's columns stay; `space` now holds the chosen memory.
  EXPECT_NE(plan.find("id,lower,upper,size,space,accesses,offset\n"), std::string::npos) << plan;
  EXPECT_NE(plan.find("p,0,4,4,sram,10,0"), std::string::npos) << plan;
  EXPECT_NE(plan.find("q,0,4,4,dram,1,0"), std::string::npos) << plan;

  struct Bad {
    std::string csv, memories, want;
  };
  const Bad bad[] = {
      {"id,lower,upper,size,space\np,0,4,4,sram\nq,0,4,4,flash\n", "sram=4,dram", ":3: field 'space': unknown memory 'flash'"},
      {"id,lower,upper,size,space\np,0,4,4,|\n", "sram=4,dram", ":2: field 'space': buffer 'p' is allowed in no declared memory"},
      {"id,lower,upper,size\np,0,4,4\n", "sram=0,dram", "--memories: memory 'sram': field 'capacity': 0 must be > 0"},
      {"id,lower,upper,size,uses,evictable\np,0,4,4,,0\nq,3,4,4,,1\n", "", ":3: field 'evictable': buffer 'q' has a single use"},
      {"id,lower,upper,size,uses,evictable\np,0,4,4,0 7,1\n", "", ":2: field 'uses': 7 is outside the lifetime"},
      // Lifetimes in nanoseconds: swapping goes step by step (it failed to allocate: std::bad_alloc).
      {"id,lower,upper,size,evictable\na,0,1000000000000,4,1\nb,200000000000,400000000000,4,1\n", "",
       "bad.csv: buffer 'a': field 'upper': the lifetimes span 1000000000000 steps"},
  };
  for (const Bad& b : bad) {
    const std::string in = dir.file("bad.csv"), out = dir.file("bad_plan.csv");
    testing::write_text(in, b.csv);
    r = testing::run_cli("solve '" + in + "' -a greedy --capacity 8 --swap" +
                             (b.memories.empty() ? "" : " --memories " + b.memories) + " -o '" + out + "'", dir);
    EXPECT_EQ(r.code, 2) << b.want;
    EXPECT_NE(r.err.find(b.want), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(testing::exists(out));
  }
}


// ---- solve() itself explains (library, hence Python and C API users) -----------------------

TEST(Explain, SolveCarriesTheExplanation) {
  Problem p = example_81();  // LOAD 8 at steps 2-3 and 5-6
  SolveOptions o = quick();
  o.capacity = 6;
  SolveResult r = solve(p, "greedy", o);
  ASSERT_FALSE(r.solution);
  ASSERT_TRUE(r.explanation);
  EXPECT_TRUE(r.explanation->load_exceeds);
  EXPECT_EQ(r.explanation->worst_time, 2);
  EXPECT_EQ(r.explanation->worst_load, 8);
  EXPECT_EQ(r.explanation->overloaded.size(), 2u);
  EXPECT_NE(r.detail.find("explain=t=2:load=8>6"), std::string::npos) << r.detail;
  o.explain = false;
  EXPECT_FALSE(solve(p, "greedy", o).explanation);
  o.explain = true;
  o.capacity = 8;  // fits: nothing to explain
  r = solve(p, "greedy", o);
  ASSERT_TRUE(r.solution);
  EXPECT_FALSE(r.explanation);
  // LOAD 3 fits 3 but no plan does: y pre-placed at 1 leaves no 2 contiguous bytes for x.
  Problem q;
  q.buffers = {make_buffer("x", 0, 2, 2), make_buffer("y", 0, 2, 1)};
  q.buffers[1].offset = 1;
  o.capacity = 3;
  r = solve(q, "exact", o);
  ASSERT_FALSE(r.solution);
  ASSERT_TRUE(r.explanation);
  EXPECT_FALSE(r.explanation->load_exceeds);
  EXPECT_NE(r.detail.find("explain=core="), std::string::npos) << r.detail;
}

// ---- Split mode: the buffer comes back at another offset ---------------------------------

// a (size 4, used at 0 and 9) must leave during [3,6) for z (8 bytes, capacity 8); before,
// f2 pins [4,8) so a sits at 0; after, f1 pins [0,4) so a must sit at 4. Pinned mode cannot
// (same offset), split mode can: a#0 at 0, a#1 at 4.
Problem split_example() {
  Problem p;
  p.buffers = {use_buffer("a", 0, 10, 4, {0, 9}, true), use_buffer("z", 3, 6, 8, {3, 5}, false),
               make_buffer("f2", 0, 3, 4), make_buffer("f1", 6, 10, 4)};
  p.buffers[2].offset = 4;
  p.buffers[3].offset = 0;
  return p;
}

TEST(Swap, SplitModeComesBackElsewhere) {
  const Problem p = split_example();
  SwapOptions so;
  so.bandwidth = 4;  // one step per copy
  const SwapResult pinned = plan_swaps(p, 8, "exact", quick(), so);
  EXPECT_FALSE(pinned.solution) << "same offset before and after is impossible";
  so.split = true;
  const SwapResult r = plan_swaps(p, 8, "exact", quick(), so);
  expect_valid_swap(p, r, 8, so);
  ASSERT_EQ(r.evictions.size(), 1u);
  EXPECT_EQ(r.evictions[0].lo, 3);
  EXPECT_EQ(r.evictions[0].hi, 6);
  EXPECT_EQ(r.offsets[0], 0);
  EXPECT_EQ(r.evictions[0].back, 4);
  ASSERT_EQ(r.problem.buffers.size(), 5u);
  EXPECT_EQ(r.problem.buffers[0].id, "a#0");
  EXPECT_EQ(r.problem.buffers[1].id, "a#1");
  EXPECT_EQ(r.bytes_moved, 8);
  // The independent checker rebuilds the pieces: coming back at 0 collides with f1.
  std::vector<Eviction> wrong = r.evictions;
  wrong[0].back = 0;
  EXPECT_FALSE(validate_swaps(p, r.offsets, 8, wrong, r.transfers, so).ok);
  // A buffer with an in-place partner cannot move.
  Problem q = p;
  q.buffers.push_back(make_buffer("w", 9, 10, 4));
  q.buffers.back().inplace_of = "a";
  EXPECT_FALSE(splittable(q, 0));
}

// ---- Stall: copies that cannot be hidden delay the compute ---------------------------------

TEST(Swap, StallWhenCopiesCannotBeHidden) {
  // §8.2 (bandwidth 1, 4 time units per copy) with stalls allowed: a leaves over [2,7). The
  // out copy starts when step 0 ends (t=1) and ends at 5, so step 2 waits from 2 to 5 (3);
  // the in copy starts when step 6 ends (t=10) and ends at 14, so step 9 waits from 12 to 14
  // (2). Stall 5.
  const Problem p = example_81();
  SwapOptions so;
  so.bandwidth = 1;
  so.allow_stall = true;
  SwapResult r = plan_swaps(p, 6, "greedy", quick(), so);
  expect_valid_swap(p, r, 6, so);
  ASSERT_EQ(r.evictions.size(), 1u);
  EXPECT_EQ(r.evictions[0].lo, 2);
  EXPECT_EQ(r.evictions[0].hi, 7);
  EXPECT_EQ(r.stall, 5);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_EQ(std::make_pair(r.transfers[0].start, r.transfers[0].end), std::make_pair(int64_t{1}, int64_t{2}));
  EXPECT_EQ(std::make_pair(r.transfers[1].start, r.transfers[1].end), std::make_pair(int64_t{7}, int64_t{9}));
  // Step 1 lasting 3 units: the out copy (1..5) overlaps it, step 2 waits 5 - 4 = 1; the in
  // copy still waits 2. Stall 3.
  so.durations = {1, 3};
  r = plan_swaps(p, 6, "greedy", quick(), so);
  expect_valid_swap(p, r, 6, so);
  EXPECT_EQ(r.stall, 3);
  // Copies hidden by long steps: no stall.
  so.durations = {1, 4, 4, 4, 4, 4, 4, 4, 4, 1};
  r = plan_swaps(p, 6, "greedy", quick(), so);
  expect_valid_swap(p, r, 6, so);
  EXPECT_EQ(r.stall, 0);
}

TEST(Swap, StallCopiesSerializedOnTheChannel) {
  // §8.3 with e, bandwidth 1: a and d both leave over [4,6). One channel: a out 1-5, d out
  // 5-9, step 4 starts at 9 instead of 4 (wait 5); a in 11-15, d in 15-19, step 9 starts at
  // 19 instead of 14 (wait 5). Stall 10. Two channels: both outs 1-5 (wait 1), both ins 7-11
  // (wait 1). Stall 2.
  const Problem p = example_83(true);
  SwapOptions so;
  so.bandwidth = 1;
  so.allow_stall = true;
  SwapResult r = plan_swaps(p, 8, "greedy", quick(), so);
  expect_valid_swap(p, r, 8, so);
  EXPECT_EQ(r.evictions.size(), 2u);
  EXPECT_EQ(r.stall, 10);
  so.channels = 2;
  r = plan_swaps(p, 8, "greedy", quick(), so);
  expect_valid_swap(p, r, 8, so);
  EXPECT_EQ(r.stall, 2);
}

// ---- §8.4: every fragmentation round evicts strictly more bytes --------------------------

TEST(Swap, FragmentationRoundsEvictStrictlyMore) {
  int with_rounds = 0;
  for (const char* f : {"A", "B", "C", "D"}) {
    Problem p = read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") + f + ".1048576.csv")).problem;
    for (Buffer& b : p.buffers) b.evictable = b.end - b.start > 2;
    const int64_t cap = compute_load(p) - 1;
    SwapOptions so;
    so.bandwidth = 1 << 30;
    const SwapResult r = plan_swaps(p, cap, "greedy", quick(3), so);
    for (size_t k = 1; k < r.round_bytes.size(); ++k) EXPECT_LT(r.round_bytes[k - 1], r.round_bytes[k]) << f;
    with_rounds += r.round_bytes.size() > 1;
    if (r.solution) expect_valid_swap(p, r, cap, so);
    if (!r.round_bytes.empty()) EXPECT_GT(r.round_bytes.front(), 0) << f << ": LOAD - 1 needs an eviction";
  }
  std::printf("[ rounds ] %d of 4 needed a fragmentation round\n", with_rounds);
}

// ---- JSON: durations and swap read, written and read back ----------------------------------

TEST(SpacesJson, DurationsAndSwapRoundTrip) {
  testing::TempDir dir;
  Problem p = example_81();
  p.memories = {{"sram", 8, 4}, {"dram", std::nullopt, 1}};
  p.buffers[0].spaces = {"sram", "dram"};
  p.buffers[1].accesses = 7;
  SwapOptions so;
  so.bandwidth = 16;
  so.channels = 2;
  so.split = true;
  so.allow_stall = true;
  so.to = "dram";
  so.durations = {1, 3, 2};
  const std::string path = dir.file("p.json");
  testing::write_text(path, problem_to_json(p, nullptr, so));
  Problem q = read_json_file(path);
  SwapOptions back;
  bool on = false;
  read_json_spaces(path, q, &back, &on);
  EXPECT_TRUE(on);
  EXPECT_EQ(back.bandwidth, 16);
  EXPECT_EQ(back.channels, 2);
  EXPECT_TRUE(back.split);
  EXPECT_TRUE(back.allow_stall);
  EXPECT_EQ(back.to, "dram");
  EXPECT_EQ(back.durations, so.durations);
  ASSERT_EQ(q.memories.size(), 2u);
  EXPECT_EQ(q.memories[0].capacity, 8);
  EXPECT_EQ(q.memories[0].alignment, 4);
  EXPECT_FALSE(q.memories[1].capacity);
  EXPECT_EQ(q.buffers[0].spaces, p.buffers[0].spaces);
  EXPECT_EQ(q.buffers[0].uses, p.buffers[0].uses);
  EXPECT_TRUE(q.buffers[0].evictable);
  EXPECT_EQ(q.buffers[1].accesses, 7);
  // Bad fields: exit 2, one line naming the file and field, no output.
  struct Bad {
    std::string json, want;
  };
  const std::string buf = "\"buffers\": [{\"id\": \"a\", \"lower\": 0, \"upper\": 4, \"size\": 4, \"uses\": [0, 3], \"evictable\": true}]";
  const Bad bad[] = {
      {"{\"durations\": [1, 0], " + buf + "}", "field 'durations[1]': must be > 0"},
      {"{\"durations\": 3, " + buf + "}", "field 'durations' must be an array"},
      {"{\"swap\": {\"mode\": \"moved\"}, " + buf + "}", "swap: field 'mode' must be \"pinned\" or \"split\""},
      {"{\"swap\": {\"channels\": 0}, " + buf + "}", "swap: field 'channels': must be in [1, 2^20]"},
      {"{\"swap\": {\"bandwith\": 4}, " + buf + "}", "swap: unknown field 'bandwith'"},
      {"{\"memories\": [{\"name\": \"sram\", \"capacity\": -1}], " + buf + "}", "memory 'sram': field 'capacity'"},
  };
  for (const Bad& b : bad) {
    const std::string in = dir.file("bad.json"), out = dir.file("bad_plan.csv");
    testing::write_text(in, b.json);
    const auto r = testing::run_cli("solve '" + in + "' -a greedy --capacity 8 -o '" + out + "'", dir);
    EXPECT_EQ(r.code, 2) << b.want << r.out;
    EXPECT_NE(r.err.find(in), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(b.want), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(testing::exists(out));
  }
  // The file's swap settings drive `solve` (no --swap flag needed).
  const std::string good = dir.file("good.json");
  testing::write_text(good, "{\"swap\": {\"mode\": \"pinned\", \"bandwidth\": 4}, \"buffers\": ["
                            "{\"id\": \"a\", \"lower\": 0, \"upper\": 10, \"size\": 4, \"uses\": [0, 9], \"evictable\": true},"
                            "{\"id\": \"b\", \"lower\": 2, \"upper\": 4, \"size\": 4},"
                            "{\"id\": \"c\", \"lower\": 5, \"upper\": 7, \"size\": 4}]}");
  const auto r = testing::run_cli("solve '" + good + "' -a greedy --capacity 6", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("evicted=1 bytes_moved=8 stall=0"), std::string::npos) << r.out;
}

// ---- CSV: the plan keeps the input's columns; split pieces get rows ------------------------

TEST(SpacesCli, SwapPlanKeepsColumnsAndSplitRows) {
  testing::TempDir dir;
  const std::string in = dir.file("swap.csv");
  testing::write_text(in, "id,lower,upper,size,uses,evictable,note\na,0,10,4,0 9,1,weights\nb,2,4,4,,0,x\nc,5,7,4,,0,y\n");
  auto r = testing::run_cli("solve '" + in + "' -a greedy --capacity 6 --swap --bandwidth 4 -o '" + dir.file("p.csv") + "'", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  std::string plan = testing::read_text(dir.file("p.csv"));
  EXPECT_EQ(plan, "id,lower,upper,size,uses,evictable,note,evictions,gaps,offset\n"
                  "a,0,10,4,0 9,1,weights,2-7,2-7,0\nb,2,4,4,,0,x,,,0\nc,5,7,4,,0,y,,,0\n");
  r = testing::run_cli("solve '" + in + "' -a greedy --capacity 6 --swap --swap-mode split --bandwidth 1 --allow-stall -o '" +
                           dir.file("s.csv") + "'", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stall=5"), std::string::npos) << r.out;
  plan = testing::read_text(dir.file("s.csv"));
  EXPECT_NE(plan.find("a#0,0,2,4,0,0,weights"), std::string::npos) << plan;
  EXPECT_NE(plan.find("a#1,7,10,4,9,0,weights"), std::string::npos) << plan;
  // --swap with --memories: a leaves sram for dram; the plan keeps the columns and says where.
  const std::string mem = dir.file("mem.csv");
  testing::write_text(mem, "id,lower,upper,size,uses,evictable,space,note\na,0,10,4,0 9,1,sram,w\nb,2,4,4,,0,sram,x\n"
                           "c,5,7,4,,0,sram,y\n");
  r = testing::run_cli("solve '" + mem + "' -a greedy --memories sram=6,dram --swap --bandwidth 4 -o '" + dir.file("m.csv") +
                           "' --transfers '" + dir.file("t.csv") + "'", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("peak_sram=4 peak_dram=4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("swap_to=dram evicted=1 bytes_moved=8 stall=0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("valid=yes"), std::string::npos) << r.out;
  plan = testing::read_text(dir.file("m.csv"));
  EXPECT_NE(plan.find("a,0,10,4,0 9,1,sram,w,2-7,2-7,0"), std::string::npos) << plan;  // evictions, gaps
  EXPECT_EQ(testing::read_text(dir.file("t.csv")), "buffer,direction,start,end\na,out,1,2\na,in,7,8\n");
  r = testing::run_cli("solve '" + mem + "' -a greedy --memories sram=6,dram --swap --swap-to sram", dir);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("'to' must name a declared memory other than the first"), std::string::npos) << r.err;
}


// Copy lengths at the ends of the 64-bit range: a bandwidth of 2^63 - 1 made the copy length
// (size + bandwidth - 1) / bandwidth overflow to a negative count, and durations of 2^63 - 1
// overflowed the checker's sum, so a good plan was reported "copy in too short" with
// status=feasible. Numbers past 64 bits are refused; a transfer spanning 2^62 steps is
// checked in closed form (it looped over every step).
TEST(SpacesCli, CopyLengthsAtTheEndsOfTheRangeNeitherOverflowNorLoop) {
  testing::TempDir dir;
  const std::string in = dir.file("swap.csv");
  testing::write_text(in, "id,lower,upper,size,uses,evictable\na,0,10,4,0 9,1\nb,2,4,4,,0\nc,5,7,4,,0\n");
  for (const std::string flags : {"--bandwidth 9223372036854775807", "--bandwidth 4 --durations 9223372036854775807,9223372036854775807",
                                  "--bandwidth 3 --durations 1,1,1,1,1,1,1,1,1,1,1,9223372036854775807 --allow-stall"}) {
    const auto r = testing::run_cli("solve '" + in + "' --capacity 6 --swap " + flags, dir);
    EXPECT_EQ(r.code, 0) << flags << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("valid=yes status=feasible"), std::string::npos) << flags << "\n" << r.out;
  }
  for (const std::string flags : {"--bandwidth 9223372036854775808", "--bandwidth 1e20", "--copy-channels 0",
                                  "--durations 1,x", "--durations 1,0"}) {
    const auto r = testing::run_cli("solve '" + in + "' --capacity 6 --swap " + flags, dir);
    EXPECT_EQ(r.code, 2) << flags << "\n" << r.out;
    EXPECT_NE(r.err.find("expected"), std::string::npos) << flags << "\n" << r.err;
  }
  const std::string plan = dir.file("p.csv"), tr = dir.file("t.csv");
  auto r = testing::run_cli("solve '" + in + "' -a greedy --capacity 6 --swap -o '" + plan + "' --transfers '" + tr + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // A copy out over [-2^62, 2), a copy in over [7, 2^62) and a third copy over [0, 2^62):
  // on one channel, steps 0-1 and 7 on have two copies at once, each run named once.
  testing::write_text(tr, "buffer,direction,start,end\na,out,-4611686018427387904,2\na,in,7,4611686018427387904\n"
                          "a,in,0,4611686018427387904\n");
  r = testing::run_cli("validate '" + in + "' '" + plan + "' --capacity 6 --transfers '" + tr + "' --copy-channels 1", dir);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("copy out starts at or before the use at 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error: step 0: more copies than channels"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error: step 7: more copies than channels"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("error: step 1: more copies"), std::string::npos) << "one message per run of steps\n" << r.out;
  EXPECT_EQ(r.out.find("error: step 8: more copies"), std::string::npos) << "one message per run of steps\n" << r.out;
  r = testing::run_cli("validate '" + in + "' '" + plan + "' --capacity 6 --transfers '" + tr + "' --copy-channels 2", dir);
  EXPECT_EQ(r.out.find("more copies than channels"), std::string::npos) << r.out;
}

// --svg with --swap drew nothing (the option was dropped); it draws the plan, an evicted
// buffer as its pieces between absences. With several memories it is refused, as is one
// file named for two outputs (--transfers too), before solving.
TEST(SpacesCli, SwapPlanIsDrawnAndOutputsAreDistinct) {
  testing::TempDir dir;
  const std::string in = dir.file("swap.csv");
  testing::write_text(in, "id,lower,upper,size,uses,evictable\na,0,10,4,0 9,1\nb,2,4,4,,0\nc,5,7,4,,0\n");
  const std::string svg = dir.file("p.svg");
  auto r = testing::run_cli("solve '" + in + "' -a greedy --capacity 6 --swap --svg '" + svg + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string picture = testing::read_text(svg);
  size_t pieces_of_a = 0;
  for (size_t at = picture.find("<title>a: "); at != std::string::npos; at = picture.find("<title>a: ", at + 1)) ++pieces_of_a;
  EXPECT_EQ(pieces_of_a, 2u) << picture;  // [0,2) and [7,10): absent over [2,7)
  r = testing::run_cli("solve '" + in + "' --memories sram=8,dram --svg '" + dir.file("m.svg") + "'", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not with several memories"), std::string::npos) << r.err;
  const std::string same = dir.file("same.csv");
  r = testing::run_cli("solve '" + in + "' --capacity 6 --swap -o '" + same + "' --transfers '" + same + "'", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("named for both -o and --transfers"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "refused before solving: " << r.out;
}

// "fits none of its memories" was all a user got when a buffer fitted its memory alone but
// not beside the buffers admitted before it, and when it was pinned to the first memory
// for want of a 'space' column: the message gives each memory's capacity and what it holds
// while the buffer is live, and says how to allow the others.
TEST(SpacesCli, ABufferThatFitsNoMemorySaysWhy) {
  testing::TempDir dir;
  const std::string in = dir.file("m.csv");
  testing::write_text(in, "id,lower,upper,size\na,0,10,4\nb,2,4,4\n");
  auto r = testing::run_cli("solve '" + in + "' --memories sram=6,dram", dir);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.err.find("fits none of its memories: sram (capacity 6, already holding 4 bytes of buffers live with it) "
                       "(a buffer that lists no memories may use the first only"),
            std::string::npos)
      << r.err;
  r = testing::run_cli("solve '" + in + "' --memories sram=2", dir);
  EXPECT_NE(r.err.find("sram (capacity 2: smaller than the buffer)"), std::string::npos) << r.err;
}

// ---- validate: plans with memories and absences, as solve writes them ------------------------

// `memplan validate` checked only offsets: a valid swap plan was "invalid" (its absences were
// not read, so the evicted buffer overlapped the one reusing its bytes), and a plan with
// memories could not be checked at all (no --memories, and `-o plan.json` wrote CSV).
TEST(SpacesCli, ValidateChecksPlansWithMemoriesAndAbsences) {
  testing::TempDir dir;
  const std::string in = dir.file("swap.csv");
  testing::write_text(in, "id,lower,upper,size,uses,evictable\na,0,10,4,0 9,1\nb,2,4,4,,0\nc,5,7,4,,0\n");
  const std::string plan = dir.file("p.csv"), tr = dir.file("t.csv"), json = dir.file("p.json");
  auto r = testing::run_cli("solve '" + in + "' -a greedy --capacity 6 --swap --bandwidth 4 -o '" + plan +
                                "' --transfers '" + tr + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  r = testing::run_cli("validate '" + in + "' '" + plan + "' --capacity 6", dir);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("valid=yes buffers=3 peak=4 evicted=1 copies=unchecked"), std::string::npos) << r.out;
  r = testing::run_cli("validate '" + in + "' '" + plan + "' --capacity 6 --transfers '" + tr + "' --bandwidth 4", dir);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("copies=checked"), std::string::npos) << r.out;
  r = testing::run_cli("validate '" + in + "' '" + plan + "' --capacity 6 --transfers '" + tr + "' --bandwidth 1", dir);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("error: buffer a evicted [2,7): copy out too short for 4 bytes"), std::string::npos) << r.out;
  // An absence over a use, and one the file cannot spell.
  std::string text = testing::read_text(plan);
  const std::string bad = dir.file("bad.csv");
  testing::write_text(bad, text.replace(text.find("2-7"), 3, "0-7"));
  r = testing::run_cli("validate '" + in + "' '" + bad + "'", dir);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("error: buffer a evicted [0,7): use at 0 inside the absence"), std::string::npos) << r.out;
  testing::write_text(bad, text.replace(text.find("0-7"), 3, "2-x"));
  r = testing::run_cli("validate '" + in + "' '" + bad + "'", dir);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("bad.csv:2: column 'evictions': 'x' is not an integer"), std::string::npos) << r.err;
  // The same plan as JSON.
  r = testing::run_cli("solve '" + in + "' -a greedy --capacity 6 --swap --bandwidth 4 -o '" + json + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  r = testing::run_cli("validate '" + in + "' '" + json + "' --capacity 6", dir);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("valid=yes buffers=3 peak=4 evicted=1"), std::string::npos) << r.out;

  // Several memories: CSV and JSON plans, checked against the memories they name.
  const std::string mem = dir.file("mem.csv");
  testing::write_text(mem, "id,lower,upper,size,space\np,0,4,4,sram|dram\nq,0,4,4,sram|dram\nr,0,4,4,dram\n");
  for (const std::string& out : {dir.file("m.csv"), dir.file("m.json")}) {
    r = testing::run_cli("solve '" + mem + "' -a greedy --memories sram=4,dram -o '" + out + "'", dir);
    ASSERT_EQ(r.code, 0) << r.err;
    if (out.ends_with(".json")) EXPECT_EQ(testing::read_text(out).rfind("{", 0), 0u) << "JSON, not CSV";
    r = testing::run_cli("validate '" + mem + "' '" + out + "' --memories sram=4,dram", dir);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("valid=yes buffers=3 peak=8 spaces=2 peak_sram=4 peak_dram=8"), std::string::npos) << r.out;
    r = testing::run_cli("validate '" + mem + "' '" + out + "' --memories sram=3,dram", dir);
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("above capacity 3"), std::string::npos) << r.out;
    r = testing::run_cli("validate '" + mem + "' '" + out + "'", dir);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.err.find("use --memories"), std::string::npos) << r.err;  // the problem names memories too
  }
  // r may live in dram only.
  text = testing::read_text(dir.file("m.csv"));
  testing::write_text(bad, text.replace(text.find("r,0,4,4,dram"), 12, "r,0,4,4,sram"));
  r = testing::run_cli("validate '" + mem + "' '" + bad + "' --memories sram=8,dram", dir);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("buffer r: memory 'sram' is not allowed for it"), std::string::npos) << r.out;
}

// ---- Several memories with swapping: evict from SRAM to DRAM -------------------------------

TEST(Spaces, SwapEvictsFromTheFastMemoryToTheSlowOne) {
  // §8.1 pinned to sram (capacity 6), plus d in dram. a leaves sram over [2,7); its copy
  // lives in dram from its copy out's start (1) to its copy in's end (8).
  Problem p = example_81();
  p.memories = {{"sram", 6, 1}, {"dram", std::nullopt, 1}};
  for (Buffer& b : p.buffers) b.spaces = {"sram"};
  p.buffers.push_back(make_buffer("d", 0, 10, 4));
  p.buffers.back().spaces = {"dram"};
  EXPECT_FALSE(plan_spaces(p, "greedy", quick()).ok) << "LOAD 8 > 6 without swapping";
  SwapOptions so;
  so.bandwidth = 4;
  const SpacesResult r = plan_spaces_swap(p, "greedy", quick(), so);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.evictions.size(), 1u);
  EXPECT_EQ(r.evictions[0].buffer, 0u);
  EXPECT_EQ(std::make_pair(r.evictions[0].lo, r.evictions[0].hi), std::make_pair(int64_t{2}, int64_t{7}));
  EXPECT_EQ(r.swap_to, 1);
  EXPECT_EQ(r.bytes_moved, 8);
  const std::vector<Buffer> copies = copy_buffers(p, r);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(std::make_pair(copies[0].start, copies[0].end), std::make_pair(int64_t{1}, int64_t{8}));
  std::vector<std::string> names;
  for (int m : r.space) names.push_back(p.memories[static_cast<size_t>(m)].name);
  EXPECT_EQ(names, (std::vector<std::string>{"sram", "sram", "sram", "dram"}));
  std::vector<int64_t> peaks;
  const Validation v = validate_spaces_swaps(p, names, r.offsets, r.evictions, r.transfers, r.copy_offsets, "dram", so, &peaks);
  EXPECT_TRUE(v.ok) << (v.errors.empty() ? "" : v.errors.front());
  EXPECT_EQ(peaks, (std::vector<int64_t>{4, 8}));
  // The checker sees the copy in dram: on top of d it collides.
  std::vector<int64_t> wrong = r.copy_offsets;
  wrong[0] = r.offsets[3];
  EXPECT_FALSE(validate_spaces_swaps(p, names, r.offsets, r.evictions, r.transfers, wrong, "dram", so).ok);
  // ... and the swap rules in sram: an eviction of a buffer that is not evictable.
  std::vector<Eviction> bad = r.evictions;
  bad[0].buffer = 1;
  EXPECT_FALSE(validate_spaces_swaps(p, names, r.offsets, bad, r.transfers, r.copy_offsets, "dram", so).ok);
  // A dram too small for the copy: d and the copy need 8 during [1,8).
  p.memories[1].capacity = 4;
  EXPECT_FALSE(plan_spaces_swap(p, "greedy", quick(), so).ok);
  so.to = "sram";
  EXPECT_THROW(plan_spaces_swap(p, "greedy", quick(), so), std::invalid_argument);
}

}  // namespace
}  // namespace memplan
