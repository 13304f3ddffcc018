// The scheduler's memory model, read off the graph once; the step-by-step sweep that
// scores orders; the split into blocks at cut operators.
#include "schedule/model.h"

#include <algorithm>

#include "core/arith.h"
#include "memplan/io.h"

namespace memplan::sched {

namespace {

// Appends row `items` to a Csr.
void push_row(Csr& c, const std::vector<int32_t>& items) {
  c.items.insert(c.items.end(), items.begin(), items.end());
  c.off.push_back(static_cast<int32_t>(c.items.size()));
}

}  // namespace

Model build_model(const Graph& g, const LowerOptions& opt) {
  Model m;
  const auto nt = static_cast<int32_t>(g.tensors.size());
  m.n = static_cast<int32_t>(g.ops.size());
  m.gorder = graph_order(g);
  m.pos.assign(m.n, 0);
  for (int32_t k = 0; k < m.n; ++k) m.pos[m.gorder[k]] = k;

  // Families: a view's base is its viewed input's base (producers run first in gorder).
  std::vector<int32_t> base(nt);
  for (int32_t t = 0; t < nt; ++t) base[t] = t;
  for (int32_t o : m.gorder) {
    const Operator& op = g.ops[o];
    for (size_t j = 0; j < op.view_of.size(); ++j)
      if (op.view_of[j] >= 0) base[op.outputs[j]] = base[op.inputs[op.view_of[j]]];
  }
  m.bytes.assign(nt, 0);
  m.pinned.assign(nt, 0);
  m.uses.assign(nt, 0);
  for (int32_t t = 0; t < nt; ++t) {
    const Tensor& x = g.tensors[t];
    if (x.kind == TensorKind::kOutput || x.kind == TensorKind::kWeight) m.pinned[base[t]] = 1;
    if (base[t] != t) continue;
    if (x.kind == TensorKind::kWeight && !opt.include_weights) continue;
    if (x.bytes < 0) {
      const std::string by = x.producer >= 0 ? ", produced by operator '" + g.ops[x.producer].name + "'" : "";
      throw InputError("tensor '" + x.name + "'" + by + ": size unknown");
    }
    m.bytes[t] = x.bytes;
  }

  // Per operator: distinct families read, families born, in-place candidates, edges.
  std::vector<int32_t> seen(nt, -1), seen_op(m.n, -1);
  std::vector<int32_t> row;
  std::vector<std::vector<int32_t>> succ(m.n);
  m.alloc.assign(m.n, 0);
  m.scratch.assign(m.n, 0);
  for (int32_t o = 0; o < m.n; ++o) {
    const Operator& op = g.ops[o];
    row.clear();
    for (int32_t t : op.inputs)
      if (seen[base[t]] != o) {
        seen[base[t]] = o;
        row.push_back(base[t]);
        ++m.uses[base[t]];
      }
    push_row(m.reads, row);
    row.clear();
    for (size_t j = 0; j < op.outputs.size(); ++j)
      if (op.view_of.empty() || op.view_of[j] < 0) {
        row.push_back(op.outputs[j]);
        m.alloc[o] += m.bytes[op.outputs[j]];
      }
    push_row(m.born, row);
    // The lowering's in-place rule, less its order-dependent part (the input dies here).
    row.clear();
    for (size_t j = 0; opt.inplace && j < op.may_overwrite.size(); ++j) {
      const int32_t p = op.may_overwrite[j];
      if (p < 0 || (!op.view_of.empty() && op.view_of[j] >= 0)) continue;
      const int32_t in = op.inputs[p], out = op.outputs[j], f = base[in];
      if (m.bytes[f] <= 0 || m.bytes[out] <= 0) continue;
      if (g.tensors[f].kind != TensorKind::kActivation) continue;
      if (g.tensors[f].bytes != g.tensors[out].bytes) continue;
      bool shared = false;
      for (int32_t other : op.inputs) shared |= other != in && base[other] == f;
      if (shared || std::find(row.begin(), row.end(), f) != row.end()) continue;
      row.push_back(f);
    }
    push_row(m.inplace, row);
    m.scratch[o] = op.scratch_bytes;
    row.clear();
    for (int32_t t : op.inputs) {
      const int32_t p = g.tensors[t].producer;
      if (p >= 0 && seen_op[p] != o) {
        seen_op[p] = o;
        row.push_back(p);
        succ[p].push_back(o);
      }
    }
    push_row(m.preds, row);
  }
  for (int32_t o = 0; o < m.n; ++o) push_row(m.succs, succ[o]);
  for (int32_t t = 0; t < nt; ++t)
    if (base[t] == t && g.tensors[t].producer < 0) {
      m.initial_live += m.bytes[t];
      if (m.uses[t] == 0 && !m.pinned[t]) m.initial_unused += m.bytes[t];
    }
  return m;
}

Sweep::Sweep(const Model& m) : m_(m), remaining_(m.uses), live_(m.initial_live) {}

bool Sweep::dies_here(int32_t f) const {
  return m_.pinned[f] ? step_ == m_.n - 1 : remaining_[f] == 1;
}

int64_t Sweep::savings(int32_t v) const {
  int64_t s = 0;
  for (const int32_t* f = m_.inplace.begin(v); f != m_.inplace.end(v); ++f)
    if (dies_here(*f)) s += m_.bytes[*f];
  return s;
}

int64_t Sweep::freed(int32_t v) const {
  int64_t s = 0;
  for (const int32_t* f = m_.reads.begin(v); f != m_.reads.end(v); ++f)
    if (!m_.pinned[*f] && remaining_[*f] == 1) s += m_.bytes[*f];
  return s;
}

int64_t Sweep::mem(int32_t v) const { return live_ + m_.alloc[v] + m_.scratch[v] - savings(v); }

void Sweep::run(int32_t v) {
  const int64_t here = mem(v);
  peak_ = std::max(peak_, here);
  // Saturating: each step's memory is at most the graph's total (< 2^61, checked on input),
  // but their sum over ~n steps need not fit in 64 bits; past it the tie-break is a tie.
  area_ = sat_add(area_, here);
  live_ += m_.alloc[v];
  for (const int32_t* f = m_.reads.begin(v); f != m_.reads.end(v); ++f) {
    if (--remaining_[*f] == 0 && !m_.pinned[*f]) live_ -= m_.bytes[*f];
    if (marked_) log_.push_back(*f);
  }
  for (const int32_t* f = m_.born.begin(v); f != m_.born.end(v); ++f)
    if (m_.uses[*f] == 0 && !m_.pinned[*f]) live_ -= m_.bytes[*f];
  if (step_ == 0) live_ -= m_.initial_unused;
  ++step_;
}

void Sweep::mark() {
  saved_ = {live_, peak_, area_, step_, 0};
  log_.clear();
  marked_ = true;
  peak_ = 0;
  area_ = 0;
}

void Sweep::rollback() {
  for (int32_t f : log_) ++remaining_[f];
  log_.clear();
  live_ = saved_.live;
  step_ = saved_.step;
  peak_ = 0;
  area_ = 0;
}

int64_t score(const Model& m, const std::vector<int32_t>& order) {
  if (m.n == 0) return m.initial_live;
  Sweep s(m);
  s.mark();
  for (int32_t v : order) s.run(v);
  return s.peak();
}

std::vector<int32_t> split_blocks(const Model& m) {
  const int32_t n = m.n;
  // cut[p]: (i) every edge leaving a node before p ends at or before p; (ii) every edge
  // entering a node after p starts at or after p; (iii) no sink before p, no source after p.
  std::vector<char> left(n + 1, 1), right(n + 1, 1);
  int32_t reach = -1;  // furthest successor position of the nodes before p
  bool sink_before = false;
  for (int32_t p = 0; p < n; ++p) {
    left[p] = !sink_before && reach <= p;
    const int32_t v = m.gorder[p];
    if (m.succs.size(v) == 0) sink_before = true;
    for (const int32_t* w = m.succs.begin(v); w != m.succs.end(v); ++w) reach = std::max(reach, m.pos[*w]);
  }
  int32_t from = n;  // earliest predecessor position of the nodes after p
  bool source_after = false;
  for (int32_t p = n - 1; p >= 0; --p) {
    right[p] = !source_after && from >= p;
    const int32_t v = m.gorder[p];
    if (m.preds.size(v) == 0) source_after = true;
    for (const int32_t* u = m.preds.begin(v); u != m.preds.end(v); ++u) from = std::min(from, m.pos[*u]);
  }
  std::vector<int32_t> bounds{0};
  for (int32_t p = 0; p < n; ++p)
    if (left[p] && right[p]) {
      if (bounds.back() != p) bounds.push_back(p);
      bounds.push_back(p + 1);
    }
  if (bounds.back() != n) bounds.push_back(n);
  return bounds;
}

int64_t step_lower_bound(const Model& m, int32_t v) {
  int64_t lb = m.alloc[v] + m.scratch[v];
  for (const int32_t* f = m.reads.begin(v); f != m.reads.end(v); ++f) lb += m.bytes[*f];
  for (const int32_t* f = m.inplace.begin(v); f != m.inplace.end(v); ++f) lb -= m.bytes[*f];
  return lb;
}

}  // namespace memplan::sched
