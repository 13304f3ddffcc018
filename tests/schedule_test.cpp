// The scheduling layer: its LOAD equals the lowering's (in-place merged), the note's worked
// examples (§8) reach their stated optima, exact equals a brute force over all topological
// orders, memory is never worse than graph order, and plans on the orders validate.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "memplan/constraints.h"
#include "memplan/generate_graph.h"
#include "memplan/graph.h"
#include "memplan/schedule.h"
#include "graph_builder.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "schedule/heuristics.h"
#include "schedule/model.h"

namespace memplan {
namespace {

using Builder = graph_testing::GraphBuilder;

ScheduleOptions opts(ScheduleMode mode, double time_limit = 10, uint64_t seed = 1) {
  ScheduleOptions o;
  o.mode = mode;
  o.time_limit = time_limit;
  o.seed = seed;
  return o;
}

std::vector<std::string> names(const Graph& g, const std::vector<int32_t>& order) {
  std::vector<std::string> r;
  for (int32_t o : order) r.push_back(g.ops[o].name);
  return r;
}

// Our own topological check: every operator once, every input's producer earlier (the
// producer found from the operators' outputs, not from finalize()).
bool valid_order(const Graph& g, const std::vector<int32_t>& order) {
  if (order.size() != g.ops.size()) return false;
  std::map<int32_t, size_t> at;
  for (size_t k = 0; k < order.size(); ++k)
    if (order[k] < 0 || order[k] >= static_cast<int32_t>(g.ops.size()) || !at.emplace(order[k], k).second)
      return false;
  std::map<int32_t, int32_t> producer;
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (int32_t t : g.ops[o].outputs) producer[t] = static_cast<int32_t>(o);
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (int32_t t : g.ops[o].inputs)
      if (producer.count(t) && at[producer[t]] >= at[static_cast<int32_t>(o)]) return false;
  return true;
}

// All topological orders, each passed to `visit`.
void for_each_order(const Graph& g, const std::function<void(const std::vector<int32_t>&)>& visit) {
  const size_t n = g.ops.size();
  std::vector<std::vector<int32_t>> preds(n);
  for (size_t o = 0; o < n; ++o)
    for (int32_t t : g.ops[o].inputs)
      if (g.tensors[t].producer >= 0) preds[o].push_back(g.tensors[t].producer);
  std::vector<int32_t> order;
  std::vector<char> done(n, 0);
  std::function<void()> rec = [&] {
    if (order.size() == n) return visit(order);
    for (size_t o = 0; o < n; ++o) {
      if (done[o]) continue;
      bool ready = true;
      for (int32_t p : preds[o]) ready &= done[p] != 0;
      if (!ready) continue;
      done[o] = 1;
      order.push_back(static_cast<int32_t>(o));
      rec();
      order.pop_back();
      done[o] = 0;
    }
  };
  rec();
}

// Number of topological orders (subset DP), capped at `cap`.
int64_t count_orders(const Graph& g, int64_t cap) {
  const size_t n = g.ops.size();
  std::vector<uint32_t> pred(n, 0);
  for (size_t o = 0; o < n; ++o)
    for (int32_t t : g.ops[o].inputs)
      if (g.tensors[t].producer >= 0) pred[o] |= 1u << g.tensors[t].producer;
  std::vector<int64_t> ways(size_t{1} << n, 0);
  ways[0] = 1;
  for (uint32_t s = 0; s < (1u << n); ++s) {
    if (!ways[s]) continue;
    for (size_t o = 0; o < n; ++o)
      if (!(s >> o & 1) && (pred[o] & ~s) == 0) ways[s | 1u << o] = std::min(cap, ways[s | 1u << o] + ways[s]);
  }
  return ways[(size_t{1} << n) - 1];
}

// A random graph of `nops` operators: graph inputs (some unread), one or two outputs per
// operator, views, may-overwrite pairs (often of equal size so that in-place applies),
// graph outputs, scratch, zero-byte tensors and weights.
Graph random_graph(std::mt19937_64& rng, int nops, bool views_and_inplace = true) {
  Builder b;
  std::vector<int32_t> avail;
  const int ninputs = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < ninputs; ++i)
    avail.push_back(b.tensor("in" + std::to_string(i), 1 + static_cast<int64_t>(rng() % 40), TensorKind::kInput));
  const int32_t w = b.tensor("w", 7, TensorKind::kWeight);
  for (int k = 0; k < nops; ++k) {
    Operator o;
    o.name = "op" + std::to_string(k);
    o.type = "Op";
    const int nin = 1 + static_cast<int>(rng() % 3);
    // Prefer recent tensors: long chains and skips, like a network.
    for (int i = 0; i < nin; ++i) {
      const size_t span = std::min<size_t>(avail.size(), 2 + rng() % 6);
      o.inputs.push_back(avail[avail.size() - 1 - rng() % span]);
    }
    if (rng() % 6 == 0) o.inputs.push_back(w);
    const int nout = rng() % 5 == 0 ? 2 : 1;
    for (int j = 0; j < nout; ++j) {
      const bool view = views_and_inplace && rng() % 5 == 0;
      const bool same = rng() % 2 == 0;
      const int64_t in_bytes = b.g.tensors[o.inputs[0]].bytes;
      int64_t bytes = (view || same) ? in_bytes : static_cast<int64_t>(rng() % 40);
      if (rng() % 25 == 0) bytes = 0;
      const TensorKind kind = rng() % 6 == 0 ? TensorKind::kOutput : TensorKind::kActivation;
      o.outputs.push_back(b.tensor(o.name + "_" + std::to_string(j), bytes, kind));
      o.view_of.push_back(view ? 0 : -1);
      o.may_overwrite.push_back(views_and_inplace && !view && rng() % 2 ? 0 : -1);
    }
    if (rng() % 6 == 0) o.scratch_bytes = 1 + static_cast<int64_t>(rng() % 20);
    for (int32_t t : o.outputs) avail.push_back(t);
    b.g.ops.push_back(o);
  }
  finalize(b.g);
  return b.g;
}

// A random topological order (Kahn with random picks).
std::vector<int32_t> random_order(const Graph& g, std::mt19937_64& rng) {
  const size_t n = g.ops.size();
  std::vector<int32_t> indeg(n, 0);
  std::vector<std::vector<int32_t>> succ(n);
  for (size_t o = 0; o < n; ++o) {
    std::vector<int32_t> ps;
    for (int32_t t : g.ops[o].inputs)
      if (g.tensors[t].producer >= 0) ps.push_back(g.tensors[t].producer);
    std::sort(ps.begin(), ps.end());
    ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
    for (int32_t p : ps) succ[p].push_back(static_cast<int32_t>(o)), ++indeg[o];
  }
  std::vector<int32_t> ready, order;
  for (size_t o = 0; o < n; ++o)
    if (!indeg[o]) ready.push_back(static_cast<int32_t>(o));
  while (!ready.empty()) {
    const size_t i = rng() % ready.size();
    const int32_t v = ready[i];
    ready.erase(ready.begin() + static_cast<long>(i));
    order.push_back(v);
    for (int32_t w : succ[v])
      if (--indeg[w] == 0) ready.push_back(w);
  }
  return order;
}

// The reference LOAD: the lowering's problem, in-place pairs merged.
int64_t lowered_load(const Graph& g, const std::vector<int32_t>& order, const LowerOptions& opt = {}) {
  return constrained_lower_bound(lower(g, order, opt).problem);
}

TEST(Schedule, ScoreEqualsTheLoweredProblemsLoad) {
  std::mt19937_64 rng(11);
  int inplace_orders = 0;
  for (int round = 0; round < 1500; ++round) {
    const Graph g = random_graph(rng, 1 + static_cast<int>(rng() % 25));
    LowerOptions opt;
    opt.include_weights = round % 3 == 0;
    opt.inplace = round % 4 != 1;
    for (int k = 0; k < 4; ++k) {
      const std::vector<int32_t> order = random_order(g, rng);
      const LoweredGraph l = lower(g, order, opt);
      for (const Buffer& x : l.problem.buffers) inplace_orders += !x.inplace_of.empty();
      ASSERT_EQ(order_load(g, order, opt), constrained_lower_bound(l.problem)) << "round " << round;
    }
  }
  EXPECT_GT(inplace_orders, 1000);  // the in-place rule was exercised
  // No operators: the inputs alone, live at instant 0.
  Builder b;
  b.tensor("x", 9, TensorKind::kInput);
  finalize(b.g);
  EXPECT_EQ(order_load(b.g, {}), lowered_load(b.g, {}));
}

// §8.1: after A, both production greedies run B and end at 16; the optimum is A C D B E.
Graph trap(Builder& b, int32_t a_input = -1, const std::string& suffix = "", bool output = true) {
  const int32_t a = b.node("A" + suffix, a_input >= 0 ? std::vector<int32_t>{a_input} : std::vector<int32_t>{}, 5);
  const int32_t bb = b.node("B" + suffix, {a}, 4);
  const int32_t c = b.node("C" + suffix, {a}, 5);
  const int32_t d = b.node("D" + suffix, {a, c}, 2);
  b.node("E" + suffix, {bb, d}, 2, output ? TensorKind::kOutput : TensorKind::kActivation);
  return b.g;
}

int64_t heuristic_load(const ScheduleResult& r, const std::string& name) {
  for (const auto& h : r.heuristics)
    if (h.name == name) return h.load;
  ADD_FAILURE() << "no heuristic " << name;
  return -1;
}

TEST(Schedule, GreedyTrapOfSection81) {
  Builder b;
  Graph g = trap(b);
  finalize(g);
  const ScheduleResult graph = schedule(g, opts(ScheduleMode::kGraph));
  EXPECT_EQ(graph.load, 16);
  EXPECT_EQ(names(g, graph.order), (std::vector<std::string>{"A", "B", "C", "D", "E"}));
  const ScheduleResult mem = schedule(g, opts(ScheduleMode::kMemory));
  EXPECT_EQ(heuristic_load(mem, "xla-list"), 16);
  EXPECT_EQ(heuristic_load(mem, "lpmf"), 16);
  EXPECT_EQ(mem.load, 12);  // memory: the portfolio and then the local search reach 12
  const ScheduleResult ex = schedule(g, opts(ScheduleMode::kExact));
  EXPECT_EQ(ex.load, 12);
  EXPECT_TRUE(ex.proven_optimal);
  EXPECT_EQ(ex.graph_order_load, 16);
  EXPECT_EQ(names(g, ex.order), (std::vector<std::string>{"A", "C", "D", "B", "E"}));
  EXPECT_EQ(lowered_load(g, ex.order), 12);
}

TEST(Schedule, XlaCommentGraphOfSection82) {
  Builder b;
  const int32_t a = b.node("A", {}, 1);
  const int32_t bb = b.node("B", {a}, 2);
  const int32_t c = b.node("C", {bb}, 1);
  const int32_t d = b.node("D", {a}, 1);
  const int32_t e = b.node("E", {a}, 1);
  const int32_t f = b.node("F", {d, e}, 2);
  b.node("G", {c, f}, 0);
  finalize(b.g);
  const Graph& g = b.g;
  int count = 0;
  int64_t lo = INT64_MAX, hi = 0;
  std::vector<std::string> at_six;
  for_each_order(g, [&](const std::vector<int32_t>& o) {
    ++count;
    const int64_t l = lowered_load(g, o);
    lo = std::min(lo, l);
    hi = std::max(hi, l);
    if (l == 6) {
      std::string s;
      for (const auto& x : names(g, o)) s += x;
      at_six.push_back(s);
    }
  });
  EXPECT_EQ(count, 20);
  EXPECT_EQ(lo, 5);
  EXPECT_EQ(hi, 6);
  std::sort(at_six.begin(), at_six.end());
  EXPECT_EQ(at_six, (std::vector<std::string>{"ABDEFCG", "ABEDFCG", "ADBEFCG", "ADEBFCG", "AEBDFCG", "AEDBFCG"}));
  std::vector<int32_t> adefbcg;
  for (const char* x : {"A", "D", "E", "F", "B", "C", "G"})
    for (size_t o = 0; o < g.ops.size(); ++o)
      if (g.ops[o].name == x) adefbcg.push_back(static_cast<int32_t>(o));
  EXPECT_EQ(order_load(g, adefbcg), 5);
  const ScheduleResult ex = schedule(g, opts(ScheduleMode::kExact));
  EXPECT_EQ(ex.load, 5);
  EXPECT_TRUE(ex.proven_optimal);
  // The graph order A B C D E F G is optimal too: memory keeps it (stable diffs).
  EXPECT_EQ(order_load(g, graph_order(g)), 5);
  EXPECT_EQ(schedule(g, opts(ScheduleMode::kMemory)).order, graph_order(g));
}

TEST(Schedule, ChainOfSection83IsOneBlockPerOperator) {
  Builder b;
  int32_t t = b.tensor("x", 3, TensorKind::kInput);
  for (int k = 0; k < 1000; ++k) t = b.node("n" + std::to_string(k), {t}, 1 + k % 7);
  finalize(b.g);
  for (ScheduleMode mode : {ScheduleMode::kGraph, ScheduleMode::kMemory, ScheduleMode::kExact}) {
    const ScheduleResult r = schedule(b.g, opts(mode));
    EXPECT_EQ(r.blocks, 1000);
    EXPECT_EQ(r.largest_block, 1);
    EXPECT_EQ(r.order, graph_order(b.g));
    EXPECT_TRUE(r.proven_optimal);  // one order: every block is its own optimum
  }
}

// Step memories fit in 64 bits (the graph's total is below 2^61), their sum over the steps
// need not: an input of 2^60 bytes live through 12 steps. The area (the local search's
// tie-break) saturates instead of wrapping (found by fuzz_graph: a signed overflow).
TEST(Schedule, AreaOfHugeTensorsSaturates) {
  Builder b;
  const int64_t huge = int64_t{1} << 60;
  const int32_t x = b.tensor("x", huge, TensorKind::kInput);
  int32_t t = b.tensor("y", 8, TensorKind::kInput);
  for (int k = 0; k < 12; ++k) t = b.node("n" + std::to_string(k), {t}, 16 + k);
  b.node("last", {t, x}, 8);
  finalize(b.g);
  const sched::Model m = sched::build_model(b.g, {});
  sched::Sweep s(m);
  std::vector<int32_t> order(m.n);
  std::iota(order.begin(), order.end(), 0);
  const sched::BlockScore score = sched::score_block(order, s);
  EXPECT_EQ(score.area, INT64_MAX);
  EXPECT_GT(score.peak, huge);
  EXPECT_LT(score.peak, huge + 1024);
  const ScheduleResult r = schedule(b.g, opts(ScheduleMode::kMemory));
  EXPECT_TRUE(valid_order(b.g, r.order));
}

TEST(Schedule, TwoTrapsInSeriesOfSection84) {
  Builder b;
  trap(b, -1, "1", false);
  const int32_t e1 = static_cast<int32_t>(b.g.tensors.size() - 1);
  Graph g = trap(b, e1, "2", true);
  finalize(g);
  int count = 0;
  int64_t lo = INT64_MAX, hi = 0;
  for_each_order(g, [&](const std::vector<int32_t>& o) {
    ++count;
    lo = std::min(lo, lowered_load(g, o));
    hi = std::max(hi, lowered_load(g, o));
  });
  EXPECT_EQ(count, 9);
  EXPECT_EQ(lo, 12);
  EXPECT_EQ(hi, 16);
  const ScheduleResult ex = schedule(g, opts(ScheduleMode::kExact));
  EXPECT_EQ(ex.blocks, 6);  // A1 | B1 C1 D1 | E1 | A2 | B2 C2 D2 | E2
  EXPECT_EQ(ex.largest_block, 3);
  EXPECT_EQ(ex.load, 12);
  EXPECT_TRUE(ex.proven_optimal);
  EXPECT_EQ(names(g, ex.order),
            (std::vector<std::string>{"A1", "C1", "D1", "B1", "E1", "A2", "C2", "D2", "B2", "E2"}));
  // Base-load bookkeeping: at A2's step e1 (2) and a2 (5) are live together.
  LoweredGraph l = lower(g, ex.order);
  int64_t at_a2 = 0;
  for (const Buffer& x : l.problem.buffers)
    if (x.start <= 5 && 5 < x.end) at_a2 += x.size;
  EXPECT_EQ(at_a2, 7);
}

// Exact against all topological orders on thousands of random graphs of up to 14
// operators; memory between the optimum and graph order; every heuristic at or above the
// optimum; every order valid by our own check.
TEST(Schedule, ExactEqualsBruteForceOnRandomGraphs) {
  std::mt19937_64 rng(5);
  int cases = 0, large = 0, rejected = 0, improved = 0;
  while (cases < 3000) {
    const int nops = 2 + static_cast<int>(rng() % 13);
    const Graph g = random_graph(rng, nops, rng() % 4 != 0);
    if (count_orders(g, 20001) > 20000) {  // too many orders to enumerate quickly
      ++rejected;
      continue;
    }
    ++cases;
    large += nops >= 13;
    const sched::Model m = sched::build_model(g, {});
    int64_t best = INT64_MAX;
    for_each_order(g, [&](const std::vector<int32_t>& o) { best = std::min(best, sched::score(m, o)); });
    const ScheduleResult ex = schedule(g, opts(ScheduleMode::kExact, 0, 1 + static_cast<uint64_t>(cases)));
    ASSERT_EQ(ex.load, best) << "case " << cases;
    ASSERT_TRUE(ex.proven_optimal);
    ASSERT_FALSE(ex.fell_back);
    ASSERT_TRUE(valid_order(g, ex.order));
    ASSERT_EQ(lowered_load(g, ex.order), ex.load);
    EXPECT_LE(ex.lower_bound, best);
    const ScheduleResult mem = schedule(g, opts(ScheduleMode::kMemory, 0, 1 + static_cast<uint64_t>(cases)));
    ASSERT_TRUE(valid_order(g, mem.order));
    ASSERT_GE(mem.load, best);
    ASSERT_LE(mem.load, mem.graph_order_load);
    ASSERT_EQ(lowered_load(g, mem.order), mem.load);
    if (mem.proven_optimal) {
      ASSERT_EQ(mem.load, best);
    }
    for (const auto& h : mem.heuristics) ASSERT_GE(h.load, best) << h.name;
    improved += ex.load < ex.graph_order_load;
  }
  EXPECT_GT(large, 200);     // the largest sizes were covered
  EXPECT_GT(improved, 300);  // and the graph order was often not optimal
  RecordProperty("rejected", rejected);
}

// Larger random graphs: memory is a valid order never worse than graph order, its LOAD is
// the lowering's, the same seed gives the same order, and a plan on it validates.
TEST(Schedule, MemoryOnLargerGraphsIsValidAndNeverWorse) {
  std::mt19937_64 rng(3);
  int better = 0;
  for (int round = 0; round < 12; ++round) {
    const Graph g = random_graph(rng, 50 + static_cast<int>(rng() % 300));
    const ScheduleOptions opt = opts(ScheduleMode::kMemory, 0, 7);
    const ScheduleResult r = schedule(g, opt);
    ASSERT_TRUE(valid_order(g, r.order));
    ASSERT_TRUE(is_topological(g, r.order));
    ASSERT_LE(r.load, r.graph_order_load);
    for (const auto& h : r.heuristics) {
      ASSERT_GE(h.load, r.lower_bound);
      ASSERT_LE(r.load, h.load) << h.name;  // memory is at most every production heuristic
    }
    ASSERT_EQ(r.graph_order_load, lowered_load(g, graph_order(g)));
    const LoweredGraph l = lower(g, r.order);
    ASSERT_EQ(constrained_lower_bound(l.problem), r.load);
    EXPECT_EQ(schedule(g, opt).order, r.order);
    const SolveResult s = solve(l.problem, "greedy", SolveOptions{});
    ASSERT_TRUE(s.solution.has_value());
    EXPECT_TRUE(validate(l.problem, s.solution->offsets).ok);
    EXPECT_GE(s.solution->peak, r.load);
    ScheduleOptions eopt = opts(ScheduleMode::kExact, 2, 7);
    eopt.exact_max_states = 20'000;
    const ScheduleResult ex = schedule(g, eopt);
    ASSERT_TRUE(valid_order(g, ex.order));
    ASSERT_LE(ex.load, r.load);
    ASSERT_EQ(lowered_load(g, ex.order), ex.load);
    ASSERT_EQ(ex.proven_optimal, ex.load == ex.lower_bound);
    ASSERT_EQ(ex.fell_back, !ex.proven_optimal);
    better += r.load < r.graph_order_load;
  }
  EXPECT_GT(better, 4);
}

// Each heuristic on its own (the whole graph as one block): a valid order whose peak, as
// the heuristic's state reports it, is the lowering's LOAD computed independently; the
// state is rolled back; the local search keeps orders valid and never worsens.
TEST(Schedule, EveryHeuristicGivesValidOrdersScoredLikeTheLowering) {
  std::mt19937_64 rng(21);
  std::map<std::string, int> best_count;
  for (int round = 0; round < 300; ++round) {
    const Graph g = random_graph(rng, 1 + static_cast<int>(rng() % 60));
    const sched::Model m = sched::build_model(g, {});
    const sched::BlockView all{&m, 0, m.n};
    sched::Sweep s(m);
    const sched::Clock clock(0);
    int64_t best = INT64_MAX;
    std::map<std::string, int64_t> loads;
    for (sched::Heuristic h : sched::kAllHeuristics) {
      std::vector<int32_t> order = sched::heuristic_order(h, all, s, clock);
      ASSERT_EQ(s.step(), 0);
      ASSERT_EQ(s.live(), m.initial_live);
      ASSERT_TRUE(valid_order(g, order)) << sched::heuristic_name(h);
      const int64_t load = lowered_load(g, order);
      ASSERT_EQ(sched::score_block(order, s).peak, load) << sched::heuristic_name(h);
      loads[sched::heuristic_name(h)] = load;
      best = std::min(best, load);
      const int64_t before = load;
      sched::local_search(all, s, order, 200, rng, clock);
      ASSERT_TRUE(valid_order(g, order));
      ASSERT_LE(lowered_load(g, order), before);
    }
    for (const auto& [name, load] : loads) best_count[name] += load == best;
  }
  // The heuristics differ: each is sometimes the best, none always.
  for (const auto& [name, count] : best_count) {
    EXPECT_GT(count, 0) << name;
    EXPECT_LT(count, 300) << name;
  }
}

// A block over the exact limit: exact keeps the memory order and says why.
TEST(Schedule, ExactFallsBackOnAWideBlock) {
  Builder b;
  const int32_t x = b.tensor("x", 1, TensorKind::kInput);
  std::vector<int32_t> ends;
  for (int k = 0; k < 40; ++k) {
    const int32_t big = b.node("big" + std::to_string(k), {x}, 100 + k);
    ends.push_back(b.node("small" + std::to_string(k), {big}, 10));
  }
  b.node("concat", ends, 1, TensorKind::kOutput);
  finalize(b.g);
  const ScheduleResult mem = schedule(b.g, opts(ScheduleMode::kMemory));
  const ScheduleResult ex = schedule(b.g, opts(ScheduleMode::kExact));
  EXPECT_TRUE(valid_order(b.g, ex.order));
  EXPECT_LE(ex.load, mem.load);
  EXPECT_FALSE(ex.proven_optimal);
  EXPECT_TRUE(ex.fell_back);
  EXPECT_NE(ex.fell_back_reason.find("80 operators"), std::string::npos) << ex.fell_back_reason;
  // The optimum runs each big one with its small successor, largest first: at the last
  // small, 39 smalls + big (100) + small (x is dead by then) = 500. No order is lower.
  EXPECT_GE(mem.load, 500);
  EXPECT_LT(ex.lower_bound, 500);
}

TEST(Schedule, OrderWritersNameTheOperators) {
  Builder b;
  Graph g = trap(b);
  g.ops[3].name = "D \"quoted\"";
  finalize(g);
  const ScheduleResult r = schedule(g, opts(ScheduleMode::kExact));
  std::ostringstream text, json;
  write_order_text(text, g, r.order);
  EXPECT_EQ(text.str(), "A\nC\nD \"quoted\"\nB\nE\n");
  write_order_json(json, g, r);
  EXPECT_NE(json.str().find("\"order\": [\"A\", \"C\", \"D \\\"quoted\\\"\", \"B\", \"E\"]"), std::string::npos)
      << json.str();
  EXPECT_NE(json.str().find("\"load\": 12"), std::string::npos);
  EXPECT_NE(json.str().find("\"graph_order_load\": 16"), std::string::npos);
  EXPECT_EQ(parse_schedule_mode("exact"), ScheduleMode::kExact);
  EXPECT_THROW(parse_schedule_mode("fast"), std::invalid_argument);
}

// The generated DNN-like graph: seeded, of the size asked, with branches (blocks of more
// than one operator), views, in-place pairs and scratch; memory schedules it validly and
// never worse than graph order.
TEST(Schedule, GeneratedDnnGraph) {
  const Graph g = generate_dnn_graph(3000, 4);
  EXPECT_GE(g.ops.size(), 3000u);
  EXPECT_LT(g.ops.size(), 3100u);
  const Graph same = generate_dnn_graph(3000, 4), other = generate_dnn_graph(3000, 5);
  ASSERT_EQ(same.tensors.size(), g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) ASSERT_EQ(same.tensors[t].bytes, g.tensors[t].bytes);
  EXPECT_FALSE(other.tensors.size() == g.tensors.size() && other.ops.back().inputs == g.ops.back().inputs &&
               other.tensors[5].bytes == g.tensors[5].bytes);
  int views = 0, scratch = 0;
  for (const Operator& o : g.ops) {
    views += !o.view_of.empty() && o.view_of[0] >= 0;
    scratch += o.scratch_bytes > 0;
  }
  EXPECT_GT(views, 50);
  EXPECT_GT(scratch, 50);
  const LoweredGraph graph_lowered = lower(g);
  int inplace = 0;
  for (const Buffer& b : graph_lowered.problem.buffers) inplace += !b.inplace_of.empty();
  EXPECT_GT(inplace, 50);
  const ScheduleResult r = schedule(g, opts(ScheduleMode::kMemory));
  EXPECT_TRUE(valid_order(g, r.order));
  EXPECT_LE(r.load, r.graph_order_load);
  EXPECT_EQ(lowered_load(g, r.order), r.load);
  EXPECT_GT(r.blocks, 100);
  EXPECT_GT(r.largest_block, 5);
  EXPECT_THROW(generate_dnn_graph(0, 1), std::invalid_argument);
}

// The randomly wired graph: cells of up to 24 operators in a shuffled order, where the
// production heuristics miss the optimum that exact finds and proves.
TEST(Schedule, GeneratedRandomWiredGraph) {
  int below_heuristics = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Graph g = generate_random_wired_graph(600, seed);
    EXPECT_GE(g.ops.size(), 600u);
    const ScheduleResult mem = schedule(g, opts(ScheduleMode::kMemory));
    const ScheduleResult ex = schedule(g, opts(ScheduleMode::kExact));
    EXPECT_LE(mem.largest_block, 25);
    for (const ScheduleResult* r : {&mem, &ex}) {
      EXPECT_TRUE(valid_order(g, r->order));
      EXPECT_EQ(lowered_load(g, r->order), r->load);
    }
    EXPECT_TRUE(ex.proven_optimal);
    EXPECT_LE(ex.load, mem.load);
    EXPECT_LT(mem.load, mem.graph_order_load);
    int64_t best_heuristic = INT64_MAX;
    for (const auto& h : mem.heuristics) best_heuristic = std::min(best_heuristic, h.load);
    EXPECT_LE(ex.load, best_heuristic);
    below_heuristics += ex.load < best_heuristic;
  }
  EXPECT_GE(below_heuristics, 2);
  EXPECT_THROW(generate_random_wired_graph(0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace memplan
