#include "io/partial_order.h"

#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

#include "memplan/io.h"
#include "memplan/streams.h"

namespace memplan {

namespace {
constexpr int64_t kMaxStreams = 64;  // stream_conflicts keeps streams^2 max trees
// The streams' ops together get one time each (problem_from_streams), so their positions
// are bounded to keep that count below INT64_MAX (birth_clocks' bound for 64 streams).
constexpr int64_t kMaxOp = INT64_MAX / (kMaxStreams + 1);
}

bool parse_clock(const std::string& text, std::vector<int64_t>& out, std::string& error) {
  out.clear();
  if (text.find(':') == std::string::npos) return false;
  size_t pos = 0;
  while (true) {
    const size_t colon = text.find(':', pos);
    const std::string part = text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v < 0) {
      error = "clock component '" + part + "' of '" + text + "' is not a non-negative 64-bit integer";
      return true;
    }
    out.push_back(v);
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  return true;
}

void apply_partial_order(Problem& p, const std::vector<OrderRow>& rows, const std::string& name,
                         const std::string& field_word, const std::function<bool()>& stop) {
  if (rows.empty() || rows.front().form == RowForm::kScalar) {
    for (const OrderRow& r : rows)
      if (r.form != RowForm::kScalar)
        throw InputError(r.where + ": " + field_word +
                         " 'lower': mixed forms: this row gives a partial order (clocks or a stream) but the first "
                         "row a scalar lifetime");
    return;
  }
  const RowForm form = rows.front().form;
  auto fail = [&](const OrderRow& r, const std::string& field, const std::string& msg) {
    throw InputError(r.where + ": " + field_word + " '" + field + "': " + msg);
  };
  const size_t n = rows.size();
  for (size_t i = 0; i < n; ++i) {
    const OrderRow& r = rows[i];
    const Buffer& b = p.buffers[i];
    if (r.form != form)
      fail(r, r.form == RowForm::kStream || form == RowForm::kStream ? "stream" : "lower",
           std::string("mixed forms: the first row gives ") + (form == RowForm::kClock ? "vector clocks" : "a stream") +
               ", this one " + (r.form == RowForm::kClock ? "vector clocks" : r.form == RowForm::kStream ? "a stream" : "a scalar lifetime"));
    if (!b.gaps.empty()) fail(r, "gaps", "gaps need one time axis; not supported with a partial order");
    if (!b.inplace_of.empty()) fail(r, "inplace", "in-place reuse is not supported with a partial order");
    if (!b.group.empty()) fail(r, "group", "groups are not supported with a partial order");
    if (b.from_top) fail(r, "side", "a two-ended pool is not supported with a partial order");
  }
  std::vector<int64_t> sizes(n);
  std::vector<std::string> ids(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = p.buffers[i].size, ids[i] = p.buffers[i].id;
  Problem q;
  try {
    if (form == RowForm::kClock) {
      const size_t S = rows.front().lower.size();
      std::vector<int64_t> lo, up;
      lo.reserve(n * S), up.reserve(n * S);
      for (const OrderRow& r : rows) {
        if (r.lower.size() != S) fail(r, "lower", "clock has " + std::to_string(r.lower.size()) + " components, the first row " + std::to_string(S));
        if (r.upper.size() != S) fail(r, "upper", "clock has " + std::to_string(r.upper.size()) + " components, the first row " + std::to_string(S));
        bool less = false;
        for (size_t t = 0; t < S; ++t) {
          if (r.lower[t] > r.upper[t]) fail(r, "upper", "component " + std::to_string(t) + " is below lower's");
          if (r.upper[t] > INT64_MAX / static_cast<int64_t>(S + 1)) fail(r, "upper", "clock component too large");
          less = less || r.lower[t] < r.upper[t];
        }
        if (!less) fail(r, "upper", "equals lower (an empty lifetime)");
        lo.insert(lo.end(), r.lower.begin(), r.lower.end());
        up.insert(up.end(), r.upper.begin(), r.upper.end());
      }
      if (S > static_cast<size_t>(kMaxStreams) * 16) fail(rows.front(), "lower", "more than 1024 clock components");
      q = problem_from_clocks(static_cast<int32_t>(S), lo, up, sizes, ids, 50'000'000, stop);
    } else {
      std::unordered_map<std::string, int32_t> index;
      for (size_t i = 0; i < n; ++i) index.emplace(ids[i], static_cast<int32_t>(i));
      std::vector<StreamBuffer> prog(n);
      int64_t streams = 1;
      for (size_t i = 0; i < n; ++i) {
        const OrderRow& r = rows[i];
        if (r.stream < 0 || r.stream >= kMaxStreams) fail(r, "stream", "must be in [0, 64)");
        if (r.op_lower < 0) fail(r, "lower", "op position must be >= 0");
        if (r.op_upper <= r.op_lower) fail(r, r.upper_name, "must exceed lower (one past the last use on its stream)");
        if (r.op_upper > kMaxOp) fail(r, r.upper_name, "op position too large (a stream holds at most " + std::to_string(kMaxOp) + " ops)");
        StreamBuffer& s = prog[i];
        s.stream = static_cast<int32_t>(r.stream), s.lower = r.op_lower, s.upper = r.op_upper;
        streams = std::max(streams, r.stream + 1);
        for (const std::string& d : r.deps) {
          auto it = index.find(d);
          if (it == index.end()) fail(r, "deps", "unknown buffer id '" + d + "'");
          if (it->second == static_cast<int32_t>(i)) fail(r, "deps", "a buffer cannot wait for itself");
          s.after.push_back(it->second);
        }
        for (auto [t, op] : r.reads) {
          if (t < 0 || t >= kMaxStreams) fail(r, "reads", "stream " + std::to_string(t) + " not in [0, 64)");
          if (op < 0) fail(r, "reads", "op position must be >= 0");
          if (op >= kMaxOp) fail(r, "reads", "op position too large (a stream holds at most " + std::to_string(kMaxOp) + " ops)");
          s.reads.emplace_back(static_cast<int32_t>(t), op);
          streams = std::max(streams, t + 1);
        }
      }
      try {
        q = problem_from_streams(prog, sizes, static_cast<int32_t>(streams), 50'000'000, &ids, stop);
      } catch (const std::invalid_argument& e) {
        // "buffer <index>: ..." names a row; otherwise the whole file.
        const std::string what = e.what();
        size_t idx = 0;
        const auto [end, ec] = std::from_chars(what.data() + 7, what.data() + what.size(), idx);
        if (what.rfind("buffer ", 0) == 0 && ec == std::errc() && idx < n)  // the index as the row's id
          fail(rows[idx], "deps", "buffer '" + p.buffers[idx].id + "'" + std::string(end, what.data() + what.size()));
        throw InputError(name + ": " + field_word + " 'deps': " + what);
      }
    }
  } catch (const std::length_error& e) {
    throw InputError(name + ": the partial order has " + e.what() + " (beyond what memplan keeps as explicit conflicts)");
  }
  for (size_t i = 0; i < n; ++i) p.buffers[i].start = q.buffers[i].start, p.buffers[i].end = q.buffers[i].end;
  if (p.conflicts.empty()) p.conflicts = std::move(q.conflicts);  // no second copy of a long list
  else p.conflicts.insert(p.conflicts.end(), q.conflicts.begin(), q.conflicts.end());
  p.clock_dim = q.clock_dim;
  p.clock_lower = std::move(q.clock_lower);
  p.clock_upper = std::move(q.clock_upper);
}

}  // namespace memplan
