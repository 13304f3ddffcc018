#include "cli/schedule_out.h"

#include <sstream>
#include <utility>

namespace memplan {

ScheduledPlan solve_model(Loaded& l, const std::string& algo, const SolveOptions& options) {
  ScheduledPlan p = plan_scheduled(*l.graph, l.scheduled, l.lower, algo, options);
  l.problem = p.lowered.problem;
  return p;
}

std::string schedule_fields(const ScheduledPlan& p) {
  std::ostringstream s;
  s << " schedule=" << p.schedule.method << " kept=" << (p.kept_graph_order ? "graph" : p.schedule.method)
    << " order_load=" << p.order_load << " graph_order_load=" << p.schedule.graph_order_load
    << " schedule_peak=" << p.schedule_peak << " graph_peak=" << p.graph_peak;
  return s.str();
}

std::string order_file_text(const std::string& path, const Graph& g, const ScheduledPlan& p) {
  std::ostringstream out;
  if (has_extension(path, ".json")) write_order_json(out, g, kept_schedule(g, p));
  else write_order_text(out, g, p.order);
  return out.str();
}

}  // namespace memplan
