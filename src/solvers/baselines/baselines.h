// The production-allocator baselines as plain functions (the registered solvers wrap them;
// the golden tests call them directly). Each follows the numbered reimplementation spec in
// ../shared/research/heuristics.md; section numbers are cited per function.
//
// Functions returning Objects take records without pre-placed buffers (the solvers wrap
// them in with_fixed_below); functions returning Plan honour Rec::fixed themselves unless
// noted. Every algorithm takes a Deadline and returns complete == false (a clear reason in
// Plan::detail) when it expires before a plan exists; the one-pass greedy ones are
// O(n k log k) for k time-overlapping buffers, i.e. O(n^2 log n) on dense inputs.
#pragma once

#include "memplan/timeline.h"
#include "solvers/baselines/common.h"

namespace memplan::baselines {

// ---- TFLite GPU delegate (§1.1) ----
Objects tflite_gpu_naive(const std::vector<Rec>& recs);                      // §1.1.1
Objects tflite_gpu_equality(const std::vector<Rec>& recs, const Deadline& dl = Deadline());                   // §1.1.2
Objects tflite_gpu_greedy_in_order(const std::vector<Rec>& recs, const Deadline& dl = Deadline());            // §1.1.3
Objects tflite_gpu_greedy_by_breadth(const std::vector<Rec>& recs, const Deadline& dl);  // §1.1.4
Objects tflite_gpu_greedy_by_size_objects(const std::vector<Rec>& recs, const Deadline& dl);  // §1.1.5
Objects tflite_gpu_min_cost_flow(const std::vector<Rec>& recs, const Deadline& dl);  // §1.1.8
// The same flow as an assignment problem solved by Dijkstra-based shortest augmenting
// paths (exact: same minimum cost; equal-cost ties may differ from the source). With
// near_candidates > 0 each tensor may reuse only that many finished tensors closest in
// size (used above 8M reuse edges).
Objects tflite_gpu_min_cost_flow_assignment(const std::vector<Rec>& recs, const Deadline& dl,
                                            int near_candidates = 0);
Objects tflite_gpu_greedy_best(const std::vector<Rec>& recs, const Deadline& dl);  // §1.1.7
// §1.1.6 GREEDY_BY_SIZE offsets; base_align = the source's base_addr_align_bytes (applied to
// tensor tops), combined with each buffer's own alignment. Honours fixed offsets.
Plan tflite_gpu_greedy_by_size(const std::vector<Rec>& recs, int64_t base_align = 1,
                               const Deadline& dl = Deadline());
// Positional maximums (§1.1 helper), exposed for the golden test.
// Stops early (an incomplete profile) when `dl` expires: callers check dl.expired().
std::vector<int64_t> tflite_gpu_positional_maximums(const std::vector<Rec>& recs, const Deadline& dl = Deadline());

// ---- TFLite core arena (§1.2), TFLite Micro (§1.3) ----
Plan tflite_cpu_arena(const std::vector<Rec>& recs, int64_t tensor_alignment,
                      const Deadline& dl = Deadline());
// SimpleMemoryArena's best fit in ArenaPlanner's order (sort = true) or in input order
// (sort = false: IREE LayoutSlices, §6d, which copied the algorithm).
Plan arena_best_fit(const std::vector<Rec>& recs, int64_t tensor_alignment, bool sort,
                    const Deadline& dl = Deadline());
Plan tflite_micro_greedy(const std::vector<Rec>& recs, const Deadline& dl = Deadline());

// ---- XLA heap simulator (§3.2-3.4) ----
enum class XlaOrder { kSpatial, kTemporal, kSpatialTemporal };
enum class XlaFit { kBestFit, kLowestOffset };
Plan xla_best_fit(const std::vector<Rec>& recs, XlaOrder order, XlaFit fit = XlaFit::kBestFit,
                  int64_t heap_alignment = 1, const Deadline& dl = Deadline());

// ---- TVM USMP (§2) ----
Plan tvm_greedy_by_size(const std::vector<Rec>& recs, const Deadline& dl = Deadline());
Plan tvm_greedy_by_conflicts(const std::vector<Rec>& recs, const Deadline& dl = Deadline());
// seed: the rand_r state (TVM uses 0). Returns the last accepted plan (source quirk).
Plan tvm_hill_climb(const std::vector<Rec>& recs, uint32_t seed, const Deadline& dl,
                    int max_attempts = 500);

// ---- MindSpore SOMAS (§4) ----
// threshold: SOMAS's kSolBytesThreshold preference for shared-objects plans (100 MiB);
// 0 gives the pure minimum. Pre-placed buffers: with_fixed_below.
// `may_share` (optional): SOMAS's may-share relation given as a conflict graph instead of
// lifetimes (explicit conflicts, parallel streams): SOMAS derives it from the graph's
// ancestor/descendant analysis, which is exactly that relation. `graph_id[k]` is record k's
// vertex in it (records may be a subset of its buffers: the free ones).
struct MayShare {
  const ConflictGraph* graph = nullptr;
  std::vector<int32_t> graph_id;
};
Plan somas(const std::vector<Rec>& recs, int64_t threshold, const Deadline& dl, const MayShare& share = {});

// ---- Triton (§5), ONNX Runtime (§6a), ExecuTorch (§6b) ----
Plan triton_shared_memory(const std::vector<Rec>& recs, const Deadline& dl);
Plan onnxruntime_mem_pattern(const std::vector<Rec>& recs, const Deadline& dl = Deadline());
Objects executorch_greedy_buckets(const std::vector<Rec>& recs, std::vector<int64_t>* in_bucket,
                                  const Deadline& dl);
Plan executorch_greedy(const std::vector<Rec>& recs, const Deadline& dl);

// One registration function per framework file; register_baselines calls them all.
void register_tflite_gpu(std::vector<SolverInfo>& out);
void register_tflite_cpu(std::vector<SolverInfo>& out);
void register_tflite_micro(std::vector<SolverInfo>& out);
void register_tvm(std::vector<SolverInfo>& out);
void register_xla(std::vector<SolverInfo>& out);
void register_somas(std::vector<SolverInfo>& out);
void register_triton(std::vector<SolverInfo>& out);
void register_onnxruntime(std::vector<SolverInfo>& out);
void register_executorch(std::vector<SolverInfo>& out);
void register_iree(std::vector<SolverInfo>& out);

}  // namespace memplan::baselines
