#include <algorithm>
#include <cstring>
#include <map>

#include "memplan/arena.h"
#include "memplan/swap.h"

namespace memplan {

namespace {

std::byte pattern(size_t buffer, size_t j) {
  return static_cast<std::byte>((buffer * 131 + j * 7 + 1) & 0xFF);
}

}  // namespace

std::string execute_swaps(const Problem& original, const SwapResult& plan) {
  if (!plan.solution) return "no plan";
  const Problem& q = plan.problem;
  const Arena arena(q, *plan.solution);  // validates the plan with the evictions as gaps
  const size_t n = original.buffers.size();
  // Each input buffer's planned buffers (pieces in split mode), by start: the holder at
  // step t is the last one starting at or before t.
  std::vector<std::vector<size_t>> pieces(n);
  for (size_t k = 0; k < q.buffers.size(); ++k) pieces[plan.origin[k]].push_back(k);
  for (auto& v : pieces)
    std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return q.buffers[a].start < q.buffers[b].start; });
  auto holder = [&](size_t i, int64_t t) {
    const auto& v = pieces[i];
    auto it = std::upper_bound(v.begin(), v.end(), t, [&](int64_t x, size_t k) { return x < q.buffers[k].start; });
    return it == v.begin() ? SIZE_MAX : *(it - 1);
  };
  auto bytes = [&](size_t i) { return static_cast<size_t>(original.buffers[i].size); };
  // The events of each step, in the order they happen within it (only steps with events
  // are visited: lifetimes may span far more steps than there are buffers).
  // (kReadInPlace: the use of a buffer by the operator that overwrites it in place, at its
  // successor's first step: read before that successor's bytes are written, and after a
  // copy of its own coming back that step. Copies in land before anything is produced: in
  // a valid plan nothing produced at that step shares their bytes but an in-place successor.)
  enum Kind { kCopiedOut, kGone, kCopiedIn, kReadInPlace, kProduced, kUsed };
  struct Event {
    int64_t t;
    Kind kind;
    size_t what;  // transfer, planned buffer, or input buffer
  };
  std::vector<Event> events;
  std::map<std::string, int64_t> overwritten_at;  // buffer id -> its in-place successor's start
  std::map<std::string, int64_t> kept_bytes;      // ... and its size: bytes not freed at the end
  for (const Buffer& b : original.buffers)
    if (!b.inplace_of.empty()) overwritten_at[b.inplace_of] = b.start, kept_bytes[b.inplace_of] = b.size;
  for (size_t x = 0; x < plan.transfers.size(); ++x)
    events.push_back({plan.transfers[x].end, plan.transfers[x].out ? kCopiedOut : kCopiedIn, x});
  for (size_t k = 0; k < q.buffers.size(); ++k) {
    events.push_back({q.buffers[k].end, kGone, k});  // a split piece ends
    for (const Gap& g : q.buffers[k].gaps)
      if (!g.has_window) events.push_back({g.start, kGone, k});
  }
  for (size_t i = 0; i < n; ++i) {
    events.push_back({original.buffers[i].start, kProduced, i});
    const auto it = overwritten_at.find(original.buffers[i].id);
    for (int64_t u : uses_of(original.buffers[i]))
      events.push_back({u, it != overwritten_at.end() && it->second == u ? kReadInPlace : kUsed, i});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.t != b.t ? a.t < b.t : a.kind < b.kind;
  });
  std::map<size_t, std::vector<std::byte>> host;
  for (const Event& e : events) {
    switch (e.kind) {
      case kCopiedOut: {  // a copy out completes: the host has the bytes
        const Transfer& x = plan.transfers[e.what];
        const std::byte* from = arena.data(holder(x.buffer, x.start));
        host[x.buffer].assign(from, from + bytes(x.buffer));
        break;
      }
      case kGone: {  // an absence begins (or a piece ends): the bytes are free, but for those
                     // an in-place successor took over (same offset; never split or evicted)
        const auto it = kept_bytes.find(q.buffers[e.what].id);
        const int64_t from = it == kept_bytes.end() ? 0 : std::min(it->second, q.buffers[e.what].size);
        std::memset(arena.data(e.what) + from, 0xEE, static_cast<size_t>(q.buffers[e.what].size - from));
        break;
      }
      case kProduced:  // a buffer is produced
        for (size_t j = 0; j < bytes(e.what); ++j) arena.data(holder(e.what, e.t))[j] = pattern(e.what, j);
        break;
      case kCopiedIn: {  // a copy in has written the bytes back
        const Transfer& x = plan.transfers[e.what];
        const auto it = host.find(x.buffer);
        if (it == host.end())
          return "step " + std::to_string(e.t) + ": buffer " + original.buffers[x.buffer].id + ": copied in before any copy out";
        std::memcpy(arena.data(holder(x.buffer, x.start)), it->second.data(), it->second.size());
        break;
      }
      case kReadInPlace:
      case kUsed: {  // every use reads intact bytes
        const std::byte* at = arena.data(holder(e.what, e.t));
        for (size_t j = 0; j < bytes(e.what); ++j)
          if (at[j] != pattern(e.what, j))
            return "step " + std::to_string(e.t) + ": buffer " + original.buffers[e.what].id + ": bytes differ at byte " +
                   std::to_string(j);
        break;
      }
    }
  }
  return "";
}

}  // namespace memplan
