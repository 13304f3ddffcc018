// TVM Unified Static Memory Planner: greedy_by_size, greedy_by_conflicts (stack on top of
// the highest placed conflict) and hill_climb (randomised order search with a first-fit
// inner greedy) for one unbounded pool (heuristics.md §2).
#include <algorithm>
#include <numeric>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {
namespace {

// Sort keys of §2.2/§2.3; name_hint is compared descending. False, with `plan` given up,
// when the deadline passed before the order was sorted (1M records: ~0.5 s of CPU, names
// compared).
bool tvm_order(const std::vector<Rec>& recs, bool conflicts_first, const Deadline& dl,
               std::vector<int32_t>& order, Plan& plan) {
  const std::vector<int64_t> deg = conflict_counts(recs, &dl);
  if (deg.size() != recs.size()) {
    plan.complete = false;
    plan.detail = "time limit (tvm conflict counts)";
    return false;
  }
  order.clear();
  for (int32_t i = 0; i < static_cast<int32_t>(recs.size()); ++i)
    if (recs[i].fixed < 0) order.push_back(i);
  return sort_or_give_up(order, dl, plan, "tvm", [&](int32_t a, int32_t b) {
    if (conflicts_first && deg[a] != deg[b]) return deg[a] > deg[b];
    if (recs[a].size != recs[b].size) return recs[a].size > recs[b].size;
    if (!conflicts_first && deg[a] != deg[b]) return deg[a] > deg[b];
    return recs[a].name > recs[b].name;
  });
}

// PostSortAllocation (§2.1): each buffer goes on top of the highest placed conflict,
// aligned with that conflict's alignment (source quirk); we also round up to the buffer's
// own alignment so the plan is valid. Gaps below are never reused.
Plan stack_on_top(const std::vector<Rec>& recs, const std::vector<int32_t>& order,
                  const Deadline& dl) {
  Plan plan;
  plan.offsets.assign(recs.size(), -1);
  OverlapIndex placed(recs, &dl);
  if (!index_or_give_up(placed, plan, "tvm greedy")) return plan;
  auto commit = [&](int32_t i, int64_t off) {
    plan.offsets[i] = off;
    placed.insert(i);
    plan.total = std::max(plan.total, sat_add(off, recs[i].size));
  };
  for (int32_t i = 0; i < static_cast<int32_t>(recs.size()); ++i)
    if (recs[i].fixed >= 0) commit(i, recs[i].fixed);
  int64_t steps = 0;
  for (int32_t i : order) {
    if (out_of_time(dl, steps, plan, "tvm greedy")) return plan;
    int64_t off = 0;
    placed.for_each(recs[i].start, recs[i].end, [&](int32_t c) {
      off = std::max(off, round_up(sat_add(plan.offsets[c], recs[c].size), recs[c].align));
    });
    commit(i, round_up(off, recs[i].align));
  }
  return plan;
}

// glibc's rand_r: three steps of the LCG x = x * 1103515245 + 12345, 11 + 10 + 10 bits.
int rand_r_compat(uint32_t& state) {
  uint32_t next = state;
  next = next * 1103515245u + 12345u;
  int result = static_cast<int>((next / 65536u) % 2048u);
  next = next * 1103515245u + 12345u;
  result = (result << 10) ^ static_cast<int>((next / 65536u) % 1024u);
  next = next * 1103515245u + 12345u;
  result = (result << 10) ^ static_cast<int>((next / 65536u) % 1024u);
  state = next;
  return result;
}

}  // namespace

Plan tvm_greedy_by_size(const std::vector<Rec>& recs, const Deadline& dl) {
  std::vector<int32_t> order;
  Plan plan;
  return tvm_order(recs, false, dl, order, plan) ? stack_on_top(recs, order, dl) : plan;
}

Plan tvm_greedy_by_conflicts(const std::vector<Rec>& recs, const Deadline& dl) {
  std::vector<int32_t> order;
  Plan plan;
  return tvm_order(recs, true, dl, order, plan) ? stack_on_top(recs, order, dl) : plan;
}

Plan tvm_hill_climb(const std::vector<Rec>& recs, uint32_t seed, const Deadline& dl,
                    int max_attempts) {
  const int32_t n = static_cast<int32_t>(recs.size());
  // The memory pressure first (its poll is tested by a deadline already passed).
  const int64_t memory_pressure = live_peak(recs, &dl);
  if (memory_pressure < 0) {
    Plan gave_up;
    gave_up.complete = false;
    gave_up.detail = "time limit (tvm memory pressure)";
    return gave_up;
  }
  std::vector<int32_t> order;
  if (Plan unsorted; !tvm_order(recs, false, dl, order, unsorted)) return unsorted;
  const int32_t m = static_cast<int32_t>(order.size());
  OverlapIndex placed(recs, &dl);
  if (Plan gave_up; !index_or_give_up(placed, gave_up, "tvm hill climb")) return gave_up;
  std::vector<Hit> hits;
  std::vector<int64_t> seq(n);
  for (int32_t i = 0; i < n; ++i) seq[i] = i;  // conflicts with equal offsets: by index
  // Inner greedy: first fit among placed conflicts sorted by offset (§2.4).
  // Abandons the pass (complete = false) when the deadline passes, the first one too: then
  // there is no plan (Y_1's first pass alone takes about 11 s).
  auto evaluate = [&](const std::vector<int32_t>& ord) {
    Plan p;
    p.offsets.assign(n, -1);
    placed.clear();
    auto commit = [&](int32_t i, int64_t off) {
      p.offsets[i] = off;
      placed.insert(i);
      p.total = std::max(p.total, sat_add(off, recs[i].size));
    };
    for (int32_t i = 0; i < n; ++i)
      if (recs[i].fixed >= 0) commit(i, recs[i].fixed);
    int64_t steps = 0;
    for (int32_t i : ord) {
      if (out_of_time(dl, steps, p, "tvm hill climb")) return p;
      hits_by_offset(placed, recs[i].start, recs[i].end, p.offsets, seq, hits);
      int64_t cand = 0;
      for (const Hit& h : hits) {
        const int64_t c_end = round_up(sat_add(h.offset, recs[h.idx].size), recs[h.idx].align);
        if (sat_add(cand, recs[i].size) > h.offset && c_end > cand)
          cand = round_up(c_end, recs[i].align);
      }
      commit(i, cand);
    }
    return p;
  };
  uint32_t state = seed;
  Plan current;  // last accepted
  int64_t best_total = 0;
  int32_t swap1 = -1, swap2 = -1;  // positions of the last swap (kept across iterations)
  std::vector<int32_t> pos(n, -1);
  std::vector<int32_t> first_level, tops;
  PositionCounts second_level;  // positions, sorted by counting (see common.h)
  int attempts = 0;
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    if (attempt > 1 && dl.expired()) break;
    attempts = attempt;
    Plan p = evaluate(order);
    if (!p.complete) {
      if (attempt == 1) return p;  // no accepted plan
      break;
    }
    bool accept = attempt == 1;
    if (!accept) {
      if (p.total < best_total) {
        accept = true;
      } else {
        // Integer arithmetic as in the source: floor(50 * regression / total) / attempt.
        const int64_t bar = (50 * (p.total - best_total) / std::max<int64_t>(1, p.total)) / attempt;
        accept = (rand_r_compat(state) % 100) < bar;
      }
    }
    if (accept) {
      current = std::move(p);
      best_total = current.total;
      if (best_total <= memory_pressure) break;
    } else if (swap1 >= 0) {
      std::swap(order[swap1], order[swap2]);  // undo the last swap (even a stale one)
    }
    if (m < 2) break;
    // Perturb around a buffer whose top is the peak.
    for (int32_t k = 0; k < m; ++k) pos[order[k]] = k;
    tops.clear();
    for (int32_t k = 0; k < m; ++k)
      if (sat_add(current.offsets[order[k]], recs[order[k]].size) == current.total)
        tops.push_back(order[k]);
    if (tops.empty()) continue;  // the peak is a pre-placed buffer
    const int32_t node = tops[rand_r_compat(state) % tops.size()];
    first_level.clear();
    second_level.reset(m);
    placed.clear();
    for (int32_t i : order) placed.insert(i);
    const std::vector<int32_t> conflicts = placed.query(recs[node].start, recs[node].end);
    for (int32_t c1 : conflicts) {
      if (c1 == node) continue;
      if (pos[c1] < pos[node]) first_level.push_back(pos[c1]);
      placed.for_each(recs[c1].start, recs[c1].end, [&](int32_t c2) {
        if (c2 != c1 && pos[c2] < pos[c1]) second_level.add(pos[c2]);
      });
      if (dl.expired()) break;
    }
    if (first_level.empty()) continue;  // no swap: a later rejection re-undoes the old one
    std::sort(first_level.begin(), first_level.end());
    second_level.seal();
    const int32_t s1 = first_level[rand_r_compat(state) % first_level.size()];
    int32_t s2 = s1;
    for (int guard = 0; s2 == s1 && guard < 1000; ++guard) {
      if (first_level.size() < 2 && second_level.size() < 2) break;
      if (second_level.size() > 0 && rand_r_compat(state) % 100 > 25)
        s2 = second_level.kth(rand_r_compat(state) % second_level.size());
      else
        s2 = first_level[rand_r_compat(state) % first_level.size()];
    }
    if (s2 == s1) continue;
    swap1 = s1;
    swap2 = s2;
    std::swap(order[swap1], order[swap2]);
  }
  current.detail = "attempts=" + std::to_string(attempts);
  return current;
}

void register_tvm(std::vector<SolverInfo>& out) {
  add_solver(out, "tvm-greedy-by-size",
             "TVM USMP greedy_by_size: size desc, stacked on the highest placed conflict",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return tvm_greedy_by_size(recs, dl);
             });
  add_solver(out, "tvm-greedy-by-conflicts",
             "TVM USMP greedy_by_conflicts: #conflicts desc, stacked on the highest conflict",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return tvm_greedy_by_conflicts(recs, dl);
             });
  add_solver(out, "tvm-hill-climb",
             "TVM USMP hill_climb: 500 order swaps, first fit, returns the last accepted plan",
             [](const std::vector<Rec>& recs, const SolveOptions& opt, const Deadline& dl) {
               // rand_r state = seed - 1, so the default seed 1 gives TVM's fixed seed 0.
               return tvm_hill_climb(recs, static_cast<uint32_t>(opt.seed - 1), dl);
             });
}

}  // namespace memplan::baselines
