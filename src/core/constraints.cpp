#include "memplan/constraints.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "core/arith.h"
#include "core/polled.h"
#include "memplan/bounds.h"

namespace memplan {
namespace {

[[noreturn]] void fail(size_t buffer, const char* field, const std::string& msg) {
  throw ConstraintError(buffer, field, msg);
}

// One buffer with the exact footprint of in-place members sharing an offset: at each instant
// it occupies [0, largest present member size) (a member is absent in its gaps: none of them
// has a window, inplace_chains).
Buffer merge_chain(const Problem& p, const std::vector<int32_t>& members) {
  const Buffer& head = p.buffers[members.front()];
  Buffer m;
  m.id = head.id;
  m.start = head.start;
  m.end = head.end;
  for (int32_t i : members) {
    const Buffer& b = p.buffers[i];
    if (members.size() > 1) m.id += (i == members.front() ? "" : "+" + b.id);
    m.start = std::min(m.start, b.start);
    m.end = std::max(m.end, b.end);
    m.size = std::max(m.size, b.size);
    m.alignment = std::max(m.alignment, b.alignment);
    if (b.offset) {
      if (m.offset && *m.offset != *b.offset)
        fail(static_cast<size_t>(i), "offset", "in-place chain of '" + head.id + "': fixed offsets " + std::to_string(*m.offset) +
             " and " + std::to_string(*b.offset) + " disagree");
      m.offset = b.offset;
    }
  }
  if (members.size() == 1) return p.buffers[members.front()];
  std::vector<int64_t> cuts;
  for (int32_t i : members) {
    cuts.push_back(p.buffers[i].start), cuts.push_back(p.buffers[i].end);
    for (const Gap& g : p.buffers[i].gaps) cuts.push_back(g.start), cuts.push_back(g.end);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    int64_t width = 0;
    for (int32_t i : members)
      if (present_at(p.buffers[i], cuts[k])) width = std::max(width, p.buffers[i].size);
    if (width == m.size) continue;
    Gap g{cuts[k], cuts[k + 1], width > 0, 0, width};
    if (!m.gaps.empty() && m.gaps.back().end == g.start && m.gaps.back().has_window == g.has_window &&
        m.gaps.back().window_hi == g.window_hi)
      m.gaps.back().end = g.end;
    else
      m.gaps.push_back(g);
  }
  return m;
}

// In-place chains in order head -> tail, every buffer in exactly one chain (most of length 1).
// Empty, with `stopped` set, once `poll` says the deadline has passed (1M buffers: the id
// index alone is ~0.2 s of CPU).
std::vector<std::vector<int32_t>> inplace_chains(const Problem& p, Poll& poll, bool& stopped) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  stopped = true;
  std::unordered_map<std::string, int32_t> index;
  for (int32_t i = 0; i < n; ++i) {
    if (poll()) return {};
    index.emplace(p.buffers[i].id, i);
  }
  std::vector<int32_t> pred(n, -1), succ(n, -1);
  for (int32_t i = 0; i < n; ++i) {
    if (poll()) return {};
    const Buffer& b = p.buffers[i];
    if (b.inplace_of.empty()) continue;
    auto it = index.find(b.inplace_of);
    if (it == index.end()) fail(static_cast<size_t>(i), "inplace", "buffer '" + b.id + "': inplace_of '" + b.inplace_of + "' is not a buffer");
    const int32_t a = it->second;
    if (a == i) fail(static_cast<size_t>(i), "inplace", "buffer '" + b.id + "': inplace_of names itself");
    if (succ[a] >= 0)
      fail(static_cast<size_t>(i), "inplace", "buffer '" + b.id + "': '" + b.inplace_of + "' is already reused in place by '" +
           p.buffers[succ[a]].id + "'");
    // Absences (gaps without a window, as swapping makes) merge into the chain's footprint;
    // a window would make it other than a prefix [0, w) of the shared offset.
    auto windowed = [](const Buffer& x) {
      return std::any_of(x.gaps.begin(), x.gaps.end(), [](const Gap& g) { return g.has_window; });
    };
    if (windowed(b) || windowed(p.buffers[a]))
      fail(static_cast<size_t>(i), "inplace", "buffer '" + b.id + "': gaps with windows cannot be combined with in-place reuse");
    if (!b.group.empty() || !p.buffers[a].group.empty())
      fail(static_cast<size_t>(i), "inplace", "buffer '" + b.id + "': contiguous groups cannot be combined with in-place reuse");
    pred[i] = a;
    succ[a] = i;
  }
  std::vector<std::vector<int32_t>> chains;
  std::vector<bool> seen(n, false);
  for (int32_t i = 0; i < n; ++i) {
    if (poll()) return {};
    if (pred[i] >= 0) continue;
    std::vector<int32_t> chain;
    for (int32_t k = i; k >= 0; k = succ[k]) chain.push_back(k), seen[k] = true;
    chains.push_back(std::move(chain));
  }
  for (int32_t i = 0; i < n; ++i)
    if (!seen[i]) fail(static_cast<size_t>(i), "inplace", "buffer '" + p.buffers[i].id + "': in-place reuse forms a cycle");
  stopped = false;
  return chains;
}

}  // namespace

bool has_constraints(const Problem& p) {
  for (const Buffer& b : p.buffers)
    if (!b.inplace_of.empty() || !b.group.empty()) return true;
  return false;
}

Lowering lower_constraints(const Problem& p, const Deadline* deadline) {
  Lowering l;
  l.problem.capacity = p.capacity;
  const size_t n = p.buffers.size();
  l.rep.assign(n, -1);
  l.delta.assign(n, 0);
  Poll poll(deadline);
  bool stopped = false;
  const auto stop = [&] {
    l.complete = false;
    return l;
  };
  const std::vector<std::vector<int32_t>> chains = inplace_chains(p, poll, stopped);
  if (stopped) return stop();
  for (const auto& chain : chains) {
    if (poll()) return stop();
    if (chain.size() == 1 && !p.buffers[chain[0]].group.empty()) continue;  // grouped below
    for (int32_t i : chain) l.rep[i] = static_cast<int32_t>(l.problem.buffers.size());
    l.problem.buffers.push_back(merge_chain(p, chain));
  }
  std::map<std::string, std::vector<int32_t>> groups;
  for (size_t i = 0; i < n; ++i) {
    if (poll()) return stop();
    if (!p.buffers[i].group.empty()) groups[p.buffers[i].group].push_back(static_cast<int32_t>(i));
  }
  for (auto& [name, members] : groups) {
    if (poll()) return stop();
    std::stable_sort(members.begin(), members.end(), [&](int32_t a, int32_t b) {
      return p.buffers[a].group_index < p.buffers[b].group_index;
    });
    for (size_t k = 1; k < members.size(); ++k)  // the layout order would be the input's: refused
      if (p.buffers[members[k]].group_index == p.buffers[members[k - 1]].group_index)
        fail(static_cast<size_t>(members[k]), "group", "group '" + name + "': members '" + p.buffers[members[k - 1]].id + "' and '" +
                                      p.buffers[members[k]].id + "' have the same index " +
                                      std::to_string(p.buffers[members[k]].group_index));
    Buffer g;
    g.id = "group:" + name;
    g.start = p.buffers[members[0]].start;
    g.end = p.buffers[members[0]].end;
    int64_t prefix = 0;
    std::optional<int64_t> base;
    for (int32_t i : members) {
      const Buffer& b = p.buffers[i];
      if (prefix % b.alignment != 0)
        fail(static_cast<size_t>(i), "group", "group '" + name + "': member '" + b.id + "' sits " + std::to_string(prefix) +
             " bytes into the group, not a multiple of its alignment " + std::to_string(b.alignment));
      if (b.offset) {
        if (*b.offset < prefix || (base && *base != *b.offset - prefix))
          fail(static_cast<size_t>(i), "group", "group '" + name + "': fixed offset of '" + b.id + "' contradicts the group layout");
        base = *b.offset - prefix;
      }
      g.start = std::min(g.start, b.start);
      g.end = std::max(g.end, b.end);
      g.alignment = std::max(g.alignment, b.alignment);
      l.rep[i] = static_cast<int32_t>(l.problem.buffers.size());
      l.delta[i] = prefix;
      prefix = sat_add(prefix, b.size);
    }
    g.size = prefix;
    if (base) {
      g.offset = base;
      // A fixed base need only honour each member's own alignment (checked above).
      g.alignment = 1;
    }
    l.problem.buffers.push_back(std::move(g));
  }
  return l;
}

std::vector<int64_t> lift_offsets(const Lowering& l, const std::vector<int64_t>& lowered) {
  std::vector<int64_t> out(l.rep.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = lowered[l.rep[i]] + l.delta[i];
  return out;
}

std::vector<Buffer> inplace_merged(const Problem& p, std::vector<std::vector<int32_t>>* chains) {
  Poll never(nullptr);
  bool stopped = false;
  std::vector<std::vector<int32_t>> found = inplace_chains(p, never, stopped);
  std::vector<Buffer> out;
  for (const auto& chain : found) out.push_back(merge_chain(p, chain));
  if (chains) *chains = std::move(found);
  return out;
}

int64_t constrained_lower_bound(const Problem& p) {
  Problem merged;
  merged.buffers = inplace_merged(p);
  return compute_load(merged);
}

}  // namespace memplan
