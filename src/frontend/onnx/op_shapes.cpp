// Output types memplan computes itself where ONNX 1.12's shape inference cannot:
//  - ops it infers only partly: Einsum (rank only: einsum.cpp), OneHot (the depth dim stays
//    unknown even when the depth is a constant);
//  - ops added after opset 17, which ONNX 1.12 does not know at all (no output type, so the
//    import used to stop there): Gelu (20), Mish, BitwiseNot, GroupNormalization (18),
//    RMSNormalization, RotaryEmbedding (23) keep their input's shape; BitwiseAnd/Or/Xor (18)
//    broadcast; CenterCropPad (18) takes its target shape from a value; Attention (23, 24)
//    gives its four outputs from Q, K, V and the past keys (attention_types);
//  - ops whose later versions ONNX 1.12 reads with an older schema: Split into
//    `num_outputs` parts that do not divide the dim (18: the last part smaller; 1.12 gives
//    no shape), Pad with an `axes` input
//    (18: pads name only those axes; 1.12 gives no shape) and Resize with an `axes`
//    attribute or a keep_aspect_ratio_policy (18; 1.12 gives no shape, or for the policy
//    the plain sizes, which is wrong). Their result replaces inference's.
// Rules from the ONNX operator specifications; Resize's rounding as in ONNX's own inference
// (float32 arithmetic: floor(in * scale); with a policy, round(scale * in), the scale the
// min (not_larger) or max (not_smaller) of sizes / in over the axes).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "frontend/onnx/internal.h"
#include "memplan/io.h"

namespace memplan::onnx_fe {
namespace {

int64_t normalized_axis(int64_t axis, int64_t rank, const std::string& where, const char* op) {
  const int64_t given = axis;
  if (!normalize_axis(axis, rank))
    throw InputError(where + ": " + op + " axis " + std::to_string(given) + " is out of range for rank " +
                     std::to_string(rank));
  return axis;
}

// The axes a node names (attribute or input value), normalized; all axes when none named.
std::vector<int64_t> axes_of(const std::vector<int64_t>& named, int64_t rank, const std::string& where,
                             const char* op) {
  std::vector<int64_t> axes;
  if (named.empty())
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  for (int64_t a : named) axes.push_back(normalized_axis(a, rank, where, op));
  return axes;
}

std::vector<int64_t> ints_of(const Value& v) {
  std::vector<int64_t> out;
  for (int64_t k = 0; k < v.count(); ++k) out.push_back(v.int_at(k));
  return out;
}

// Two shapes broadcast (broadcast_dims), or an error naming the node.
std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::string& where) {
  if (auto out = broadcast_dims({&a, &b})) return *out;
  throw InputError(where + ": shapes " + dims_text(a) + " and " + dims_text(b) + " do not broadcast");
}

std::optional<std::vector<int64_t>> one_hot_dims(const onnx::NodeProto& n, const std::vector<int64_t>& indices,
                                                 const Value* depth, const std::string& where) {
  if (!depth || depth->count() != 1) return std::nullopt;
  const int64_t d = depth->int_at(0);
  if (d < 1) throw InputError(where + ": OneHot depth " + std::to_string(d) + " is not positive");
  const int64_t rank = static_cast<int64_t>(indices.size());
  const auto* a = attr(n, "axis");
  int64_t axis = a ? a->i() : -1;
  if (axis < -rank - 1 || axis > rank)
    throw InputError(where + ": OneHot axis " + std::to_string(axis) + " is out of range for indices of rank " +
                     std::to_string(rank));
  if (axis < 0) axis += rank + 1;
  std::vector<int64_t> out = indices;
  out.insert(out.begin() + axis, d);
  return out;
}

// Pad-18 with `axes`: pads = [begin of each named axis..., end of each named axis...].
std::optional<std::vector<int64_t>> pad_dims(const std::vector<int64_t>& in, const Value* pads, const Value* axes,
                                             const std::string& where) {
  if (!pads || !axes) return std::nullopt;
  const std::vector<int64_t> named = axes_of(ints_of(*axes), static_cast<int64_t>(in.size()), where, "Pad");
  const std::vector<int64_t> p = ints_of(*pads);
  if (p.size() != 2 * named.size())
    throw InputError(where + ": Pad has " + std::to_string(p.size()) + " pads for " + std::to_string(named.size()) +
                     " axes (needs twice as many)");
  std::vector<int64_t> out = in;
  for (size_t k = 0; k < named.size(); ++k) {
    int64_t& d = out[static_cast<size_t>(named[k])];
    if (d < 0) continue;
    d = add_extents(add_extents(d, p[k], where), p[k + named.size()], where);
    if (d < 0) throw InputError(where + ": Pad makes axis " + std::to_string(named[k]) + " negative");
  }
  return out;
}

// Resize-18/19 with `axes` or keep_aspect_ratio_policy (see the file comment).
std::optional<std::vector<int64_t>> resize_dims(const onnx::NodeProto& n, const std::vector<int64_t>& in,
                                                const Value* scales, const Value* sizes, const std::string& where) {
  const int64_t rank = static_cast<int64_t>(in.size());
  const auto* axes_attr = attr(n, "axes");
  const std::vector<int64_t> axes =
      axes_of(axes_attr ? std::vector<int64_t>(axes_attr->ints().begin(), axes_attr->ints().end())
                        : std::vector<int64_t>{},
              rank, where, "Resize");
  const auto* policy_attr = attr(n, "keep_aspect_ratio_policy");
  const std::string policy = policy_attr ? policy_attr->s() : "stretch";
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    throw InputError(where + ": Resize keep_aspect_ratio_policy '" + policy + "' is not stretch, not_larger or not_smaller");
  if (sizes && sizes->count() == 0) sizes = nullptr;  // an empty input stands for none
  if (scales && scales->count() == 0) scales = nullptr;
  const Value* given = sizes ? sizes : scales;
  if (!given) return std::nullopt;
  if (given->count() != static_cast<int64_t>(axes.size()))
    throw InputError(where + ": Resize has " + std::to_string(given->count()) + " " + (sizes ? "sizes" : "scales") +
                     " for " + std::to_string(axes.size()) + " axes");
  // A float result as a dim: finite, not negative, and far below int64's range.
  auto as_dim = [&](float v) {
    if (!(v >= 0.0f) || v > 4.0e18f)
      throw InputError(where + ": Resize gives an output extent of " + std::to_string(v) + " (scales or sizes out of range)");
    return static_cast<int64_t>(v);
  };
  std::vector<int64_t> out = in;
  if (!sizes) {
    if (policy != "stretch") throw InputError(where + ": Resize with scales takes no keep_aspect_ratio_policy");
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t& d = out[static_cast<size_t>(axes[k])];
      if (d >= 0) d = as_dim(std::floor(static_cast<float>(d) * static_cast<float>(given->at(static_cast<int64_t>(k)))));
    }
    return out;
  }
  for (int64_t k = 0; k < sizes->count(); ++k)
    if (sizes->int_at(k) < 0 || (policy != "stretch" && sizes->int_at(k) == 0))
      throw InputError(where + ": Resize size " + std::to_string(sizes->int_at(k)) + " is not positive");
  if (policy == "stretch") {
    for (size_t k = 0; k < axes.size(); ++k) out[static_cast<size_t>(axes[k])] = sizes->int_at(static_cast<int64_t>(k));
    return out;
  }
  float scale = policy == "not_larger" ? std::numeric_limits<float>::max() : 0.0f;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t d = in[static_cast<size_t>(axes[k])];
    if (d <= 0) {  // the aspect ratio needs every extent
      for (int64_t a : axes) out[static_cast<size_t>(a)] = -1;
      return out;
    }
    const float s = static_cast<float>(sizes->int_at(static_cast<int64_t>(k))) / static_cast<float>(d);
    scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
  }
  for (int64_t a : axes) out[static_cast<size_t>(a)] = as_dim(std::roundf(scale * static_cast<float>(in[static_cast<size_t>(a)])));
  return out;
}

// Attention (23, 24): Q, K, V of rank 4 ([batch, heads, sequence, head size]) or 3
// ([batch, sequence, heads * head size], the head counts from q_num_heads / kv_num_heads),
// optional past_key / past_value [batch, kv heads, past sequence, head size]. Outputs: Y
// (Q's rank; its head size V's), present_key / present_value (past and new keys and values
// concatenated along the sequence) and the QK product [batch, q heads, q sequence, past +
// kv sequence].
std::optional<OpTypes> attention_types(const onnx::NodeProto& n, const OpInputs& in, const std::string& where) {
  const TypeInfo *q = in.type(0), *k = in.type(1), *v = in.type(2);
  if (!q || !k || !v || !q->has_shape || !k->has_shape || !v->has_shape) return std::nullopt;
  auto heads_attr = [&](const char* name) {
    const auto* a = attr(n, name);
    return a ? a->i() : 0;
  };
  // [batch, heads, sequence, head size] of one of Q, K, V.
  auto split = [&](const TypeInfo* t, const char* what, const char* heads_name) -> std::vector<int64_t> {
    if (t->dims.size() == 4) return t->dims;
    if (t->dims.size() != 3)
      throw InputError(where + ": Attention " + what + " has rank " + std::to_string(t->dims.size()) + ", not 3 or 4");
    const int64_t heads = heads_attr(heads_name);
    if (heads <= 0) throw InputError(where + ": Attention with 3-D " + what + " needs attribute " + heads_name);
    const int64_t hidden = t->dims[2];
    if (hidden >= 0 && hidden % heads != 0)
      throw InputError(where + ": Attention " + what + "'s last dim " + std::to_string(hidden) + " is not a multiple of " +
                       heads_name + " = " + std::to_string(heads));
    return {t->dims[0], heads, t->dims[1], hidden < 0 ? -1 : hidden / heads};
  };
  const std::vector<int64_t> q4 = split(q, "Q", "q_num_heads"), k4 = split(k, "K", "kv_num_heads"),
                             v4 = split(v, "V", "kv_num_heads");
  int64_t past = 0;
  if (const TypeInfo* pk = in.type(4)) {
    if (!pk->has_shape || pk->dims.size() != 4) return std::nullopt;
    past = pk->dims[2];
  }
  const int64_t total = past < 0 || k4[2] < 0 ? -1 : add_extents(past, k4[2], where);
  const int64_t head_v = v4[3];
  OpTypes out;
  const int32_t elem = q->elem_type;
  std::vector<int64_t> y = q->dims.size() == 4 ? std::vector<int64_t>{q4[0], q4[1], q4[2], head_v}
                                               : std::vector<int64_t>{q4[0], q4[2], head_v < 0 ? -1 : q4[1] * head_v};
  out.outputs.push_back(TypeInfo{true, elem, true, y});
  out.outputs.push_back(TypeInfo{true, k->elem_type, true, {k4[0], k4[1], total, k4[3]}});
  out.outputs.push_back(TypeInfo{true, v->elem_type, true, {v4[0], v4[1], total, head_v}});
  out.outputs.push_back(TypeInfo{true, elem, true, {q4[0], q4[1], q4[2], total}});
  return out;
}

}  // namespace

std::optional<OpTypes> refined_op_types(const onnx::NodeProto& n, const OpInputs& in, const std::string& where) {
  if (!default_domain(n) && n.domain() != kHiddenDomain) return std::nullopt;
  const std::string& op = n.op_type();
  const TypeInfo* x = in.type(0);
  if (!x || !x->is_tensor || !x->has_shape) return std::nullopt;
  std::optional<std::vector<int64_t>> d;
  int32_t elem = x->elem_type;
  bool replaces = false;
  if (op == "Einsum") {
    std::vector<std::vector<int64_t>> dims;
    for (int k = 0; k < n.input_size(); ++k) {
      const TypeInfo* t = in.type(k);
      if (!t || !t->is_tensor || !t->has_shape) return std::nullopt;
      dims.push_back(t->dims);
    }
    const auto* equation = attr(n, "equation");
    if (!equation) return std::nullopt;  // ONNX's own checks report it
    try {
      d = einsum_dims(equation->s(), dims);
    } catch (const std::invalid_argument& e) {
      throw InputError(where + ": equation '" + equation->s() + "': " + e.what());
    }
  } else if (op == "OneHot") {
    const TypeInfo* values = in.type(2);
    if (!values) return std::nullopt;
    d = one_hot_dims(n, x->dims, in.value(1), where);
    elem = values->elem_type;  // the on/off values' type
  } else if (op == "Gelu" || op == "Mish" || op == "BitwiseNot" || op == "GroupNormalization" ||
             op == "RMSNormalization" || op == "RotaryEmbedding") {
    d = x->dims;
  } else if (op == "BitwiseAnd" || op == "BitwiseOr" || op == "BitwiseXor") {
    const TypeInfo* y = in.type(1);
    if (!y || !y->has_shape) return std::nullopt;
    d = broadcast(x->dims, y->dims, where);
  } else if (op == "CenterCropPad") {
    const Value* shape = in.value(1);
    if (!shape) return std::nullopt;
    const auto* axes_attr = attr(n, "axes");
    const std::vector<int64_t> axes =
        axes_of(axes_attr ? std::vector<int64_t>(axes_attr->ints().begin(), axes_attr->ints().end())
                          : std::vector<int64_t>{},
                static_cast<int64_t>(x->dims.size()), where, "CenterCropPad");
    if (shape->count() != static_cast<int64_t>(axes.size()))
      throw InputError(where + ": CenterCropPad has " + std::to_string(shape->count()) + " target extents for " +
                       std::to_string(axes.size()) + " axes");
    d = x->dims;
    for (size_t k = 0; k < axes.size(); ++k) {
      const int64_t target = shape->int_at(static_cast<int64_t>(k));
      if (target < 0) throw InputError(where + ": CenterCropPad target extent " + std::to_string(target) + " is negative");
      (*d)[static_cast<size_t>(axes[k])] = target;
    }
  } else if (op == "Pad" && n.input_size() > 3 && !n.input(3).empty()) {
    d = pad_dims(x->dims, in.value(1), in.value(3), where);
    replaces = true;
  } else if (op == "Resize" && (attr(n, "axes") || attr(n, "keep_aspect_ratio_policy"))) {
    d = resize_dims(n, x->dims, n.input_size() > 2 && !n.input(2).empty() ? in.value(2) : nullptr,
                    n.input_size() > 3 && !n.input(3).empty() ? in.value(3) : nullptr, where);
    replaces = true;
  } else if (op == "Attention") {
    return attention_types(n, in, where);
  } else if (op == "Split" && attr(n, "num_outputs") && (n.input_size() < 2 || n.input(1).empty()) &&
             !attr(n, "split")) {
    // Split-18 into num_outputs parts of ceil(dim / num_outputs), the last smaller (1.12's
    // Split-13 knows only equal parts).
    const int64_t parts = attr(n, "num_outputs")->i();
    if (parts < 1 || parts != n.output_size())
      throw InputError(where + ": num_outputs " + std::to_string(parts) + " for " + std::to_string(n.output_size()) +
                       " outputs");
    const int64_t rank = static_cast<int64_t>(x->dims.size());
    const auto* axis_attr = attr(n, "axis");
    const int64_t axis = normalized_axis(axis_attr ? axis_attr->i() : 0, rank, where, "Split");
    const int64_t dim = x->dims[static_cast<size_t>(axis)];
    if (dim < 0) return std::nullopt;
    const int64_t chunk = dim / parts + (dim % parts != 0);
    OpTypes out;
    for (int64_t k = 0; k < parts; ++k) {
      TypeInfo t{true, elem, true, x->dims};
      t.dims[static_cast<size_t>(axis)] = std::clamp<int64_t>(dim - k * chunk, 0, chunk);
      out.outputs.push_back(t);
    }
    return out;
  } else {
    return std::nullopt;
  }
  if (!d) return std::nullopt;
  return OpTypes{{TypeInfo{true, elem, true, *d}}, replaces};
}

}  // namespace memplan::onnx_fe
