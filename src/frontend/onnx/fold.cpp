// Data propagation: evaluates the small integer subgraphs that compute shapes (Shape,
// Gather, Concat, Slice, arithmetic, ...) where ONNX 1.12's shape inference stops. Only
// values up to kMaxFoldElements elements; any case not handled gives nullopt (unknown),
// never a guess.
#include <algorithm>
#include <cmath>

#include "frontend/onnx/internal.h"

namespace memplan::onnx_fe {
namespace {

using T = onnx::TensorProto;
using Dims = std::vector<int64_t>;

// INT64_MAX on overflow (never a valid element count here).
int64_t product(const Dims& d) {
  int64_t c = 1;
  for (int64_t x : d)
    if (__builtin_mul_overflow(c, x, &c)) return INT64_MAX;
  return c;
}

// Row-major strides.
Dims strides_of(const Dims& d) {
  Dims s(d.size(), 1);
  for (int k = static_cast<int>(d.size()) - 2; k >= 0; --k) s[k] = s[k + 1] * d[k + 1];
  return s;
}

// Integer arithmetic wraps like the executors' two's complement, without undefined behaviour
// on hostile models.
int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

std::optional<Dims> broadcast(const std::vector<const Value*>& in) {
  std::vector<const Dims*> shapes;
  for (const auto* v : in) shapes.push_back(&v->dims);
  return broadcast_dims(shapes);
}

// Flat index into `in` (broadcast to `out`) of the element at flat index `flat` of `out`.
int64_t source_index(const Dims& out, int64_t flat, const Dims& in) {
  int64_t idx = 0, stride = 1;
  for (int k = static_cast<int>(out.size()) - 1, j = static_cast<int>(in.size()) - 1; k >= 0; --k, --j) {
    const int64_t coord = flat % out[k];
    flat /= out[k];
    if (j < 0) continue;
    if (in[j] != 1) idx += coord * stride;
    stride *= in[j];
  }
  return idx;
}

Value make(int32_t type, Dims dims) {
  Value v;
  v.type = type;
  v.dims = std::move(dims);
  return v;
}
void push(Value& v, double real, int64_t integer) {
  if (v.is_real()) v.reals.push_back(real);
  else v.ints.push_back(v.type == T::BOOL ? (integer != 0) : integer);
}
// Copies element k of `src` to the end of `dst` (same type).
void push_from(Value& dst, const Value& src, int64_t k) {
  if (src.is_real()) dst.reals.push_back(src.reals[k]);
  else dst.ints.push_back(src.ints[k]);
}

bool too_big(const Dims& d) {
  int64_t c = 1;
  for (int64_t x : d) {
    if (x < 0 || x > kMaxFoldElements) return true;  // before the product: c * x could overflow
    c *= std::max<int64_t>(x, 1);
    if (c > kMaxFoldElements) return true;
  }
  return false;
}

std::optional<Value> elementwise(const onnx::NodeProto& n, const std::vector<const Value*>& in) {
  const std::string& op = n.op_type();
  auto dims = broadcast(in);
  if (!dims || too_big(*dims)) return std::nullopt;
  const bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                       op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor" || op == "Not";
  const Value& a = *in[0];
  Value out = make(compare ? T::BOOL : (op == "Where" ? in[1]->type : a.type), *dims);
  const int64_t count = product(*dims);
  const bool real = op == "Where" ? in[1]->is_real() : a.is_real();
  for (int64_t k = 0; k < count; ++k) {
    auto get = [&](int i) { return in[i]->at(source_index(*dims, k, in[i]->dims)); };
    auto geti = [&](int i) { return in[i]->int_at(source_index(*dims, k, in[i]->dims)); };
    if (op == "Where") {
      const int i = geti(0) ? 1 : 2;
      push(out, get(i), geti(i));
      continue;
    }
    if (in.size() == 1) {
      const double x = get(0);
      const int64_t xi = geti(0);
      if (op == "Neg") push(out, -x, wrap_sub(0, xi));
      else if (op == "Abs") push(out, std::fabs(x), xi < 0 ? wrap_sub(0, xi) : xi);
      else if (op == "Not") push(out, !xi, !xi);
      else if (op == "Floor") push(out, std::floor(x), xi);
      else if (op == "Ceil") push(out, std::ceil(x), xi);
      else if (op == "Sqrt") { if (!real) return std::nullopt; push(out, std::sqrt(x), 0); }
      else if (op == "Reciprocal") push(out, 1.0 / x, xi);
      else if (op == "Sign") push(out, (x > 0) - (x < 0), (xi > 0) - (xi < 0));
      else if (op == "Relu") push(out, std::max(x, 0.0), std::max<int64_t>(xi, 0));
      else return std::nullopt;
      continue;
    }
    const double x = get(0), y = get(1);
    const int64_t xi = geti(0), yi = geti(1);
    if (op == "Add") push(out, x + y, wrap_add(xi, yi));
    else if (op == "Sub") push(out, x - y, wrap_sub(xi, yi));
    else if (op == "Mul") push(out, x * y, wrap_mul(xi, yi));
    else if (op == "Div") {
      if (!real && (yi == 0 || (yi == -1 && xi == INT64_MIN))) return std::nullopt;
      push(out, x / y, real ? 0 : xi / yi);
    } else if (op == "Mod") {
      if (!real && (yi == 0 || yi == -1)) return std::nullopt;
      if (attr_int(n, "fmod", 0) || real) push(out, std::fmod(x, y), xi % yi);
      else { int64_t r = xi % yi; if (r != 0 && ((r < 0) != (yi < 0))) r += yi; push(out, 0, r); }
    } else if (op == "Pow") {
      const double p = std::pow(x, y);
      if (!real && !(std::fabs(p) < 9e18)) return std::nullopt;
      push(out, p, real ? 0 : static_cast<int64_t>(std::llround(p)));
    } else if (op == "Min") push(out, std::min(x, y), std::min(xi, yi));
    else if (op == "Max") push(out, std::max(x, y), std::max(xi, yi));
    else if (op == "Equal") push(out, 0, real ? x == y : xi == yi);
    else if (op == "Less") push(out, 0, real ? x < y : xi < yi);
    else if (op == "Greater") push(out, 0, real ? x > y : xi > yi);
    else if (op == "LessOrEqual") push(out, 0, real ? x <= y : xi <= yi);
    else if (op == "GreaterOrEqual") push(out, 0, real ? x >= y : xi >= yi);
    else if (op == "And") push(out, 0, xi && yi);
    else if (op == "Or") push(out, 0, xi || yi);
    else if (op == "Xor") push(out, 0, (xi != 0) != (yi != 0));
    else return std::nullopt;
  }
  return out;
}

// Gathers `src` elements by a per-output-element index function.
template <typename F>
Value remap(const Value& src, Dims dims, F source) {
  Value out = make(src.type, dims);
  const int64_t count = product(dims);
  for (int64_t k = 0; k < count; ++k) push_from(out, src, source(k));
  return out;
}

std::optional<Value> reshape_to(const Value& v, Dims target, bool allowzero) {
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == 0 && !allowzero) {
      if (k >= v.dims.size()) return std::nullopt;
      target[k] = v.dims[k];
    }
    if (target[k] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int64_t>(k);
    } else if (target[k] < 0) {
      return std::nullopt;
    } else if (__builtin_mul_overflow(known, target[k], &known)) {
      return std::nullopt;
    }
  }
  if (infer >= 0) {
    if (known == 0) return std::nullopt;
    target[infer] = v.count() / known;
  }
  if (product(target) != v.count()) return std::nullopt;
  Value out = v;
  out.dims = target;
  return out;
}

std::optional<Dims> axes_of(const onnx::NodeProto& n, const std::vector<const Value*>& in, size_t input) {
  if (auto a = attr_ints(n, "axes")) return a;
  if (in.size() > input && in[input]) return in[input]->ints;
  return std::nullopt;
}

std::optional<Value> reduce(const onnx::NodeProto& n, const std::vector<const Value*>& in) {
  const Value& v = *in[0];
  const int64_t rank = static_cast<int64_t>(v.dims.size());
  auto axes = axes_of(n, in, 1);
  std::vector<bool> reduced(rank, false);
  if (!axes || axes->empty()) {
    if (axes && attr_int(n, "noop_with_empty_axes", 0)) return v;
    std::fill(reduced.begin(), reduced.end(), true);
  } else {
    for (int64_t a : *axes) {
      if (!normalize_axis(a, rank)) return std::nullopt;
      reduced[a] = true;
    }
  }
  const bool keep = attr_int(n, "keepdims", 1) != 0;
  Dims out_dims, kept_dims;
  for (int64_t k = 0; k < rank; ++k) {
    kept_dims.push_back(reduced[k] ? 1 : v.dims[k]);
    if (!reduced[k] || keep) out_dims.push_back(kept_dims.back());
  }
  const std::string& op = n.op_type();
  const int64_t out_count = product(kept_dims);
  std::vector<double> acc(out_count, op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<int64_t> acci(out_count, op == "ReduceProd" ? 1 : 0);
  std::vector<int64_t> seen(out_count, 0);
  const Dims in_strides = strides_of(v.dims), out_strides = strides_of(kept_dims);
  for (int64_t k = 0; k < v.count(); ++k) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d]) o += (k / in_strides[d] % v.dims[d]) * out_strides[d];
    const double x = v.at(k);
    const int64_t xi = v.int_at(k);
    if (op == "ReduceProd") { acc[o] *= x; acci[o] = wrap_mul(acci[o], xi); }
    else if (op == "ReduceSum" || op == "ReduceMean") { acc[o] += x; acci[o] = wrap_add(acci[o], xi); }
    else if (op == "ReduceMin") { acc[o] = seen[o] ? std::min(acc[o], x) : x; acci[o] = seen[o] ? std::min(acci[o], xi) : xi; }
    else if (op == "ReduceMax") { acc[o] = seen[o] ? std::max(acc[o], x) : x; acci[o] = seen[o] ? std::max(acci[o], xi) : xi; }
    else return std::nullopt;
    ++seen[o];
  }
  Value out = make(v.type, out_dims);
  for (int64_t o = 0; o < out_count; ++o) {
    if (op == "ReduceMean") {
      if (seen[o] == 0) return std::nullopt;
      push(out, acc[o] / seen[o], acci[o] / seen[o]);
    } else {
      push(out, acc[o], acci[o]);
    }
  }
  return out;
}

std::optional<Value> slice(const onnx::NodeProto& n, const std::vector<const Value*>& in) {
  const Value& v = *in[0];
  const int64_t rank = static_cast<int64_t>(v.dims.size());
  Dims starts, ends, axes, steps;
  if (auto s = attr_ints(n, "starts")) {  // opset < 10
    starts = *s;
    ends = attr_ints(n, "ends").value_or(Dims{});
    axes = attr_ints(n, "axes").value_or(Dims{});
  } else {
    if (in.size() < 3 || !in[1] || !in[2]) return std::nullopt;
    starts = in[1]->ints;
    ends = in[2]->ints;
    if (in.size() > 3 && in[3]) axes = in[3]->ints;
    if (in.size() > 4 && in[4]) steps = in[4]->ints;
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return std::nullopt;
  Dims first(rank, 0), step(rank, 1), out_dims = v.dims;
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t a = axes[k];
    if (!normalize_axis(a, rank) || steps[k] == 0 || steps[k] == INT64_MIN) return std::nullopt;
    const int64_t dim = v.dims[a];
    auto clampi = [&](int64_t x, int64_t lo, int64_t hi) {
      if (x < 0) x = x < -dim ? -1 - dim + dim : x + dim;  // numpy-style negative indices
      return std::clamp(x, lo, hi);
    };
    int64_t s, e, count;
    if (steps[k] > 0) {
      s = clampi(starts[k], 0, dim);
      e = clampi(ends[k], 0, dim);
      count = e > s ? (e - s + steps[k] - 1) / steps[k] : 0;
    } else {
      s = clampi(starts[k], -1, dim - 1);
      e = ends[k] < -dim ? -1 : clampi(ends[k], -1, dim - 1);
      count = s > e ? (s - e + (-steps[k]) - 1) / (-steps[k]) : 0;
    }
    first[a] = s;
    step[a] = steps[k];
    out_dims[a] = count;
  }
  if (too_big(out_dims)) return std::nullopt;
  const Dims in_strides = strides_of(v.dims);
  return remap(v, out_dims, [&](int64_t k) {
    int64_t idx = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t c = k % out_dims[d];
      k /= out_dims[d];
      idx += (first[d] + c * step[d]) * in_strides[d];
    }
    return idx;
  });
}

std::optional<Value> gather(const onnx::NodeProto& n, const Value& data, const Value& ind) {
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  int64_t axis = attr_int(n, "axis", 0);
  if (!normalize_axis(axis, rank)) return std::nullopt;
  Dims out_dims(data.dims.begin(), data.dims.begin() + axis);
  out_dims.insert(out_dims.end(), ind.dims.begin(), ind.dims.end());
  out_dims.insert(out_dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  if (too_big(out_dims)) return std::nullopt;
  const int64_t inner = product(Dims(data.dims.begin() + axis + 1, data.dims.end()));
  const int64_t nind = ind.count(), dim = data.dims[axis];
  for (int64_t j = 0; j < nind; ++j) {
    const int64_t i = ind.int_at(j);
    if (i < -dim || i >= dim) return std::nullopt;
  }
  return remap(data, out_dims, [&](int64_t k) {
    const int64_t in_part = k % inner;
    const int64_t j = (k / inner) % nind;
    const int64_t outer = k / inner / nind;
    int64_t i = ind.int_at(j);
    if (i < 0) i += dim;
    return (outer * dim + i) * inner + in_part;
  });
}

std::optional<Value> concat(const onnx::NodeProto& n, const std::vector<const Value*>& in) {
  const int64_t rank = static_cast<int64_t>(in[0]->dims.size());
  int64_t axis = attr_int(n, "axis", 0);
  if (!normalize_axis(axis, rank)) return std::nullopt;
  Dims out_dims = in[0]->dims;
  out_dims[axis] = 0;
  for (const auto* v : in) {
    if (static_cast<int64_t>(v->dims.size()) != rank || v->type != in[0]->type) return std::nullopt;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && v->dims[d] != in[0]->dims[d]) return std::nullopt;
    out_dims[axis] += v->dims[axis];
  }
  if (too_big(out_dims)) return std::nullopt;
  const int64_t outer = product(Dims(out_dims.begin(), out_dims.begin() + axis));
  Value out = make(in[0]->type, out_dims);
  for (int64_t o = 0; o < outer; ++o)
    for (const auto* v : in) {
      const int64_t block = v->count() / std::max<int64_t>(outer, 1);
      for (int64_t k = 0; k < block && outer > 0; ++k) push_from(out, *v, o * block + k);
    }
  return out;
}

std::optional<Value> cast(const Value& v, int32_t to) {
  // Half-precision values are not represented here (their rounding is not modelled), nor are
  // the types added after ONNX 1.12 (float8, 4- and 2-bit: codes above BFLOAT16).
  if (element_bits(to) == 0 || to == T::FLOAT16 || to == T::BFLOAT16 || v.type == T::FLOAT16 ||
      v.type == T::BFLOAT16 || to > T::BFLOAT16 || v.type > T::BFLOAT16)
    return std::nullopt;
  Value out = make(to, v.dims);
  for (int64_t k = 0; k < v.count(); ++k) {
    const double x = v.at(k);
    if (out.is_real()) out.reals.push_back(x);
    else if (to == T::BOOL) out.ints.push_back(x != 0);
    else if (v.is_real() && !(std::fabs(x) < 9.2e18)) return std::nullopt;
    else out.ints.push_back(v.is_real() ? static_cast<int64_t>(std::trunc(x)) : v.ints[k]);
  }
  return out;
}

}  // namespace

std::optional<Value> fold_node(const onnx::NodeProto& n, const std::vector<const Value*>& in,
                               const std::vector<const TypeInfo*>& types) {
  const std::string& op = n.op_type();
  auto have = [&](size_t k) { return in.size() > k && in[k]; };
  if (op == "Constant") {
    if (const auto* a = attr(n, "value")) return value_of(a->t());
    if (const auto* a = attr(n, "value_int")) { Value v = make(T::INT64, {}); v.ints = {a->i()}; return v; }
    if (const auto* a = attr(n, "value_ints")) { Value v = make(T::INT64, {a->ints_size()}); v.ints.assign(a->ints().begin(), a->ints().end()); return v; }
    if (const auto* a = attr(n, "value_float")) { Value v = make(T::FLOAT, {}); v.reals = {a->f()}; return v; }
    if (const auto* a = attr(n, "value_floats")) { Value v = make(T::FLOAT, {a->floats_size()}); v.reals.assign(a->floats().begin(), a->floats().end()); return v; }
    return std::nullopt;
  }
  if (op == "Shape" || op == "Size") {
    if (types.empty() || !types[0] || !types[0]->has_shape) return std::nullopt;
    const Dims& d = types[0]->dims;
    if (op == "Size") {
      if (!types[0]->known()) return std::nullopt;
      Value v = make(T::INT64, {});
      v.ints = {product(d)};
      return v;
    }
    const int64_t rank = static_cast<int64_t>(d.size());
    int64_t s = attr_int(n, "start", 0), e = attr_int(n, "end", rank);
    if (s < 0) s += rank;
    if (e < 0) e += rank;
    s = std::clamp<int64_t>(s, 0, rank);
    e = std::clamp<int64_t>(e, 0, rank);
    Value v = make(T::INT64, {std::max<int64_t>(e - s, 0)});
    for (int64_t k = s; k < e; ++k) {
      if (d[k] < 0) return std::nullopt;  // only the dims Shape returns must be known
      v.ints.push_back(d[k]);
    }
    return v;
  }
  if (op == "ConstantOfShape") {
    if (!have(0)) return std::nullopt;
    const Dims dims = in[0]->ints;
    if (too_big(dims)) return std::nullopt;
    Value fill = make(T::FLOAT, {1});
    fill.reals = {0.0};
    if (const auto* a = attr(n, "value"))
      if (auto f = value_of(a->t()); f && f->count() == 1) fill = *f;
    return remap(fill, dims, [](int64_t) { return int64_t{0}; });
  }
  if (op == "Range") {
    if (!have(0) || !have(1) || !have(2)) return std::nullopt;
    const double start = in[0]->at(0), limit = in[1]->at(0), delta = in[2]->at(0);
    if (delta == 0) return std::nullopt;
    const double steps = std::ceil((limit - start) / delta);
    if (!(steps <= kMaxFoldElements)) return std::nullopt;  // also NaN
    const int64_t count = std::max<int64_t>(static_cast<int64_t>(steps), 0);
    Value v = make(in[0]->type, {count});
    for (int64_t k = 0; k < count; ++k)
      push(v, start + k * delta, wrap_add(in[0]->int_at(0), wrap_mul(k, in[2]->int_at(0))));
    return v;
  }
  // The rest needs every data input known.
  for (int k = 0; k < n.input_size(); ++k)
    if (!n.input(k).empty() && !have(k)) return std::nullopt;
  if (in.empty() || !in[0]) return std::nullopt;
  const Value& a = *in[0];
  if (op == "Identity") return a;
  if (op == "Cast") return cast(a, static_cast<int32_t>(attr_int(n, "to", 0)));
  if (op == "Reshape") {
    if (!have(1)) return std::nullopt;
    return reshape_to(a, in[1]->ints, attr_int(n, "allowzero", 0) != 0);
  }
  if (op == "Flatten") {
    int64_t axis = attr_int(n, "axis", 1);
    const int64_t rank = static_cast<int64_t>(a.dims.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return std::nullopt;
    const int64_t left = product(Dims(a.dims.begin(), a.dims.begin() + axis));
    return reshape_to(a, {left, a.count() / std::max<int64_t>(left, 1)}, false);
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    auto axes = axes_of(n, in, 1);
    const int64_t rank = static_cast<int64_t>(a.dims.size());
    Dims dims;
    if (op == "Squeeze") {
      std::vector<bool> drop(rank, false);
      if (!axes) {
        for (int64_t k = 0; k < rank; ++k) drop[k] = a.dims[k] == 1;
      } else {
        for (int64_t x : *axes) {
          if (!normalize_axis(x, rank) || a.dims[x] != 1) return std::nullopt;
          drop[x] = true;
        }
      }
      for (int64_t k = 0; k < rank; ++k)
        if (!drop[k]) dims.push_back(a.dims[k]);
    } else {
      if (!axes) return std::nullopt;
      const int64_t out_rank = rank + static_cast<int64_t>(axes->size());
      std::vector<bool> added(out_rank, false);
      for (int64_t x : *axes) {
        if (!normalize_axis(x, out_rank) || added[x]) return std::nullopt;
        added[x] = true;
      }
      for (int64_t k = 0, j = 0; k < out_rank; ++k) dims.push_back(added[k] ? 1 : a.dims[j++]);
    }
    Value out = a;
    out.dims = dims;
    return out;
  }
  if (op == "Gather" && have(1)) return gather(n, a, *in[1]);
  if (op == "Concat") return concat(n, in);
  if (op == "Slice") return slice(n, in);
  if (op.rfind("Reduce", 0) == 0) return reduce(n, in);
  if (op == "Expand" && have(1)) {
    Value shape_only = make(a.type, in[1]->ints);
    auto dims = broadcast({&a, &shape_only});
    if (!dims || too_big(*dims)) return std::nullopt;
    return remap(a, *dims, [&](int64_t k) { return source_index(*dims, k, a.dims); });
  }
  if (op == "Tile" && have(1)) {
    Dims dims = a.dims;
    if (in[1]->ints.size() != dims.size()) return std::nullopt;
    for (size_t k = 0; k < dims.size(); ++k)
      if (__builtin_mul_overflow(dims[k], in[1]->ints[k], &dims[k])) return std::nullopt;
    if (too_big(dims)) return std::nullopt;
    const Dims src_strides = strides_of(a.dims);
    return remap(a, dims, [&](int64_t k) {
      int64_t idx = 0;
      for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
        idx += (k % dims[d]) % a.dims[d] * src_strides[d];
        k /= dims[d];
      }
      return idx;
    });
  }
  if (op == "Transpose") {
    const int64_t rank = static_cast<int64_t>(a.dims.size());
    Dims perm = attr_ints(n, "perm").value_or(Dims{});
    if (perm.empty())
      for (int64_t k = rank - 1; k >= 0; --k) perm.push_back(k);
    if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
    Dims dims;
    for (int64_t p : perm) {
      if (p < 0 || p >= rank) return std::nullopt;
      dims.push_back(a.dims[p]);
    }
    const Dims src_strides = strides_of(a.dims);
    return remap(a, dims, [&](int64_t k) {
      int64_t idx = 0;
      for (int64_t d = rank - 1; d >= 0; --d) {
        idx += (k % dims[d]) * src_strides[perm[d]];
        k /= dims[d];
      }
      return idx;
    });
  }
  static const std::set<std::string> kElementwise = {
      "Add", "Sub", "Mul", "Div", "Mod", "Pow", "Min", "Max", "Equal", "Less", "Greater", "LessOrEqual",
      "GreaterOrEqual", "And", "Or", "Xor", "Not", "Where", "Neg", "Abs", "Floor", "Ceil", "Sqrt",
      "Reciprocal", "Sign", "Relu"};
  if (kElementwise.count(op)) {
    if ((op == "Min" || op == "Max") && in.size() > 2) {
      std::optional<Value> acc = a;
      for (size_t k = 1; k < in.size() && acc; ++k) acc = elementwise(n, {&*acc, in[k]});
      return acc;
    }
    return elementwise(n, in);
  }
  return std::nullopt;
}


std::optional<std::vector<Value>> fold_split(const onnx::NodeProto& n, const std::vector<const Value*>& in) {
  if (n.op_type() != "Split" || in.empty() || !in[0]) return std::nullopt;
  const Value& v = *in[0];
  const int64_t rank = static_cast<int64_t>(v.dims.size());
  int64_t axis = attr_int(n, "axis", 0);
  if (!normalize_axis(axis, rank)) return std::nullopt;
  const int64_t outputs = n.output_size(), dim = v.dims[axis];
  // Part sizes: the `split` attribute (opset < 13) or input (opset >= 13), else equal parts
  // (opset 18: the last one smaller when the dim does not divide).
  Dims parts = attr_ints(n, "split").value_or(Dims{});
  if (parts.empty() && in.size() > 1 && n.input(1) != "") {
    if (!in[1]) return std::nullopt;
    parts = in[1]->ints;
  }
  if (parts.empty()) {
    if (outputs < 1) return std::nullopt;
    const int64_t each = (dim + outputs - 1) / outputs;
    for (int64_t k = 0; k < outputs; ++k) parts.push_back(std::max<int64_t>(0, std::min(each, dim - k * each)));
  }
  if (static_cast<int64_t>(parts.size()) != outputs) return std::nullopt;
  int64_t total = 0;
  for (int64_t p : parts)
    if (p < 0 || __builtin_add_overflow(total, p, &total)) return std::nullopt;
  if (total != dim) return std::nullopt;
  const Dims src_strides = strides_of(v.dims);
  std::vector<Value> out;
  int64_t first = 0;
  for (int64_t p : parts) {
    Dims dims = v.dims;
    dims[axis] = p;
    const Dims out_strides = strides_of(dims);
    out.push_back(remap(v, dims, [&](int64_t k) {
      int64_t idx = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t i = k / out_strides[d] % dims[d];
        idx += (d == axis ? i + first : i) * src_strides[d];
      }
      return idx;
    }));
    first += p;
  }
  return out;
}

}  // namespace memplan::onnx_fe
