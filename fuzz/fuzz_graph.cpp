// Graph files (graph_io.h): any bytes either read or raise InputError; what is read writes
// back and reads again to the same graph; scheduling (graph, memory and exact modes) returns
// a topological order whose LOAD is the one order_load gives, never below the lower bound
// nor above the graph order's; the lowering under that order gives a problem whose LOAD is
// that same figure, and a plan of it passes the checker.
#include <sstream>

#include "fuzz_common.h"
#include "memplan/constraints.h"
#include "memplan/graph_io.h"
#include "memplan/io.h"
#include "memplan/schedule.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace {

bool same_graph(const memplan::Graph& a, const memplan::Graph& b) {
  if (a.tensors.size() != b.tensors.size() || a.ops.size() != b.ops.size()) return false;
  for (size_t t = 0; t < a.tensors.size(); ++t) {
    const memplan::Tensor &x = a.tensors[t], &y = b.tensors[t];
    if (x.name != y.name || x.bytes != y.bytes || x.kind != y.kind || x.dtype != y.dtype || x.shape != y.shape ||
        x.producer != y.producer || x.consumers != y.consumers)
      return false;
  }
  for (size_t o = 0; o < a.ops.size(); ++o) {
    const memplan::Operator &x = a.ops[o], &y = b.ops[o];
    if (x.name != y.name || x.type != y.type || x.inputs != y.inputs || x.outputs != y.outputs ||
        x.scratch_bytes != y.scratch_bytes)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  if (size > fuzz::kMaxBytes) return 0;
  std::istringstream in(fuzz::text(data, size));
  Graph g;
  try {
    g = read_graph_jsonl(in, "fuzz.jsonl");
  } catch (const InputError&) {
    return 0;
  }
  std::ostringstream out;
  try {
    write_graph_jsonl(out, g);
  } catch (const std::invalid_argument&) {
    return 0;  // a name that cannot be written as JSON (not valid UTF-8); reading it was fine
  }
  std::istringstream again(out.str());
  try {
    if (!same_graph(read_graph_jsonl(again, "again.jsonl"), g)) fuzz::fail("graph write/read changed the graph");
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    fuzz::fail("graph written by memplan does not read back");
  }
  for (ScheduleMode mode : {ScheduleMode::kGraph, ScheduleMode::kMemory, ScheduleMode::kExact}) {
    ScheduleOptions o;
    o.mode = mode;
    o.time_limit = 0.2;
    o.exact_max_states = 20'000;
    ScheduleResult r;
    try {
      r = schedule(g, o);
    } catch (const InputError&) {
      return 0;  // a tensor of unknown size: refused, as documented
    }
    if (!is_topological(g, r.order)) fuzz::fail("schedule returned an order that is not topological");
    if (order_load(g, r.order, o.lower) != r.load) fuzz::fail("schedule's LOAD is not its order's");
    if (r.load < r.lower_bound) fuzz::fail("schedule's lower bound is above its own order's LOAD");
    if (r.load > r.graph_order_load) fuzz::fail("schedule's order is worse than the graph order");
    const LoweredGraph low = lower(g, r.order, o.lower);
    if (constrained_lower_bound(low.problem) != r.load) fuzz::fail("the lowered problem's LOAD is not the order's");
    SolveOptions so;
    so.time_limit_seconds = 0;
    SolveResult plan;
    try {
      plan = solve(low.problem, "first-fit", so);
    } catch (const InputError&) {
      // Documented: a tensor name with a line break or another control character (a tab
      // aside) cannot be an id (check.h). Nothing else.
      for (const Buffer& b : low.problem.buffers)
        for (const char c : b.id)
          if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return 0;
      fuzz::fail("solve refused a lowered graph");
    }
    if (!plan.solution || !validate(low.problem, plan.solution->offsets).ok) fuzz::fail("no valid plan of the lowered graph");
  }
  return 0;
}
