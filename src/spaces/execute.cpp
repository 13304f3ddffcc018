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
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (const Buffer& b : q.buffers) t0 = std::min(t0, b.start), t1 = std::max(t1, b.end);
  // Which planned buffer (a piece in split mode) holds input buffer i at step t.
  auto holder = [&](size_t i, int64_t t) {
    size_t h = SIZE_MAX;
    for (size_t k = 0; k < q.buffers.size(); ++k)
      if (plan.origin[k] == i && q.buffers[k].start <= t && (h == SIZE_MAX || q.buffers[k].start > q.buffers[h].start))
        h = k;
    return h;
  };
  auto bytes = [&](size_t i) { return static_cast<size_t>(original.buffers[i].size); };
  std::map<size_t, std::vector<std::byte>> host;
  for (int64_t t = t0; t < t1; ++t) {
    for (const Transfer& x : plan.transfers)  // a copy out completes: the host has the bytes
      if (x.out && x.end == t) {
        const std::byte* from = arena.data(holder(x.buffer, x.start));
        host[x.buffer].assign(from, from + bytes(x.buffer));
      }
    for (size_t k = 0; k < q.buffers.size(); ++k) {  // an absence begins: the bytes are free
      bool gone = q.buffers[k].end == t;  // a split piece ends
      for (const Gap& g : q.buffers[k].gaps) gone |= g.start == t && !g.has_window;
      if (gone) std::memset(arena.data(k), 0xEE, static_cast<size_t>(q.buffers[k].size));
    }
    for (size_t i = 0; i < original.buffers.size(); ++i)  // a buffer is produced
      if (original.buffers[i].start == t)
        for (size_t j = 0; j < bytes(i); ++j) arena.data(holder(i, t))[j] = pattern(i, j);
    for (const Transfer& x : plan.transfers)  // a copy in has written the bytes back
      if (!x.out && x.end == t) {
        const auto it = host.find(x.buffer);
        if (it == host.end())
          return "step " + std::to_string(t) + ": buffer " + original.buffers[x.buffer].id + ": copied in before any copy out";
        std::memcpy(arena.data(holder(x.buffer, x.start)), it->second.data(), it->second.size());
      }
    for (size_t i = 0; i < original.buffers.size(); ++i) {  // every use reads intact bytes
      const std::vector<int64_t> u = uses_of(original.buffers[i]);
      if (!std::binary_search(u.begin(), u.end(), t)) continue;
      const std::byte* at = arena.data(holder(i, t));
      for (size_t j = 0; j < bytes(i); ++j)
        if (at[j] != pattern(i, j))
          return "step " + std::to_string(t) + ": buffer " + original.buffers[i].id + ": bytes differ at byte " + std::to_string(j);
    }
  }
  return "";
}

}  // namespace memplan
