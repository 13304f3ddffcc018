#include "solvers/baselines/common.h"

#include <algorithm>
#include <limits>

#include "core/arith.h"
#include "core/polled.h"
#include "memplan/timeline.h"

namespace memplan::baselines {

int64_t round_up(int64_t x, int64_t a) {
  if (a <= 1) return x;
  const int64_t r = x % a;
  return r == 0 ? x : sat_add(x, a - r);
}

std::vector<Rec> records_of(const Problem& p, const Deadline* deadline) {
  std::vector<Rec> recs(p.buffers.size());
  Poll poll(deadline);
  for (size_t i = 0; i < recs.size(); ++i) {
    if (poll()) return {};
    const Buffer& b = p.buffers[i];
    recs[i].size = b.size;
    recs[i].start = b.start;
    recs[i].end = b.end;
    recs[i].align = std::max<int64_t>(1, b.alignment);
    recs[i].fixed = b.offset ? *b.offset : -1;
    recs[i].name = b.id;
  }
  return recs;
}

int64_t Objects::total() const {
  int64_t t = 0;
  for (int64_t s : sizes) t = sat_add(t, s);
  return t;
}

Plan objects_to_offsets(const std::vector<Rec>& recs, const Objects& obj, int64_t base) {
  if (!obj.complete) {
    Plan gave_up;
    gave_up.complete = false;
    gave_up.detail = obj.detail;
    return gave_up;
  }
  std::vector<int64_t> align(obj.sizes.size(), 1);
  for (size_t i = 0; i < recs.size(); ++i)
    align[obj.ids[i]] = std::max(align[obj.ids[i]], recs[i].align);
  std::vector<int64_t> start(obj.sizes.size());
  int64_t top = base;
  for (size_t k = 0; k < obj.sizes.size(); ++k) {
    start[k] = round_up(top, align[k]);
    top = sat_add(start[k], obj.sizes[k]);
  }
  Plan plan;
  plan.complete = obj.complete;
  plan.detail = obj.detail;
  plan.offsets.resize(recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    plan.offsets[i] = start[obj.ids[i]];
    plan.total = std::max(plan.total, sat_add(plan.offsets[i], recs[i].size));
  }
  return plan;
}

Plan with_fixed_below(const std::vector<Rec>& recs,
                      const std::function<Plan(const std::vector<Rec>&)>& algo) {
  std::vector<Rec> free_recs;
  std::vector<int32_t> free_idx;
  int64_t base = 0, max_align = 1;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].fixed >= 0) {
      base = std::max(base, sat_add(recs[i].fixed, recs[i].size));
    } else {
      free_recs.push_back(recs[i]);
      free_idx.push_back(static_cast<int32_t>(i));
      max_align = std::max(max_align, recs[i].align);
    }
  }
  if (free_idx.size() == recs.size()) return algo(recs);
  base = round_up(base, max_align);
  Plan sub = algo(free_recs);
  Plan plan;
  plan.complete = sub.complete;
  plan.detail = sub.detail;
  plan.offsets.assign(recs.size(), 0);
  for (size_t i = 0; i < recs.size(); ++i)
    if (recs[i].fixed >= 0) {
      plan.offsets[i] = recs[i].fixed;
      plan.total = std::max(plan.total, sat_add(recs[i].fixed, recs[i].size));
    }
  if (!sub.complete) return plan;
  for (size_t k = 0; k < free_idx.size(); ++k) {
    plan.offsets[free_idx[k]] = sat_add(base, sub.offsets[k]);
    plan.total = std::max(plan.total, sat_add(plan.offsets[free_idx[k]], free_recs[k].size));
  }
  return plan;
}

namespace {

// The timeline module's stop callback for a deadline (empty: never stops).
std::function<bool()> stop_of(const Deadline* deadline) {
  if (!deadline) return {};
  return [deadline] { return deadline->expired(); };
}

}  // namespace

std::vector<int64_t> conflict_counts(const std::vector<Rec>& recs, const Deadline* deadline) {
  std::vector<int64_t> start, end;
  for (const Rec& r : recs) start.push_back(r.start), end.push_back(r.end);
  const std::vector<int32_t> d = overlap_degrees(start, end, stop_of(deadline));
  return std::vector<int64_t>(d.begin(), d.end());
}

int64_t live_peak(const std::vector<Rec>& recs, const Deadline* deadline) {
  std::vector<int64_t> start, end, size;
  for (const Rec& r : recs) start.push_back(r.start), end.push_back(r.end), size.push_back(r.size);
  const Sections s = sections_of(start, end, size, stop_of(deadline));
  if (!recs.empty() && s.lo.empty()) return -1;  // stopped
  return s.total.empty() ? 0 : std::max<int64_t>(0, *std::max_element(s.total.begin(), s.total.end()));
}

OverlapIndex::OverlapIndex(const std::vector<Rec>& recs, const Deadline* deadline) : recs_(&recs) {
  const int32_t n = static_cast<int32_t>(recs.size());
  by_start_.resize(n);
  for (int32_t i = 0; i < n; ++i) by_start_[i] = i;
  if (!sort_until(by_start_, [&](int32_t a, int32_t b) { return recs[a].start < recs[b].start; }, deadline)) {
    complete_ = false;
    return;
  }
  pos_of_.resize(n);
  starts_.resize(n);
  for (int32_t k = 0; k < n; ++k) {
    pos_of_[by_start_[k]] = k;
    starts_[k] = recs[by_start_[k]].start;
  }
  while (leaves_ < std::max(n, 1)) leaves_ *= 2;
  tree_.assign(2 * leaves_, std::numeric_limits<int64_t>::min());
}

void OverlapIndex::set(int32_t pos, int64_t value) {
  int32_t k = pos + leaves_;
  tree_[k] = value;
  for (k /= 2; k >= 1; k /= 2) tree_[k] = std::max(tree_[2 * k], tree_[2 * k + 1]);
}

void OverlapIndex::insert(int32_t i) { set(pos_of_[i], (*recs_)[i].end); }
void OverlapIndex::insert_all() {
  for (size_t k = 0; k < by_start_.size(); ++k) tree_[leaves_ + k] = (*recs_)[by_start_[k]].end;
  for (int32_t k = leaves_ - 1; k >= 1; --k) tree_[k] = std::max(tree_[2 * k], tree_[2 * k + 1]);
}
void OverlapIndex::erase(int32_t i) { set(pos_of_[i], std::numeric_limits<int64_t>::min()); }
void OverlapIndex::clear() { std::fill(tree_.begin(), tree_.end(), std::numeric_limits<int64_t>::min()); }

int32_t OverlapIndex::limit_of(int64_t end) const {
  return static_cast<int32_t>(std::lower_bound(starts_.begin(), starts_.end(), end) -
                              starts_.begin());
}

void hits_by_offset(const OverlapIndex& index, int64_t start, int64_t end,
                    const std::vector<int64_t>& offsets, const std::vector<int64_t>& seq,
                    std::vector<Hit>& out) {
  out.clear();
  index.for_each(start, end, [&](int32_t j) { out.push_back({offsets[j], seq[j], j}); });
  std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.seq < b.seq;
  });
}

std::vector<int32_t> OverlapIndex::query(int64_t start, int64_t end) const {
  std::vector<int32_t> out;
  for_each(start, end, [&](int32_t j) { out.push_back(j); });
  return out;
}

SolveResult to_result(const Problem& p, const SolveOptions& opt, const Plan& plan) {
  if (!plan.complete) {
    SolveResult r;
    r.status = Status::kNoPlan;
    r.detail = plan.detail.empty() ? "gave up" : plan.detail;
    return r;
  }
  Solution s;
  s.offsets = plan.offsets;
  s.peak = peak_of(p, s.offsets);
  SolveResult r = result_from_plan(p, opt, std::move(s));
  r.iterations = 1;
  if (!plan.detail.empty()) r.detail = plan.detail;
  return r;
}

void add_solver(std::vector<SolverInfo>& out, const std::string& name,
                const std::string& description,
                std::function<Plan(const std::vector<Rec>&, const SolveOptions&,
                                   const Deadline&)> algo) {
  out.push_back({name, description, [algo](const Problem& p, const SolveOptions& opt) {
                   const Deadline deadline(opt.time_limit_seconds, opt.cancel);
                   const std::vector<Rec> recs = records_of(p, &deadline);
                   if (deadline.expired()) {  // (1M buffers: 0.2 s to copy)
                     SolveResult r;
                     r.detail = "time limit (records)";
                     return r;
                   }
                   return to_result(p, opt, algo(recs, opt, deadline));
                 }});
}

InsertionList::InsertionList(const std::vector<Rec>& r, Plan& p, const Deadline& dl, const char* who)
    : recs(r), plan(p), placed(r, &dl), seq(r.size(), -1) {
  plan.offsets.assign(r.size(), -1);
  index_or_give_up(placed, plan, who);
}

void InsertionList::commit(int32_t i, int64_t offset) {
  plan.offsets[i] = offset;
  seq[i] = next_seq++;
  placed.insert(i);
  plan.total = std::max(plan.total, sat_add(offset, recs[i].size));
}

std::vector<int32_t> InsertionList::commit_fixed() {
  std::vector<int32_t> rest;
  for (int32_t i = 0; i < static_cast<int32_t>(recs.size()); ++i) {
    if (recs[i].fixed >= 0) commit(i, recs[i].fixed);
    else rest.push_back(i);
  }
  return rest;
}

}  // namespace memplan::baselines
