// The timeline/conflict module (timeline.h) against brute force, explicit conflicts
// (Problem::conflicts) through the validator, the driver and `conflict-greedy`, and the
// worked examples of ../shared/research/parallel-streams.md §7.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include "memplan/bounds.h"
#include "memplan/io_json.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "conflict_brute.h"
#include "stream_brute.h"

namespace memplan {
namespace {

TEST(Timeline, SectionsDegreesPairsPressureMatchBruteForce) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const Problem p = random_intervals(rng, 1 + static_cast<int>(rng() % 12), 10, 9);
    const int n = static_cast<int>(p.buffers.size());
    std::vector<int64_t> start(n), end(n), size(n);
    for (int i = 0; i < n; ++i) start[i] = p.buffers[i].start, end[i] = p.buffers[i].end, size[i] = p.buffers[i].size;
    const Sections s = sections_of(start, end, size);
    const std::vector<int32_t> deg = overlap_degrees(start, end);
    const std::vector<int64_t> press = section_pressure(s);
    int64_t pairs = 0, load = 0;
    std::vector<int64_t> begin;
    std::vector<int32_t> adj;
    ASSERT_TRUE(overlap_lists(start, end, order_by_start(start), begin, adj));
    ASSERT_EQ(begin.size(), static_cast<size_t>(n) + 1);
    {  // given the degrees, the filling sweep alone builds the same lists
      std::vector<int64_t> begin2;
      std::vector<int32_t> adj2;
      ASSERT_TRUE(overlap_lists(start, end, order_by_start(start), begin2, adj2, {}, &deg));
      EXPECT_EQ(begin2, begin);
      EXPECT_EQ(adj2, adj);
    }
    std::set<std::pair<int32_t, int32_t>> got;
    for (int i = 0; i < n; ++i)
      for (int64_t k = begin[i]; k < begin[i + 1]; ++k) {
        EXPECT_TRUE(got.insert({i, adj[k]}).second);  // no neighbour twice on a list
        EXPECT_EQ(std::count(adj.begin() + begin[adj[k]], adj.begin() + begin[adj[k] + 1], i), 1);  // symmetric
      }
    for (auto it = got.begin(); it != got.end();) it = it->first > it->second ? got.erase(it) : std::next(it);
    for (int64_t t = 0; t <= 10; ++t) {
      int64_t live = 0;
      for (int i = 0; i < n; ++i) live += (start[i] <= t && t < end[i]) ? size[i] : 0;
      load = std::max(load, live);
    }
    for (int i = 0; i < n; ++i) {
      int d = 0;
      for (int j = 0; j < n; ++j)
        if (j != i && start[i] < end[j] && start[j] < end[i]) {
          ++d;
          if (j > i) {
            ++pairs;
            EXPECT_TRUE(got.count({i, j}));
          }
        }
      EXPECT_EQ(deg[i], d);
      // Sections: [times[lo], times[hi]) is the lifetime; pressure = max live in it.
      EXPECT_EQ(s.times[s.lo[i]], start[i]);
      EXPECT_EQ(s.times[s.hi[i]], end[i]);
      int64_t pr = 0;
      for (int64_t t = start[i]; t < end[i]; ++t) {
        int64_t live = 0;
        for (int j = 0; j < n; ++j) live += (start[j] <= t && t < end[j]) ? size[j] : 0;
        pr = std::max(pr, live);
      }
      EXPECT_EQ(press[i], pr);
    }
    EXPECT_EQ(overlapping_pairs(start, end), pairs);
    EXPECT_EQ(static_cast<int64_t>(got.size()), pairs);
    EXPECT_EQ(interval_load(p), load);
    EXPECT_EQ(compute_load(p), load);
    const int64_t max_total = s.total.empty() ? 0 : *std::max_element(s.total.begin(), s.total.end());
    EXPECT_EQ(max_total, load);
  }
}

TEST(Timeline, ConflictGraphIsOverlapPlusEdgesMinusInplace) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    Problem p = random_intervals(rng, 2 + static_cast<int>(rng() % 9), 12, 5);
    const int n = static_cast<int>(p.buffers.size());
    for (int k = static_cast<int>(rng() % 6); k > 0; --k) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (a != b) p.conflicts.emplace_back(a, b);
    }
    if (rng() % 2) p.buffers[1].inplace_of = p.buffers[0].id;
    ConflictGraph g;
    ASSERT_TRUE(conflict_graph(p, g, 1000));
    for (int a = 0; a < n; ++a) {
      std::vector<int32_t> expect;
      for (int b = 0; b < n; ++b)
        if (b != a && brute_conflict(p, a, b)) expect.push_back(b);
      EXPECT_EQ(std::vector<int32_t>(g.adj.begin() + g.begin[a], g.adj.begin() + g.begin[a + 1]), expect);
    }
    ConflictGraph none;
    EXPECT_FALSE(conflict_graph(p, none, -1));  // over budget: declined
  }
}

// §7.1: two streams, no sync. The sequential intervals (A1,A2,B1,B2,J) give peak 8, but all
// six pairs conflict on two streams: the safe optimum is 12.
Problem unsafe_linearization(bool with_conflicts) {
  Problem p;
  p.buffers = {buf("x", 0, 2, 4), buf("y", 1, 5, 2), buf("u", 2, 4, 4), buf("v", 3, 5, 2)};
  if (with_conflicts)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) p.conflicts.emplace_back(a, b);
  return p;
}

TEST(Streams, SequentialPlanIsUnsafeAndSafeOptimumIs12) {
  const std::vector<int64_t> sequential = {0, 4, 0, 6};  // x and u share bytes
  EXPECT_TRUE(validate(unsafe_linearization(false), sequential).ok);
  EXPECT_EQ(validate(unsafe_linearization(false), sequential).peak, 8);
  const Validation v = validate(unsafe_linearization(true), sequential);
  EXPECT_FALSE(v.ok);
  ASSERT_FALSE(v.errors.empty());
  EXPECT_NE(v.errors.front().find("explicit conflict"), std::string::npos);
  EXPECT_TRUE(validate(unsafe_linearization(true), {0, 4, 6, 10}).ok);
  EXPECT_EQ(brute_opt(unsafe_linearization(true)), 12);
  for (const char* algo : {"auto", "conflict-greedy"}) {
    const SolveResult r = solve(unsafe_linearization(true), algo, SolveOptions{});
    ASSERT_TRUE(r.solution) << algo;
    EXPECT_EQ(r.solution->peak, 12) << algo;
    EXPECT_EQ(r.lower_bound, 12) << algo;  // the clique {x, y, u, v}
    EXPECT_EQ(r.status, Status::kOptimal) << algo;
  }
}

// §7.3: a 5-cycle of unit buffers: clique bound 2, optimum 3. Only expressible as explicit
// conflicts (the intervals are disjoint).
Problem five_cycle() {
  Problem p;
  for (int i = 0; i < 5; ++i) p.buffers.push_back(buf("c" + std::to_string(i), 2 * i, 2 * i + 1, 1));
  for (int i = 0; i < 5; ++i) p.conflicts.emplace_back(i, (i + 1) % 5);
  return p;
}

TEST(Streams, FiveCycleBoundTwoOptimumThree) {
  EXPECT_EQ(brute_max_clique(five_cycle()), 2);
  EXPECT_EQ(brute_opt(five_cycle()), 3);
  const SolveResult r = solve(five_cycle(), "conflict-greedy", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 3);
  EXPECT_EQ(r.lower_bound, 2);
  EXPECT_EQ(r.status, Status::kFeasible);  // never claimed optimal: the bound is 2
  SolveOptions tight;
  tight.capacity = 2;
  const SolveResult t = solve(five_cycle(), "auto", tight);
  EXPECT_FALSE(t.solution);
  EXPECT_NE(t.status, Status::kFeasible);
}

TEST(Streams, DriverRefusesSolversWithoutConflictSupport) {
  int refused = 0, served = 0;
  for (const SolverInfo& s : all_solvers()) {
    if (s.supports.explicit_conflicts) {
      const SolveResult r = solve(five_cycle(), s, SolveOptions{});
      ASSERT_TRUE(r.solution) << s.name;
      EXPECT_TRUE(validate(five_cycle(), r.solution->offsets).ok) << s.name;
      ++served;
      continue;
    }
    try {
      solve(five_cycle(), s, SolveOptions{});
      ADD_FAILURE() << s.name << " accepted explicit conflicts";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + s.name + "'"), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GE(served, 2);  // auto and conflict-greedy
  EXPECT_GT(refused, 10);
  Problem inplace = five_cycle();
  inplace.buffers[1].inplace_of = "c0";
  EXPECT_THROW(solve(inplace, "conflict-greedy", SolveOptions{}), std::invalid_argument);
}

// Random small conflict graphs (interval overlap + random explicit edges): the validator
// agrees with the brute-force relation on random plans, conflict-greedy's plans are valid
// and at or above the optimum, and its lower bound is at most the optimum and at most the
// heaviest clique.
TEST(Streams, RandomConflictGraphsAgainstBruteForce) {
  std::mt19937 rng(3);
  for (int round = 0; round < 150; ++round) {
    Problem p = random_intervals(rng, 2 + static_cast<int>(rng() % 5), 8, 4);
    const int n = static_cast<int>(p.buffers.size());
    for (int k = static_cast<int>(rng() % 8); k > 0; --k) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (a != b) p.conflicts.emplace_back(a, b);
    }
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<int64_t> off(n);
      for (int64_t& o : off) o = static_cast<int64_t>(rng() % 8);
      bool ok = true;
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
          if (brute_conflict(p, a, b) && off[a] < off[b] + p.buffers[b].size && off[b] < off[a] + p.buffers[a].size)
            ok = false;
      EXPECT_EQ(validate(p, off).ok, ok);
    }
    const int64_t opt = brute_opt(p);
    const SolveResult r = solve(p, "conflict-greedy", SolveOptions{});
    ASSERT_TRUE(r.solution);
    EXPECT_GE(r.solution->peak, opt);
    EXPECT_LE(r.lower_bound, opt);
    EXPECT_LE(r.lower_bound, brute_max_clique(p));
    if (r.status == Status::kOptimal) EXPECT_EQ(r.solution->peak, opt);
  }
}

TEST(Streams, JsonConflictsField) {
  const std::string text =
      R"({"buffers":[{"id":"a","lower":0,"upper":1,"size":4},{"id":"b","lower":2,"upper":3,"size":4}],)"
      R"("conflicts":[["a","b"]]})";
  const Problem p = parse_json(text, "t.json");
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_EQ(p.conflicts[0], (std::pair<int32_t, int32_t>{0, 1}));
  EXPECT_EQ(parse_json(problem_to_json(p, nullptr), "again.json").conflicts, p.conflicts);
  try {
    parse_json(R"({"buffers":[{"id":"a","lower":0,"upper":1,"size":4}],"conflicts":[["a","zz"]]})", "bad.json");
    ADD_FAILURE() << "unknown id accepted";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.json: conflicts[0]"), std::string::npos) << what;
    EXPECT_NE(what.find("zz"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace memplan

#include "memplan/streams.h"

namespace memplan {
namespace {

std::set<std::pair<int32_t, int32_t>> conflict_set(const Problem& p) {
  std::set<std::pair<int32_t, int32_t>> out;
  const int n = static_cast<int>(p.buffers.size());
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (brute_conflict(p, a, b)) out.insert({a, b});
  return out;
}

// §7.1 as a stream program: stream 0 runs A1, A2, J; stream 1 runs B1, B2; J reads y and v.
// x (A1 -> A2), y (A2 -> J), u (B1 -> B2), v (B2 -> J on stream 0). No sync: all 6 pairs
// conflict and the safe optimum is 12.
TEST(StreamPrograms, TwoStreamsNoSyncAllConflict) {
  const std::vector<StreamBuffer> prog = {sb(0, 0, 2), sb(0, 1, 3), sb(1, 0, 2), sb(1, 1, 2, {}, {{0, 2}})};
  EXPECT_EQ(birth_clocks(prog, 2), (std::vector<int64_t>{0, 0, 1, 0, 0, 0, 0, 1}));
  const Problem p = problem_from_streams(prog, {4, 2, 4, 2}, 2);
  EXPECT_EQ(conflict_set(p).size(), 6u);
  EXPECT_EQ(brute_opt(p), 12);
  const SolveResult r = solve(p, "auto", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 12);
  EXPECT_FALSE(validate(p, {0, 4, 0, 6}).ok);  // the sequential plan: x and u share bytes
}

// §7.2: the same program with B1 after A2 (u waits for x's last use): x may share with u
// and v; conflicts x-y, y-u, y-v, u-v; clique {y, u, v} = 8 = optimum.
TEST(StreamPrograms, OneEventLetsXShare) {
  const std::vector<StreamBuffer> prog = {sb(0, 0, 2), sb(0, 1, 3), sb(1, 0, 2, {0}), sb(1, 1, 2, {}, {{0, 2}})};
  EXPECT_EQ(birth_clocks(prog, 2), (std::vector<int64_t>{0, 0, 1, 0, 2, 0, 2, 1}));
  const Problem p = problem_from_streams(prog, {4, 2, 4, 2}, 2);
  EXPECT_EQ(conflict_set(p), (std::set<std::pair<int32_t, int32_t>>{{0, 1}, {1, 2}, {1, 3}, {2, 3}}));
  EXPECT_EQ(brute_opt(p), 8);
  const SolveResult r = solve(p, "auto", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 8);
  EXPECT_EQ(r.status, Status::kOptimal);
}

// §7.4: two independent chains a < b (3, 1) and c < d (1, 3): bound and optimum 6.
TEST(StreamPrograms, TwoPlusTwo) {
  const std::vector<StreamBuffer> prog = {sb(0, 0, 1), sb(0, 1, 2), sb(1, 0, 1), sb(1, 1, 2)};
  const Problem p = problem_from_streams(prog, {3, 1, 1, 3}, 2);
  EXPECT_EQ(conflict_set(p), (std::set<std::pair<int32_t, int32_t>>{{0, 2}, {0, 3}, {1, 2}, {1, 3}}));
  EXPECT_EQ(brute_max_clique(p), 6);
  EXPECT_EQ(brute_opt(p), 6);
  const SolveResult r = solve(p, "auto", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 6);
}

// §7.5: a read on streams 1 and 2; c after R1 on stream 1, b after R2 on stream 2: all
// three conflict (antichain 3), though no single cut holds all three.
TEST(StreamPrograms, ThreeStreamsPairwiseConcurrent) {
  // a: stream 0 op 0, read by R1 (stream 1 op 0) and R2 (stream 2 op 0); c: stream 1 op 1
  // read at op 2; b: stream 2 op 1 read at op 2.
  const std::vector<StreamBuffer> prog = {sb(0, 0, 1, {}, {{1, 0}, {2, 0}}), sb(1, 1, 3), sb(2, 1, 3)};
  const Problem p = problem_from_streams(prog, {1, 1, 1}, 3);
  EXPECT_EQ(conflict_set(p).size(), 3u);
  const SolveResult r = solve(p, "auto", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 3);
  EXPECT_FALSE(validate(p, {0, 1, 1}).ok);
}

TEST(StreamPrograms, CycleIsRejected) {
  // u (stream 1) waits for x's use at stream 0 op 1; x's producer waits for u: deadlock.
  const std::vector<StreamBuffer> prog = {sb(0, 1, 2, {1}), sb(1, 1, 2, {0})};
  EXPECT_THROW(birth_clocks(prog, 2), std::invalid_argument);
}

// Random stream programs: the derived Problem's relation equals the brute-force SOMAS rule,
// and the exact optimum under it is at least the plain linearized one.
TEST(StreamPrograms, RandomProgramsMatchBruteForce) {
  std::mt19937 rng(5);
  for (int round = 0; round < 300; ++round) {
    const int S = 1 + static_cast<int>(rng() % 3), n = 2 + static_cast<int>(rng() % 6);
    std::vector<StreamBuffer> prog;
    for (int i = 0; i < n; ++i) {
      StreamBuffer b = sb(static_cast<int32_t>(rng() % S), static_cast<int64_t>(rng() % 5), 0);
      b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 3);
      if (rng() % 3 == 0) b.reads.emplace_back(static_cast<int32_t>(rng() % S), static_cast<int64_t>(rng() % 6));
      // Events only towards lower indices with an earlier stream, so most programs are acyclic.
      if (i > 0 && rng() % 2) b.after.push_back(static_cast<int32_t>(rng() % i));
      prog.push_back(b);
    }
    std::vector<int64_t> sizes(n);
    for (auto& s : sizes) s = 1 + static_cast<int64_t>(rng() % 4);
    Problem p;
    try {
      p = problem_from_streams(prog, sizes, S);
    } catch (const std::invalid_argument&) {
      continue;  // a cycle: the brute force has no order to compare with
    }
    const auto brute = brute_conflicts(prog, S);
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) EXPECT_EQ(brute_conflict(p, a, b), brute[a][b] != 0) << round << ": " << a << "," << b;
    const SolveResult r = solve(p, "auto", SolveOptions{});
    ASSERT_TRUE(r.solution);
    EXPECT_TRUE(validate(p, r.solution->offsets).ok);
    EXPECT_GE(r.solution->peak, brute_opt(p));
  }
}

// The serialization (each op one time, streams in round robin, each running while its next
// op's waits are done) against the same rule stepped op by op in a table per position:
// problem_from_streams keeps only stretches of ops, so its times are checked here, on
// random programs, with positions spread far apart as well as packed.
TEST(StreamPrograms, SerializedTimesMatchOpByOpRoundRobin) {
  std::mt19937 rng(11);
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    const int S = 1 + static_cast<int>(rng() % 3), n = 1 + static_cast<int>(rng() % 7);
    const int64_t spread = round % 2 ? 1 : 7;  // far positions: long stretches between uses
    std::vector<StreamBuffer> prog;
    for (int i = 0; i < n; ++i) {
      StreamBuffer b = sb(static_cast<int32_t>(rng() % S), spread * static_cast<int64_t>(rng() % 5), 0);
      b.upper = b.lower + 1 + spread * static_cast<int64_t>(rng() % 3);
      if (rng() % 3 == 0) b.reads.emplace_back(static_cast<int32_t>(rng() % S), spread * static_cast<int64_t>(rng() % 6));
      if (i > 0 && rng() % 2) b.after.push_back(static_cast<int32_t>(rng() % i));
      prog.push_back(b);
    }
    Problem p;
    try {
      p = problem_from_streams(prog, std::vector<int64_t>(n, 1), S);
    } catch (const std::invalid_argument&) {
      continue;  // a cycle
    }
    // The reference: ops per stream, what each op waits for (every use of each awaited
    // buffer), then one op at a time.
    std::vector<int64_t> ops(S, 0);
    auto uses = [&](const StreamBuffer& b) {
      std::vector<std::pair<int32_t, int64_t>> u = b.reads;
      u.emplace_back(b.stream, b.upper - 1);
      return u;
    };
    for (const StreamBuffer& b : prog)
      for (auto [t, q] : uses(b)) ops[t] = std::max(ops[t], q + 1);
    std::vector<std::vector<std::vector<std::pair<int32_t, int64_t>>>> waits(S);
    for (int t = 0; t < S; ++t) waits[t].resize(static_cast<size_t>(ops[t]));
    for (const StreamBuffer& b : prog)
      for (int32_t a : b.after)
        for (auto u : uses(prog[a])) waits[b.stream][b.lower].push_back(u);
    std::vector<std::vector<int64_t>> time(S);
    for (int t = 0; t < S; ++t) time[t].assign(static_cast<size_t>(ops[t]), -1);
    std::vector<int64_t> next(S, 0);
    int64_t clock = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (int s = 0; s < S; ++s)
        for (; next[s] < ops[s]; ++next[s], moved = true) {
          bool ok = true;
          for (auto [t, q] : waits[s][next[s]]) ok = ok && next[t] > q;
          if (!ok) break;
          time[s][next[s]] = clock++;
        }
    }
    for (int i = 0; i < n; ++i) {
      const StreamBuffer& b = prog[i];
      int64_t end = time[b.stream][b.lower] + 1;
      for (auto [t, q] : uses(b)) end = std::max(end, time[t][q] + 1);
      EXPECT_EQ(p.buffers[i].start, time[b.stream][b.lower]) << round << ": buffer " << i;
      EXPECT_EQ(p.buffers[i].end, end) << round << ": buffer " << i;
    }
    ++compared;
  }
  EXPECT_GT(compared, 150);  // about half the programs are acyclic (187 of 400)
}

}  // namespace
}  // namespace memplan

#include "memplan/generate.h"

namespace memplan {
namespace {

// The multi-stream family: seeded, carries explicit conflicts, and the plan made on the
// linear order alone is shown unsafe by the validator while the safe plan passes.
TEST(StreamPrograms, GeneratedFamilyLinearizedPlanIsUnsafe) {
  GenerateOptions o;
  o.kind = "streams";
  o.buffers = 400;
  o.streams = 4;
  const Problem p = generate(o);
  EXPECT_EQ(p.buffers, generate(o).buffers);
  EXPECT_EQ(p.conflicts, generate(o).conflicts);
  ASSERT_FALSE(p.conflicts.empty());
  const SolveResult safe = solve(p, "auto", SolveOptions{});
  ASSERT_TRUE(safe.solution);
  EXPECT_TRUE(validate(p, safe.solution->offsets).ok);
  Problem linear = p;  // the linear extension alone: no explicit conflicts, no clocks
  linear.conflicts.clear();
  linear.clock_dim = 0, linear.clock_lower.clear(), linear.clock_upper.clear();
  SolveOptions quick;
  quick.time_limit_seconds = 2;
  const SolveResult unsafe = solve(linear, "greedy", quick);
  ASSERT_TRUE(unsafe.solution);
  EXPECT_FALSE(validate(p, unsafe.solution->offsets).ok);
  o.streams = 1;  // one stream: no event, no explicit conflict
  EXPECT_TRUE(generate(o).conflicts.empty());
}

}  // namespace
}  // namespace memplan

#include <sstream>

#include "memplan/io.h"

namespace memplan {
namespace {

TEST(Streams, CsvConflictsColumn) {
  std::istringstream in("id,lower,upper,size,conflicts\na,0,1,4,b;c\nb,2,3,4,\nc,4,5,4,\n");
  const CsvTable t = read_csv(in, "t.csv");
  EXPECT_EQ(t.problem.conflicts, (std::vector<std::pair<int32_t, int32_t>>{{0, 1}, {0, 2}}));
  std::ostringstream out;
  write_csv(out, t, nullptr);
  std::istringstream again(out.str());
  EXPECT_EQ(read_csv(again, "again.csv").problem.conflicts, t.problem.conflicts);
  // A problem built in code gets the column added by the writer.
  std::ostringstream built;
  write_csv(built, t.problem, nullptr);
  EXPECT_NE(built.str().find("conflicts"), std::string::npos);
  std::istringstream bad("id,lower,upper,size,conflicts\na,0,1,4,\nb,2,3,4,zz\n");
  try {
    read_csv(bad, "bad.csv");
    ADD_FAILURE() << "unknown id accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:3: column 'conflicts'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace memplan
