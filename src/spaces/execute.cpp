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
  std::map<size_t, std::vector<std::byte>> host;
  for (int64_t t = t0; t < t1; ++t) {
    for (const Transfer& x : plan.transfers)  // a copy out completes: the host has the bytes
      if (x.out && x.end == t) {
        const size_t n = static_cast<size_t>(q.buffers[x.buffer].size);
        host[x.buffer].assign(arena.data(x.buffer), arena.data(x.buffer) + n);
      }
    for (size_t i = 0; i < q.buffers.size(); ++i)  // an absence begins: the bytes are free
      for (const Gap& g : q.buffers[i].gaps)
        if (g.start == t && !g.has_window)
          std::memset(arena.data(i), 0xEE, static_cast<size_t>(q.buffers[i].size));
    for (size_t i = 0; i < q.buffers.size(); ++i)  // a buffer is produced
      if (q.buffers[i].start == t)
        for (size_t j = 0; j < static_cast<size_t>(q.buffers[i].size); ++j) arena.data(i)[j] = pattern(i, j);
    for (const Transfer& x : plan.transfers)  // a copy in has written the bytes back
      if (!x.out && x.end == t) {
        const auto it = host.find(x.buffer);
        if (it == host.end()) return "step " + std::to_string(t) + ": buffer " + q.buffers[x.buffer].id + ": copied in before any copy out";
        std::memcpy(arena.data(x.buffer), it->second.data(), it->second.size());
      }
    for (size_t i = 0; i < original.buffers.size(); ++i) {  // every use reads intact bytes
      const std::vector<int64_t> u = uses_of(original.buffers[i]);
      if (!std::binary_search(u.begin(), u.end(), t)) continue;
      for (size_t j = 0; j < static_cast<size_t>(q.buffers[i].size); ++j)
        if (arena.data(i)[j] != pattern(i, j))
          return "step " + std::to_string(t) + ": buffer " + q.buffers[i].id + ": bytes differ at byte " + std::to_string(j);
    }
  }
  return "";
}

}  // namespace memplan
