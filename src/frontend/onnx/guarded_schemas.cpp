// The operator schemas ONNX 1.12's shape inference runs, with guards in front of the inference
// functions that read out of bounds on inputs of unexpected rank. Found by fuzzing (a
// ConvTranspose of a rank-2 input crashed the import with SIGSEGV) and by running every
// operator of opsets 13 and 17 on inputs of every rank pairing from 0 to 4: Conv,
// ConvInteger, QLinearConv and ConvTranspose index the weight's dims by the input's spatial
// dims (and the reverse), MaxUnpool indexes its indices' dims by the input's, STFT reads a
// signal of rank 0 or 1 at dims it lacks. The checks are the operators' own rules (ONNX
// operator docs): the data input has a batch, a channel and at least one spatial dim, and the
// weight (indices) has as many dims; STFT's signal is [batch, length, 1 or 2]. The
// guards see the types inference has reached at each node, so an input whose rank comes out
// of earlier nodes is checked too.
#include <onnx/defs/schema.h>

#include "frontend/onnx/internal.h"

namespace memplan::onnx_fe {
namespace {

struct RankRule {
  const char* op;
  int data;        // the input with batch, channels and spatial dims (STFT: batch, length, 1|2)
  int min_rank;    // its least rank
  int second;      // the input that must have as many dims (weight, MaxUnpool's indices), or -1
  const char* what;  // the rule, for messages
};
constexpr RankRule kRankRules[] = {
    {"Conv", 0, 3, 1, "a data input of rank >= 3 (batch, channels, spatial dims) and a weight of the same rank"},
    {"ConvInteger", 0, 3, 1, "a data input of rank >= 3 (batch, channels, spatial dims) and a weight of the same rank"},
    {"QLinearConv", 0, 3, 3, "a data input of rank >= 3 (batch, channels, spatial dims) and a weight of the same rank"},
    {"ConvTranspose", 0, 3, 1, "a data input of rank >= 3 (batch, channels, spatial dims) and a weight of the same rank"},
    {"MaxUnpool", 0, 3, 1, "a data input of rank >= 3 (batch, channels, spatial dims) and indices of the same rank"},
    {"STFT", 0, 3, -1, "a signal of rank 3 (batch, length, 1 or 2)"},
};

const RankRule* rank_rule(const std::string& op) {
  for (const RankRule& r : kRankRules)
    if (op == r.op) return &r;
  return nullptr;
}

}  // namespace

std::string rank_rule_violation(const std::string& op, const std::function<int(int)>& rank) {
  const RankRule* rule = rank_rule(op);
  if (!rule) return "";
  const int data = rank(rule->data), second = rule->second >= 0 ? rank(rule->second) : -1;
  if (!((data >= 0 && data < rule->min_rank) || (data >= 0 && second >= 0 && second != data))) return "";
  return "input " + std::to_string(rule->data) + " has rank " + std::to_string(data) +
         (second >= 0 ? " and input " + std::to_string(rule->second) + " rank " + std::to_string(second) : "") + " (" +
         rule->op + " needs " + rule->what + ")";
}

const onnx::OpSchema* GuardedSchemas::GetSchema(const std::string& key, const int max_version,
                                                 const std::string& domain) const {
  const onnx::OpSchema* plain = onnx::OpSchemaRegistry::Instance()->GetSchema(key, max_version, domain);
  const RankRule* rule = rank_rule(key);
  if (!plain || !rule || !(domain.empty() || domain == "ai.onnx") || !plain->has_type_and_shape_inference_function())
    return plain;
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<onnx::OpSchema>& guarded = guarded_[plain];
  if (!guarded) {
    guarded = std::make_unique<onnx::OpSchema>(*plain);
    const onnx::InferenceFunction infer = plain->GetTypeAndShapeInferenceFunction();
    guarded->TypeAndShapeInferenceFunction([this, key, infer](onnx::InferenceContext& ctx) {
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
