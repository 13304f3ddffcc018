// The operator schemas ONNX 1.12's shape inference runs, with guards in front of the inference
// functions that read out of bounds on inputs of unexpected rank. Found by fuzzing (a
// ConvTranspose of a rank-2 input, a Gemm-6 of a rank-1 B crashed the import with SIGSEGV)
// and by running every version of every operator on inputs of each rank pairing from 0 to 4
// and on untyped inputs (`python3 scripts/onnx_rank_scan.py build/memplan`: 9,082 models,
// none crashes since): Conv, ConvInteger, QLinearConv and ConvTranspose
// index the weight's dims by the input's spatial dims (and the reverse), MaxUnpool its
// indices' dims by the input's, STFT reads a signal of rank 0 or 1 at dims it lacks, Gemm-6
// reads dim 1 of A and B whatever their rank, and RNN-1, GRU-3 and LSTM-1 read dims of X of
// rank 0 or 1. The checks are the operators' own rules (ONNX operator docs): the data input
// has a batch, a channel and at least one spatial dim, and the weight (indices) has as many
// dims; STFT's signal is [batch, length, 1 or 2]; Gemm multiplies matrices; the recurrent
// ops' X, W and R have rank 3. The guards see the types inference has reached at each node,
// so an input whose rank comes out of earlier nodes is checked too.
#include <onnx/defs/schema.h>

#include "frontend/onnx/internal.h"

namespace memplan::onnx_fe {
namespace {

// One rule: input `input` has a rank in [min_rank, max_rank] and, when `same_as` >= 0, as
// many dims as input `same_as`. An operator may have several.
struct RankRule {
  const char* op;
  int input;
  int min_rank, max_rank;
  int same_as;
  const char* what;  // the operator's rule, for messages
};
constexpr int kAny = 1 << 20;
constexpr const char* kConv = "a data input of rank >= 3 (batch, channels, spatial dims) and a weight of the same rank";
constexpr const char* kRnn = "inputs X [seq_length, batch, input_size], W and R of rank 3";
constexpr RankRule kRankRules[] = {
    {"Conv", 0, 3, kAny, -1, kConv},
    {"Conv", 1, 0, kAny, 0, kConv},
    {"ConvInteger", 0, 3, kAny, -1, kConv},
    {"ConvInteger", 1, 0, kAny, 0, kConv},
    {"QLinearConv", 0, 3, kAny, -1, kConv},
    {"QLinearConv", 3, 0, kAny, 0, kConv},
    {"ConvTranspose", 0, 3, kAny, -1, kConv},
    {"ConvTranspose", 1, 0, kAny, 0, kConv},
    {"MaxUnpool", 0, 3, kAny, -1, "a data input of rank >= 3 (batch, channels, spatial dims) and indices of the same rank"},
    {"MaxUnpool", 1, 0, kAny, 0, "a data input of rank >= 3 (batch, channels, spatial dims) and indices of the same rank"},
    {"STFT", 0, 3, 3, -1, "a signal of rank 3 (batch, length, 1 or 2)"},
    {"Gemm", 0, 2, 2, -1, "inputs A and B of rank 2"},
    {"Gemm", 1, 2, 2, -1, "inputs A and B of rank 2"},
    {"RNN", 0, 3, 3, -1, kRnn},   {"RNN", 1, 3, 3, -1, kRnn},   {"RNN", 2, 3, 3, -1, kRnn},
    {"GRU", 0, 3, 3, -1, kRnn},   {"GRU", 1, 3, 3, -1, kRnn},   {"GRU", 2, 3, 3, -1, kRnn},
    {"LSTM", 0, 3, 3, -1, kRnn},  {"LSTM", 1, 3, 3, -1, kRnn},  {"LSTM", 2, 3, 3, -1, kRnn},
};

bool has_rank_rule(const std::string& op) {
  for (const RankRule& r : kRankRules)
    if (op == r.op) return true;
  return false;
}

}  // namespace

std::string rank_rule_violation(const std::string& op, const std::function<int(int)>& rank) {
  for (const RankRule& r : kRankRules) {
    if (op != r.op) continue;
    const int have = rank(r.input);
    if (have < 0) continue;  // no shape yet: nothing to check
    const int other = r.same_as >= 0 ? rank(r.same_as) : -1;
    if (have >= r.min_rank && have <= r.max_rank && (other < 0 || other == have)) continue;
    return "input " + std::to_string(r.input) + " has rank " + std::to_string(have) +
           (other >= 0 ? " and input " + std::to_string(r.same_as) + " rank " + std::to_string(other) : "") + " (" +
           r.op + " needs " + r.what + ")";
  }
  return "";
}

const onnx::OpSchema* GuardedSchemas::GetSchema(const std::string& key, const int max_version,
                                                 const std::string& domain) const {
  const onnx::OpSchema* plain = onnx::OpSchemaRegistry::Instance()->GetSchema(key, max_version, domain);
  if (!plain || !plain->has_type_and_shape_inference_function()) return plain;
  const bool ruled = has_rank_rule(key) && (domain.empty() || domain == "ai.onnx");
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<onnx::OpSchema>& guarded = guarded_[plain];
  if (!guarded) {
    guarded = std::make_unique<onnx::OpSchema>(*plain);
    const onnx::InferenceFunction infer = plain->GetTypeAndShapeInferenceFunction();
    std::vector<size_t> required;  // the single (not optional, not variadic) inputs
    for (size_t k = 0; k < plain->inputs().size(); ++k)
      if (plain->inputs()[k].GetOption() == onnx::OpSchema::Single) required.push_back(k);
    guarded->TypeAndShapeInferenceFunction([this, key, infer, ruled, required](onnx::InferenceContext& ctx) {
      // A required input without a type (a graph input declared without one, or the output
      // of a node inference skipped): some inference functions read it through a null
      // pointer (a Shape-15 of an untyped graph input crashed the import: a fuzz find). The
      // node is skipped as inference skips what it cannot type; its outputs stay untyped
      // and the import names them. (An optional input left out, such as a Loop's M, has no
      // type either: only single inputs are checked.)
      for (size_t k : required)
        if (k < ctx.getNumInputs() && !ctx.getInputType(k)) fail_shape_inference("input ", k, " has no type");
      if (!ruled) return infer(ctx);
      // The rank of input k as inference has it, or -1 without a shape (or such an input).
      const std::string why = rank_rule_violation(key, [&ctx](int k) {
        if (k >= static_cast<int>(ctx.getNumInputs())) return -1;
        const onnx::TypeProto* t = ctx.getInputType(static_cast<size_t>(k));
        if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
        return t->tensor_type().shape().dim_size();
      });
      if (!why.empty()) {
        {
          std::lock_guard<std::mutex> refused_lock(refused_mu_);
          refused_.emplace(key, why);
        }
        fail_shape_inference(why);  // the node is skipped; its outputs stay untyped
      }
      infer(ctx);
    });
  }
  return guarded.get();
}

std::map<std::string, std::string> GuardedSchemas::refused() const {
  std::lock_guard<std::mutex> lock(refused_mu_);
  return refused_;
}

}  // namespace memplan::onnx_fe
