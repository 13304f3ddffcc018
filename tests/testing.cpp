#include "testing.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "memplan/generate.h"

namespace memplan::testing {

Problem generated_dnn(int64_t n, uint64_t seed) {
  GenerateOptions g;
  g.kind = "dnn";
  g.buffers = n;
  g.seed = seed;
  return generate(g);
}

bool under_sanitizer() {
  static const bool on = [] {
    const char* v = std::getenv("MEMPLAN_SANITIZER");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

Problem random_problem(std::mt19937_64& rng, const RandomSpec& spec) {
  Problem p;
  auto uni = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < spec.buffers; ++i) {
    Buffer b;
    b.id = "b" + std::to_string(i);
    b.start = uni(0, spec.horizon - 1);
    b.end = uni(b.start + 1, spec.horizon);
    b.size = uni(1, spec.max_size);
    if (spec.alignment) b.alignment = int64_t{1} << uni(0, 3);
    if (spec.gaps && b.end - b.start >= 3 && uni(0, 2) == 0) {
      Gap g;
      g.start = uni(b.start + 1, b.end - 2);
      g.end = uni(g.start + 1, b.end - 1);
      if (uni(0, 1) && b.size >= 2) {
        g.has_window = true;
        g.window_lo = uni(0, b.size - 1);
        g.window_hi = uni(g.window_lo + 1, b.size);
      }
      b.gaps.push_back(g);
    }
    p.buffers.push_back(b);
  }
  return p;
}

namespace {
// Occupied byte range of buffer b at integer time t, or {0,0} if absent.
std::pair<int64_t, int64_t> window_at(const Buffer& b, int64_t t) {
  if (t < b.start || t >= b.end) return {0, 0};
  for (const Gap& g : b.gaps)
    if (t >= g.start && t < g.end) return g.has_window ? std::pair{g.window_lo, g.window_hi} : std::pair<int64_t, int64_t>{0, 0};
  return {0, b.size};
}
}  // namespace

bool brute_force_valid(const Problem& p, const std::vector<int64_t>& offsets,
                       std::optional<int64_t> capacity) {
  if (offsets.size() != p.buffers.size()) return false;
  int64_t tmax = 0;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    if (offsets[i] < 0 || offsets[i] % b.alignment != 0) return false;
    if (b.offset && *b.offset != offsets[i]) return false;
    if (capacity && offsets[i] + b.size > *capacity) return false;
    tmax = std::max(tmax, b.end);
  }
  for (int64_t t = 0; t < tmax; ++t)
    for (size_t i = 0; i < p.buffers.size(); ++i)
      for (size_t j = i + 1; j < p.buffers.size(); ++j) {
        auto [ilo, ihi] = window_at(p.buffers[i], t);
        auto [jlo, jhi] = window_at(p.buffers[j], t);
        if (ihi <= ilo || jhi <= jlo) continue;
        if (offsets[i] + ilo < offsets[j] + jhi && offsets[j] + jlo < offsets[i] + ihi) return false;
      }
  return true;
}

int64_t brute_force_load(const Problem& p) {
  int64_t tmin = INT64_MAX, tmax = 0, best = 0;
  for (const Buffer& b : p.buffers) tmin = std::min(tmin, b.start), tmax = std::max(tmax, b.end);
  for (int64_t t = tmin; t < tmax; ++t) {
    int64_t live = 0;
    for (const Buffer& b : p.buffers) {
      auto [lo, hi] = window_at(b, t);
      live += hi - lo;
    }
    best = std::max(best, live);
  }
  return best;
}

Buffer make_buffer(std::string id, int64_t start, int64_t end, int64_t size) {
  Buffer b;
  b.id = std::move(id);
  b.start = start;
  b.end = end;
  b.size = size;
  return b;
}

std::string plc_bytes(const std::vector<std::array<uint64_t, 8>>& records) {
  std::string out;
  for (const auto& r : records)
    for (uint64_t w : r)
      for (int k = 7; k >= 0; --k) out += static_cast<char>((w >> (8 * k)) & 0xff);
  return out;
}

std::string source_path(const std::string& relative) {
  return std::string(MEMPLAN_SOURCE_DIR) + "/" + relative;
}

int64_t brute_force_optimum(const Problem& p) {
  const size_t n = p.buffers.size();
  int64_t ub = 0;
  for (const Buffer& b : p.buffers) ub += b.size + b.alignment;
  for (const Buffer& b : p.buffers)
    if (b.offset) ub = std::max(ub, *b.offset + b.size);
  int64_t best = INT64_MAX;
  std::vector<int64_t> off(n, 0);
  std::function<void(size_t, int64_t)> rec = [&](size_t k, int64_t peak) {
    if (peak >= best) return;
    if (k == n) {
      best = peak;
      return;
    }
    const Buffer& b = p.buffers[k];
    for (int64_t x = 0; x + b.size <= ub; x += b.alignment) {
      if (b.offset && x != *b.offset) continue;
      bool ok = true;
      for (size_t j = 0; j < k && ok; ++j)
        if (lifetimes_overlap(b, p.buffers[j]) && x < off[j] + p.buffers[j].size && off[j] < x + b.size) ok = false;
      if (!ok) continue;
      off[k] = x;
      rec(k + 1, std::max(peak, x + b.size));
    }
  };
  rec(0, 0);
  return best;
}

}  // namespace memplan::testing
