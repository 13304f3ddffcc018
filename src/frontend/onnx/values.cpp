// Small constant tensors: element types, reading TensorProtos, and static type info.
#include <cstring>

#include "frontend/onnx/internal.h"

namespace memplan::onnx_fe {

using T = onnx::TensorProto;

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& n, const char* name, int64_t def) {
  const auto* a = attr(n, name);
  return a ? a->i() : def;
}

std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const char* name) {
  const auto* a = attr(n, name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

bool normalize_axis(int64_t& axis, int64_t rank) {
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < rank;
}

std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<const std::vector<int64_t>*>& shapes) {
  size_t rank = 0;
  for (const auto* s : shapes) rank = std::max(rank, s->size());
  std::vector<int64_t> out(rank, 1);
  for (const auto* s : shapes)
    for (size_t k = 0; k < s->size(); ++k) {
      int64_t& o = out[rank - s->size() + k];
      const int64_t d = (*s)[k];
      if (d == o || d == 1) continue;
      if (o == 1) o = d;
      else if (o < 0 || d < 0) o = std::max(o, d);  // an unknown dim: the known size decides
      else return std::nullopt;
    }
  return out;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + (dims[k] < 0 ? std::string("?") : std::to_string(dims[k]));
  return s + "]";
}

int64_t bytes_of(const TypeInfo& t, const std::string& path, const std::string& what) {
  const int64_t bits = element_bits(t.elem_type);
  if (bits == 0 || !t.known()) return -1;
  __int128 count = 1;
  for (int64_t d : t.dims) {
    count *= d;
    if (count > (static_cast<__int128>(1) << 60)) throw InputError(path + ": " + what + ": size overflows 64 bits");
  }
  return static_cast<int64_t>((count * bits + 7) / 8);
}

int64_t element_bits(int32_t type) {
  switch (type) {
    case T::FLOAT: case T::INT32: case T::UINT32: return 32;
    case T::DOUBLE: case T::INT64: case T::UINT64: case T::COMPLEX64: return 64;
    case T::COMPLEX128: return 128;
    case T::FLOAT16: case T::BFLOAT16: case T::INT16: case T::UINT16: return 16;
    case T::INT8: case T::UINT8: case T::BOOL: return 8;
    // Types added after ONNX 1.12 (its enum lacks their names; values from onnx.proto):
    // float8 e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0; uint4, int4, float4e2m1 (packed two a
    // byte); uint2, int2 (four a byte).
    case 17: case 18: case 19: case 20: case 24: return 8;
    case 21: case 22: case 23: return 4;
    case 25: case 26: return 2;
    default: return 0;  // STRING and UNDEFINED have no fixed size
  }
}

const char* dtype_name(int32_t type) {
  switch (type) {
    case T::FLOAT: return "float32";
    case T::DOUBLE: return "float64";
    case T::FLOAT16: return "float16";
    case T::BFLOAT16: return "bfloat16";
    case T::INT8: return "int8";
    case T::INT16: return "int16";
    case T::INT32: return "int32";
    case T::INT64: return "int64";
    case T::UINT8: return "uint8";
    case T::UINT16: return "uint16";
    case T::UINT32: return "uint32";
    case T::UINT64: return "uint64";
    case T::BOOL: return "bool";
    case T::COMPLEX64: return "complex64";
    case T::COMPLEX128: return "complex128";
    case T::STRING: return "string";
    case 17: return "float8e4m3fn";
    case 18: return "float8e4m3fnuz";
    case 19: return "float8e5m2";
    case 20: return "float8e5m2fnuz";
    case 21: return "uint4";
    case 22: return "int4";
    case 23: return "float4e2m1";
    case 24: return "float8e8m0";
    case 25: return "uint2";
    case 26: return "int2";
    default: return "undefined";
  }
}

bool Value::is_real() const {
  return type == T::FLOAT || type == T::DOUBLE || type == T::FLOAT16 || type == T::BFLOAT16;
}

int64_t Value::count() const {
  int64_t c = 1;
  for (int64_t d : dims) c *= d;  // values are built at most kMaxFoldElements large
  return c;
}

namespace {
template <typename X>
std::vector<X> raw_as(const std::string& raw, int64_t n) {
  std::vector<X> out(static_cast<size_t>(n));
  if (n > 0) std::memcpy(out.data(), raw.data(), static_cast<size_t>(n) * sizeof(X));
  return out;
}
}  // namespace

std::optional<Value> value_of(const onnx::TensorProto& t) {
  if (t.data_location() == T::EXTERNAL || t.has_segment()) return std::nullopt;
  Value v;
  v.type = t.data_type();
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > kMaxFoldElements) return std::nullopt;
    v.dims.push_back(d);
    n *= d;
    if (n > kMaxFoldElements) return std::nullopt;
  }
  const bool raw = t.has_raw_data();
  const std::string& r = t.raw_data();
  auto need = [&](int64_t have) { return have == n; };
  switch (v.type) {
    case T::INT64:
      if (raw) { if (!need(static_cast<int64_t>(r.size()) / 8)) return std::nullopt; v.ints = raw_as<int64_t>(r, n); }
      else { if (!need(t.int64_data_size())) return std::nullopt; v.ints.assign(t.int64_data().begin(), t.int64_data().end()); }
      return v;
    case T::INT32: case T::INT16: case T::INT8: case T::UINT8: case T::BOOL: case T::UINT16: {
      if (raw) {
        const int64_t bytes = element_bits(v.type) / 8;
        if (!need(static_cast<int64_t>(r.size()) / bytes)) return std::nullopt;
        for (int64_t k = 0; k < n; ++k) {
          const char* p = r.data() + k * bytes;
          switch (v.type) {
            case T::INT32: { int32_t x; std::memcpy(&x, p, 4); v.ints.push_back(x); break; }
            case T::INT16: { int16_t x; std::memcpy(&x, p, 2); v.ints.push_back(x); break; }
            case T::UINT16: { uint16_t x; std::memcpy(&x, p, 2); v.ints.push_back(x); break; }
            case T::INT8: v.ints.push_back(static_cast<int8_t>(*p)); break;
            default: v.ints.push_back(static_cast<uint8_t>(*p)); break;
          }
        }
      } else {
        if (!need(t.int32_data_size())) return std::nullopt;
        v.ints.assign(t.int32_data().begin(), t.int32_data().end());
      }
      return v;
    }
    case T::FLOAT:
      if (raw) { if (!need(static_cast<int64_t>(r.size()) / 4)) return std::nullopt; for (float x : raw_as<float>(r, n)) v.reals.push_back(x); }
      else { if (!need(t.float_data_size())) return std::nullopt; v.reals.assign(t.float_data().begin(), t.float_data().end()); }
      return v;
    case T::DOUBLE:
      if (raw) { if (!need(static_cast<int64_t>(r.size()) / 8)) return std::nullopt; v.reals = raw_as<double>(r, n); }
      else { if (!need(t.double_data_size())) return std::nullopt; v.reals.assign(t.double_data().begin(), t.double_data().end()); }
      return v;
    default:
      return std::nullopt;
  }
}

onnx::TensorProto to_tensor(const Value& v, const std::string& name) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(v.type);
  for (int64_t d : v.dims) t.add_dims(d);
  switch (v.type) {
    case T::INT64: for (int64_t x : v.ints) t.add_int64_data(x); break;
    case T::FLOAT: for (double x : v.reals) t.add_float_data(static_cast<float>(x)); break;
    case T::DOUBLE: for (double x : v.reals) t.add_double_data(x); break;
    default: for (int64_t x : v.ints) t.add_int32_data(static_cast<int32_t>(x)); break;
  }
  return t;
}

bool TypeInfo::known() const {
  if (!is_tensor || !has_shape) return false;
  for (int64_t d : dims)
    if (d < 0) return false;
  return true;
}

TypeInfo type_info(const onnx::TypeProto& t) {
  TypeInfo out;
  out.is_sequence = t.has_sequence_type();
  out.is_other = t.has_map_type() || t.has_optional_type() || t.has_sparse_tensor_type();
  if (!t.has_tensor_type()) return out;
  out.is_tensor = true;
  out.elem_type = t.tensor_type().elem_type();
  if (!t.tensor_type().has_shape()) return out;
  out.has_shape = true;
  for (const auto& d : t.tensor_type().shape().dim())
    out.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
  return out;
}

void collect_types(const onnx::GraphProto& g, TypeMap& out) {
  auto add = [&](const onnx::ValueInfoProto& v) {
    if (!v.has_type()) return;
    TypeInfo t = type_info(v.type());
    auto it = out.find(v.name());
    // Keep the more informative of two declarations (inference may add a shape).
    if (it == out.end() || (!it->second.known() && (t.known() || (t.has_shape && !it->second.has_shape))))
      out[v.name()] = t;
  };
  for (const auto& t : g.initializer()) {
    TypeInfo info;
    info.is_tensor = true;
    info.elem_type = t.data_type();
    info.has_shape = true;
    info.dims.assign(t.dims().begin(), t.dims().end());
    out[t.name()] = info;
  }
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& v : g.output()) add(v);
}

}  // namespace memplan::onnx_fe
