#include "memplan/generate.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <queue>
#include <random>
#include <stdexcept>

#include "memplan/io.h"
#include "memplan/streams.h"

namespace memplan {
namespace {

// Uniform random lifetimes and sizes.
Problem uniform(const GenerateOptions& o, std::mt19937_64& rng) {
  Problem p;
  const int64_t horizon = o.horizon > 0 ? o.horizon : std::max<int64_t>(o.buffers, 2);
  const int64_t max_len = o.max_length > 0 ? o.max_length : horizon / 20 + 1;
  std::uniform_int_distribution<int64_t> start(0, horizon - 1), len(1, max_len),
      size(1, std::max<int64_t>(o.max_size, 1));
  p.buffers.reserve(o.buffers);
  for (int64_t i = 0; i < o.buffers; ++i) {
    Buffer b;
    b.id = std::to_string(i);
    b.start = start(rng);
    b.end = b.start + len(rng);
    b.size = size(rng);
    p.buffers.push_back(std::move(b));
  }
  return p;
}

// A DNN-like schedule: a long chain of operators grouped in blocks (as in ResNet or a
// transformer stack). Operator t runs at time t and writes one activation, live from t
// until its last consumer runs (half-open [t, last + 1)). Every output feeds the next
// operator; some also feed a later one (skip connections: residual adds across a block,
// occasional long skips), some operators fan out into 2-4 parallel branches that are
// concatenated later, and some need a scratch workspace live only at [t, t + 1). Sizes
// come from tensor shapes batch x channels x H x W x bytes that change stage by stage.
Problem dnn(const GenerateOptions& o, std::mt19937_64& rng) {
  Problem p;
  p.buffers.reserve(o.buffers);
  std::uniform_real_distribution<double> u(0, 1);
  const int64_t channels[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048};
  const int64_t spatial[] = {7, 14, 28, 56, 112, 224};
  const int64_t batch = 1 + static_cast<int64_t>(rng() % 8);
  const int64_t dtype = (rng() % 2) ? 2 : 4;
  auto shape_size = [&](int stage_c, int stage_s) {
    const int64_t c = channels[std::clamp(stage_c, 0, 10)];
    const int64_t s = spatial[std::clamp(stage_s, 0, 5)];
    return batch * c * s * s * dtype;
  };
  int64_t t = 0;
  int stage_c = 1 + static_cast<int>(rng() % 3), stage_s = 4;
  int64_t block_start = 0;
  const int64_t block_len = 8 + static_cast<int64_t>(rng() % 16);
  std::vector<int64_t> pending_skip;  // buffer indices waiting for a later consumer
  auto add = [&](int64_t start, int64_t end, int64_t size) {
    Buffer b;
    b.id = std::to_string(p.buffers.size());
    b.start = start;
    b.end = end;
    b.size = std::max<int64_t>(size, 1);
    p.buffers.push_back(std::move(b));
    return static_cast<int64_t>(p.buffers.size()) - 1;
  };
  while (static_cast<int64_t>(p.buffers.size()) < o.buffers) {
    // Stage changes: downsample spatially, widen channels, occasionally reset (new model
    // section, e.g. a decoder).
    if (t > 0 && t % (block_len * 4) == 0) {
      if (stage_s > 0 && u(rng) < 0.6) --stage_s;
      if (stage_c < 10 && u(rng) < 0.6) ++stage_c;
      if (u(rng) < 0.05) stage_s = 3 + static_cast<int>(rng() % 3), stage_c = 1 + static_cast<int>(rng() % 3);
    }
    const int64_t base = shape_size(stage_c, stage_s);
    const double r = u(rng);
    if (r < 0.08 && static_cast<int64_t>(p.buffers.size()) + 5 < o.buffers) {
      // Fan-out into branches, consumed by a concat a few operators later.
      const int branches = 2 + static_cast<int>(rng() % 3);
      const int64_t concat_at = t + 2 + static_cast<int64_t>(rng() % 6);
      for (int k = 0; k < branches; ++k)
        add(t + k % 2, concat_at + 1, base / (1 + static_cast<int64_t>(rng() % 4)));
      add(concat_at, concat_at + 2, base);
      t += 2;
      continue;
    }
    int64_t last = t + 1;  // the next operator reads it
    if (t - block_start >= block_len) {
      block_start = t;
      last = t + block_len;  // residual connection across the next block
    } else if (u(rng) < 0.02) {
      last = t + 16 + static_cast<int64_t>(rng() % 200);  // long skip (U-Net, attention cache)
    } else if (u(rng) < 0.15) {
      last = t + 2 + static_cast<int64_t>(rng() % 6);
    }
    const double jitter = 0.5 + u(rng);
    add(t, last + 1, static_cast<int64_t>(static_cast<double>(base) * jitter) / 64 * 64 + 64);
    if (u(rng) < 0.12 && static_cast<int64_t>(p.buffers.size()) < o.buffers)
      add(t, t + 1, static_cast<int64_t>(base / 4 * u(rng)) + 256);  // workspace
    ++t;
  }
  p.buffers.resize(o.buffers);
  return p;
}

// A training step: a forward chain of L layers, then the backward pass in mirrored order.
// Forward layer k (time k) saves an activation that lives until its backward step at time
// 2L - 1 - k, so the activations nest and all L are live at the turn. Each backward step
// writes three temporaries: the gradient passed to the next backward step (live two
// steps), a weight gradient and a workspace (live one step). About a quarter of the
// buffers are live at once. Sizes follow a stage-wise shape with jitter, multiples of 64.
Problem training(const GenerateOptions& o, std::mt19937_64& rng) {
  Problem p;
  p.buffers.reserve(o.buffers);
  const int64_t layers = std::max<int64_t>((o.buffers + 3) / 4, 1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<int64_t> act(layers);
  int64_t base = 4096 << (rng() % 4);
  for (int64_t k = 0; k < layers; ++k) {
    if (u(rng) < 0.01) base = int64_t{4096} << (rng() % 6);  // a new stage
    act[k] = static_cast<int64_t>(static_cast<double>(base) * (0.5 + u(rng))) / 64 * 64 + 64;
  }
  auto add = [&](int64_t start, int64_t end, int64_t size) {
    if (static_cast<int64_t>(p.buffers.size()) >= o.buffers) return;
    Buffer b;
    b.id = std::to_string(p.buffers.size());
    b.start = start;
    b.end = end;
    b.size = size;
    p.buffers.push_back(std::move(b));
  };
  for (int64_t k = 0; k < layers; ++k) add(k, 2 * layers - k, act[k]);
  for (int64_t k = layers - 1; k >= 0; --k) {
    const int64_t t = 2 * layers - 1 - k;
    add(t, t + 2, act[k]);                                                      // its gradient
    add(t, t + 1, static_cast<int64_t>(static_cast<double>(act[k]) * u(rng)) / 64 * 64 + 64);  // weights
    add(t, t + 1, static_cast<int64_t>(static_cast<double>(act[k]) * 0.25 * u(rng)) / 64 * 64 + 64);
  }
  return p;
}

// A perfect packing of the capacity x horizon rectangle into `buffers` rectangles, and its
// plan (each rectangle's low address): the optimal peak is exactly `capacity` (= LOAD), so
// solvers can be scored against a known optimum. The largest rectangle is split again and
// again (a max-heap by area, so pieces stay comparable in size):
//  - guillotine: one cut in time or in address;
//  - pinwheel (with probability `pinwheel`, when the rectangle is at least 3 x 3): five
//    pieces around a centre, none of which a straight cut separates (the smallest
//    non-guillotine packing), so mixed with guillotine cuts the packing is not guillotine;
//  - aligned: an address cut falls on a multiple of 2^j for j random up to the largest
//    possible, and each buffer gets alignment 2^k for k random up to the largest dividing
//    both its offset and size (at most 2^12): sizes and positions of mixed alignments.
Packing perfect_packing(const GenerateOptions& o, std::mt19937_64& rng, double pinwheel, bool aligned) {
  struct Rect {
    int64_t t0, t1, a0, a1;
  };
  if (o.buffers == 0) return {};
  const int64_t horizon = o.horizon > 0 ? o.horizon : 1 << 20;
  std::vector<Rect> rects = {{0, horizon, 0, o.capacity}};
  auto area = [&](size_t k) {
    return static_cast<__int128>(rects[k].t1 - rects[k].t0) * (rects[k].a1 - rects[k].a0);
  };
  auto smaller = [&](size_t a, size_t b) { return area(a) != area(b) ? area(a) < area(b) : a > b; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(smaller)> heap(smaller);
  heap.push(0);
  auto between = [&](int64_t lo, int64_t hi) {  // uniform in (lo, hi), hi - lo >= 2
    return lo + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo - 1));
  };
  // An address cut strictly inside (a0, a1) (a1 - a0 >= 2).
  auto address_cut = [&](int64_t a0, int64_t a1) {
    if (!aligned) return between(a0, a1);
    int top = 0;  // the largest j with a multiple of 2^j strictly inside
    while (top < 40 && ((a0 >> (top + 1)) + 1) << (top + 1) < a1) ++top;
    const int j = static_cast<int>(rng() % static_cast<uint64_t>(top + 1));
    const int64_t lo = (a0 >> j) + 1, hi = (a1 - 1) >> j;  // multiples k * 2^j, k in [lo, hi]
    return (lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1))) << j;
  };
  auto push = [&](Rect r) {
    rects.push_back(r);
    heap.push(rects.size() - 1);
  };
  while (static_cast<int64_t>(rects.size()) < o.buffers && !heap.empty()) {
    const size_t pick = heap.top();
    heap.pop();
    const Rect r = rects[pick];
    const bool can_t = r.t1 - r.t0 >= 2, can_a = r.a1 - r.a0 >= 2;
    if (!can_t && !can_a) continue;  // a unit cell: cannot be cut further
    const bool room = static_cast<int64_t>(rects.size()) + 4 <= o.buffers;
    if (pinwheel > 0 && room && r.t1 - r.t0 >= 3 && r.a1 - r.a0 >= 3 &&
        std::uniform_real_distribution<double>(0, 1)(rng) < pinwheel) {
      // Time cuts x1 < x2 and address cuts y1 < y2 inside the rectangle; the five pieces:
      //   y2..a1: [t0, x1) left-top     [x1, t1) right-top
      //   y1..y2: [t0, x1) left-top     [x1, x2) centre    [x2, t1) right-bottom
      //   a0..y1: [t0, x2) left-bottom                    [x2, t1) right-bottom
      int64_t x1 = between(r.t0, r.t1), x2 = between(r.t0, r.t1);
      while (x1 == x2) x2 = between(r.t0, r.t1);
      if (x1 > x2) std::swap(x1, x2);
      int64_t y1 = address_cut(r.a0, r.a1), y2 = address_cut(r.a0, r.a1);
      while (y1 == y2) y2 = address_cut(r.a0, r.a1);
      if (y1 > y2) std::swap(y1, y2);
      rects[pick] = {r.t0, x2, r.a0, y1};
      heap.push(pick);
      push({x2, r.t1, r.a0, y2});
      push({x1, r.t1, y2, r.a1});
      push({r.t0, x1, y1, r.a1});
      push({x1, x2, y1, y2});
      continue;
    }
    const bool cut_time = can_t && (!can_a || rng() % 2);
    if (cut_time) {
      const int64_t c = between(r.t0, r.t1);
      rects[pick] = {r.t0, c, r.a0, r.a1};
      push({c, r.t1, r.a0, r.a1});
    } else {
      const int64_t c = address_cut(r.a0, r.a1);
      rects[pick] = {r.t0, r.t1, r.a0, c};
      push({r.t0, r.t1, c, r.a1});
    }
    heap.push(pick);
  }
  std::shuffle(rects.begin(), rects.end(), rng);
  Packing out;
  for (size_t k = 0; k < rects.size(); ++k) {
    Buffer b;
    b.id = std::to_string(k);
    b.start = rects[k].t0;
    b.end = rects[k].t1;
    b.size = rects[k].a1 - rects[k].a0;
    if (aligned) {
      const int64_t both = rects[k].a0 | b.size;  // b.size > 0
      const int top = std::min(std::countr_zero(static_cast<uint64_t>(both)), 12);
      b.alignment = int64_t{1} << (rng() % static_cast<uint64_t>(top + 1));
    }
    out.problem.buffers.push_back(std::move(b));
    out.offsets.push_back(rects[k].a0);
  }
  return out;
}

// A multi-stream program: `streams` streams of DNN-like ops, each op producing one buffer
// read by the next 1-3 ops of its stream (one in 16 held 8-40 ops, a skip), sizes 1 KiB to
// max_size (log-uniform, 256-byte granules). Every 4-16 ops a stream waits for a random other
// stream's recent buffer (an event: that buffer's last use happens before the waiting op).
Problem streams(const GenerateOptions& o, std::mt19937_64& rng) {
  const int32_t S = static_cast<int32_t>(o.streams);
  if (S < 1 || S > 64) throw std::invalid_argument("streams must be in [1, 64]");
  std::vector<StreamBuffer> prog;
  std::vector<int64_t> sizes;
  std::vector<int64_t> pos(S, 0), next_sync(S, 0);
  std::vector<std::vector<int32_t>> recent(S);  // recent buffers per stream
  std::uniform_int_distribution<int32_t> pick(0, S - 1);
  const double lo = std::log(1024.0), hi = std::log(static_cast<double>(std::max<int64_t>(o.max_size, 2048)));
  std::uniform_real_distribution<double> logsize(lo, hi);
  for (int32_t s = 0; s < S; ++s) next_sync[s] = 4 + static_cast<int64_t>(rng() % 13);
  for (int64_t i = 0; i < o.buffers; ++i) {
    const int32_t s = static_cast<int32_t>(i % S);
    StreamBuffer b;
    b.stream = s;
    b.lower = pos[s]++;
    b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 3);
    if (rng() % 16 == 0) b.upper = b.lower + 8 + static_cast<int64_t>(rng() % 33);
    if (S > 1 && b.lower >= next_sync[s]) {
      next_sync[s] = b.lower + 4 + static_cast<int64_t>(rng() % 13);
      int32_t t = pick(rng);
      if (t == s) t = (t + 1) % S;
      // Only a buffer whose last use is already issued on t: every event then points back
      // in generation order, so the program cannot deadlock.
      std::vector<int32_t> done;
      for (int32_t a : recent[t])
        if (prog[a].upper <= pos[t]) done.push_back(a);
      if (!done.empty()) b.after.push_back(done[rng() % done.size()]);
    }
    prog.push_back(b);
    sizes.push_back((static_cast<int64_t>(std::exp(logsize(rng))) + 255) / 256 * 256);
    recent[s].push_back(static_cast<int32_t>(i));
    if (recent[s].size() > 8) recent[s].erase(recent[s].begin());
  }
  Problem p = problem_from_streams(prog, sizes, S);
  for (size_t i = 0; i < p.buffers.size(); ++i) p.buffers[i].id = std::to_string(i);
  return p;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> generator_kinds() {
  return {{"dnn", "DNN-like operator chain: blocks, residual and long skips, branches, workspaces"},
          {"uniform", "uniform random lifetimes and sizes"},
          {"training", "training step: nested forward activations live until their backward step, backward temporaries"},
          {"tiling", "guillotine tiling of capacity x horizon: optimal peak = capacity = LOAD"},
          {"pinwheel", "tiling with pinwheel (non-guillotine) splits mixed with guillotine cuts: optimum = capacity = LOAD"},
          {"aligned", "guillotine tiling with mixed alignments (sizes, offsets multiples of 2^k): optimum = capacity = LOAD"},
          {"streams", "DNN-like ops on --streams parallel streams with events between them: "
                      "lifetimes from one linear order plus the explicit conflicts it hides"}};
}

bool is_packing_kind(const std::string& kind) {
  return kind == "tiling" || kind == "pinwheel" || kind == "aligned";
}

Packing generate_packing(const GenerateOptions& o) {
  if (!is_packing_kind(o.kind)) throw std::invalid_argument("'" + o.kind + "' is not a perfect-packing kind");
  if (o.capacity < 1) throw std::invalid_argument("capacity must be >= 1");
  std::mt19937_64 rng(o.seed);
  return perfect_packing(o, rng, o.kind == "pinwheel" ? 0.5 : 0.0, o.kind == "aligned");
}

namespace {

Problem generate_kind(const GenerateOptions& o) {
  std::mt19937_64 rng(o.seed);
  if (o.kind == "uniform") return uniform(o, rng);
  if (o.kind == "dnn") return dnn(o, rng);
  if (o.kind == "training") return training(o, rng);
  if (o.kind == "streams") return streams(o, rng);
  if (is_packing_kind(o.kind)) return generate_packing(o).problem;
  throw std::invalid_argument("unknown generator kind '" + o.kind +
                              "' (dnn, uniform, training, tiling, pinwheel, aligned, streams)");
}

}  // namespace

Problem generate(const GenerateOptions& o) {
  if (o.buffers < 0) throw std::invalid_argument("buffers must be >= 0");
  if (o.max_size < 1) throw std::invalid_argument("max size must be >= 1");
  // Keeps start + length and the size totals far from overflow (uniform: start < horizon,
  // length <= max_length).
  constexpr int64_t kMax = int64_t{1} << 40;
  if (o.horizon < 0 || o.horizon > kMax || o.max_length < 0 || o.max_length > kMax ||
      o.max_size > kMax || o.capacity > kMax)
    throw std::invalid_argument("horizon, max length, max size and capacity must be in [0, 2^40]");
  Problem p = generate_kind(o);
  try {
    check_problem(p, "generated instance");
  } catch (const InputError& e) {
    throw std::invalid_argument(e.what());
  }
  return p;
}

}  // namespace memplan
