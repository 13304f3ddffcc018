// Sequence values, element by element. ONNX 1.12's inference gives a sequence one element
// type (dims merged over its elements, so unknown where they differ), which leaves what
// SequenceAt and ConcatFromSequence return unsized; and the import refused every sequence.
// Here each sequence of the main graph is followed as a list of element types wherever its
// positions and split sizes are known values (ONNX operator specifications):
//   SplitToSequence(x, split?)  pieces of x along `axis`: one per index (squeezed unless
//                               keepdims), chunks of a scalar split (the last smaller), or
//                               the listed sizes (which must add up to the dim);
//   SequenceConstruct(t...)     the inputs; SequenceEmpty: none;
//   SequenceInsert(s, t, pos?)  t at pos (default: the end); SequenceErase(s, pos?): drops
//                               pos (default: the last); negative positions count from the end;
//   Identity(s)                 s;
//   SequenceAt(s, pos)          the element's type (a tensor: refined);
//   ConcatFromSequence(s)       the elements joined along `axis`, or stacked on a new axis.
// A sequence is then planned as one buffer of its elements' bytes (build.cpp). Where the
// split sizes are given at run time, the parts are unknown but not their bytes: x's.
#include "frontend/onnx/internal.h"
#include "memplan/io.h"

namespace memplan::onnx_fe {
namespace {

// A position value in [-count, count - 1 + extra] (extra = 1 for an insertion point).
std::optional<int64_t> position(const Value* v, int64_t count, int64_t extra, const std::string& where) {
  if (!v || v->count() != 1) return std::nullopt;
  int64_t p = v->int_at(0);
  if (p < -count || p > count - 1 + extra)
    throw InputError(where + ": position " + std::to_string(p) + " is outside a sequence of " +
                     std::to_string(count) + " elements");
  return p < 0 ? p + count : p;
}

}  // namespace

bool refine_sequences(const onnx::GraphProto& g, const Inferred& inferred, TypeMap& refined, Sequences& seqs,
                      std::unordered_map<std::string, int64_t>& bytes_only, const std::string& path) {
  bool changed = false;
  auto set_bytes = [&](const std::string& name, int64_t b) {
    if (b < 0 || seqs.count(name)) return;
    auto [it, fresh] = bytes_only.emplace(name, b);
    if (fresh || it->second != b) it->second = b, changed = true;
  };
  auto type = [&](const std::string& name) -> const TypeInfo* {
    if (auto it = refined.find(name); it != refined.end()) return &it->second;
    if (auto it = inferred.types.find(name); it != inferred.types.end()) return &it->second;
    return nullptr;
  };
  auto tensor = [&](const std::string& name) -> const TypeInfo* {
    const TypeInfo* t = type(name);
    return t && t->is_tensor && t->known() ? t : nullptr;
  };
  auto seq = [&](const std::string& name) -> const std::vector<TypeInfo>* {
    auto it = seqs.find(name);
    return it == seqs.end() ? nullptr : &it->second;
  };
  auto input = [](const onnx::NodeProto& n, int k) -> std::string { return k < n.input_size() ? n.input(k) : ""; };
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (!default_domain(n) || n.output_size() < 1 || n.output(0).empty()) continue;
    const std::string& op = n.op_type();
    const std::string where = path + ": " + node_label(n, i);
    const std::string& out = n.output(0);
    std::optional<std::vector<TypeInfo>> made;  // the sequence this node makes
    if (op == "SplitToSequence") {
      const TypeInfo* x = tensor(input(n, 0));
      if (!x) continue;
      const int64_t rank = static_cast<int64_t>(x->dims.size());
      int64_t axis = attr_int(n, "axis", 0);
      if (axis < -rank || axis >= rank)
        throw InputError(where + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
      if (axis < 0) axis += rank;
      const int64_t dim = x->dims[static_cast<size_t>(axis)];
      const auto x_bytes = [&] { return bytes_of(*x, path, "tensor '" + input(n, 0) + "'"); };
      // Past kMaxElements parts (a fuzzed dim of 10^12), only the bytes are kept.
      constexpr int64_t kMaxElements = int64_t{1} << 16;
      std::vector<int64_t> sizes;
      bool squeeze = false;
      const std::string split_name = input(n, 1);
      if (split_name.empty()) {
        if (dim > kMaxElements) {
          set_bytes(out, x_bytes());
          continue;
        }
        sizes.assign(static_cast<size_t>(dim), 1);
        squeeze = attr_int(n, "keepdims", 1) == 0;
      } else {
        const Value* split = inferred.known(split_name);
        if (!split) {  // sizes given at run time: the parts are unknown, their bytes are x's
          set_bytes(out, x_bytes());
          continue;
        }
        if (split->dims.empty()) {  // a scalar: chunks of that size, the last smaller
          const int64_t chunk = split->int_at(0);
          if (chunk <= 0) throw InputError(where + ": split " + std::to_string(chunk) + " is not positive");
          if (dim / chunk >= kMaxElements) {
            set_bytes(out, x_bytes());
            continue;
          }
          for (int64_t at = 0; at < dim; at += chunk) sizes.push_back(std::min(chunk, dim - at));
        } else {
          int64_t sum = 0;
          for (int64_t k = 0; k < split->count(); ++k) {
            if (split->int_at(k) < 0) throw InputError(where + ": a negative split size");
            sizes.push_back(split->int_at(k));
            sum = add_extents(sum, split->int_at(k), where);
          }
          if (sum != dim)
            throw InputError(where + ": split sizes add up to " + std::to_string(sum) + ", not the dim " +
                             std::to_string(dim));
        }
      }
      made.emplace();
      for (int64_t s : sizes) {
        TypeInfo e = *x;
        e.dims[static_cast<size_t>(axis)] = s;
        if (squeeze) e.dims.erase(e.dims.begin() + axis);
        made->push_back(e);
      }
    } else if (op == "SequenceConstruct") {
      made.emplace();
      for (const auto& in : n.input()) {
        const TypeInfo* t = tensor(in);
        if (!t) {
          made.reset();
          break;
        }
        made->push_back(*t);
      }
    } else if (op == "SequenceEmpty") {
      made.emplace();
    } else if (op == "SequenceInsert" || op == "SequenceErase" || op == "Identity") {
      const std::vector<TypeInfo>* s = seq(input(n, 0));
      if (!s) {  // a sequence known only by its bytes: Identity keeps them, an insertion adds
        auto b = bytes_only.find(input(n, 0));
        if (b == bytes_only.end()) continue;
        if (op == "Identity") set_bytes(out, b->second);
        if (op == "SequenceInsert")
          if (const TypeInfo* t = tensor(input(n, 1)))
            if (const int64_t tb = bytes_of(*t, path, "tensor '" + input(n, 1) + "'"); tb >= 0)
              set_bytes(out, add_extents(b->second, tb, where));
        continue;
      }
      made = *s;
      const int64_t count = static_cast<int64_t>(s->size());
      if (op == "SequenceInsert") {
        const TypeInfo* t = tensor(input(n, 1));
        if (!t) continue;
        const std::optional<int64_t> at =
            input(n, 2).empty() ? std::optional<int64_t>(count) : position(inferred.known(input(n, 2)), count, 1, where);
        if (!at) continue;
        made->insert(made->begin() + *at, *t);
      } else if (op == "SequenceErase") {
        if (count == 0) throw InputError(where + ": erases from an empty sequence");
        const std::optional<int64_t> at =
            input(n, 1).empty() ? std::optional<int64_t>(count - 1) : position(inferred.known(input(n, 1)), count, 0, where);
        if (!at) continue;
        made->erase(made->begin() + *at);
      }
    } else if (op == "SequenceAt" || op == "ConcatFromSequence") {
      const std::vector<TypeInfo>* s = seq(input(n, 0));
      if (!s) continue;
      TypeInfo t;
      if (op == "SequenceAt") {
        const std::optional<int64_t> at =
            position(inferred.known(input(n, 1)), static_cast<int64_t>(s->size()), 0, where);
        if (!at) continue;
        t = (*s)[static_cast<size_t>(*at)];
      } else {
        if (s->empty()) continue;
        t = s->front();
        const int64_t rank = static_cast<int64_t>(t.dims.size());
        const bool stack = attr_int(n, "new_axis", 0) != 0;
        int64_t axis = attr_int(n, "axis", 0);
        const int64_t range = stack ? rank + 1 : rank;
        if (axis < -range || axis >= range)
          throw InputError(where + ": axis " + std::to_string(axis) + " is out of range");
        if (axis < 0) axis += range;
        for (const TypeInfo& e : *s)
          for (int64_t k = 0; k < rank; ++k)
            if (e.dims.size() != t.dims.size() || ((stack || k != axis) && e.dims[k] != t.dims[k]))
              throw InputError(where + ": the sequence's elements differ in shape outside the axis");
        if (stack) {
          t.dims.insert(t.dims.begin() + axis, static_cast<int64_t>(s->size()));
        } else {
          int64_t sum = 0;
          for (const TypeInfo& e : *s) sum = add_extents(sum, e.dims[static_cast<size_t>(axis)], where);
          t.dims[static_cast<size_t>(axis)] = sum;
        }
      }
      auto it = refined.find(out);
      if (it != refined.end() && it->second.dims == t.dims && it->second.elem_type == t.elem_type) continue;
      const TypeInfo* now = type(out);
      if (now && now->known() && it == refined.end()) continue;  // inference sized it
      refined[out] = t;
      changed = true;
      continue;
    } else {
      continue;
    }
    if (!made) continue;
    auto it = seqs.find(out);
    if (it != seqs.end() && it->second.size() == made->size()) {
      bool same = true;
      for (size_t k = 0; k < made->size(); ++k)
        same &= it->second[k].dims == (*made)[k].dims && it->second[k].elem_type == (*made)[k].elem_type;
      if (same) continue;
    }
    seqs[out] = std::move(*made);
    changed = true;
  }
  return changed;
}

}  // namespace memplan::onnx_fe
