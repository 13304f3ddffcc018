// Internal to the CLI: planning a model on its scheduled order (schedule_plan.h) and writing
// what was kept: the summary line's fields and the order file a compiler applies.
#pragma once

#include <string>

#include "cli/load.h"
#include "memplan/schedule_plan.h"

namespace memplan {

// Plans a loaded model (l.graph set) on its scheduled order and on the graph order, keeps the
// better (plan_scheduled), and leaves the kept order's problem in l.problem.
ScheduledPlan solve_model(Loaded& l, const std::string& algo, const SolveOptions& options);

// " schedule=MODE kept=memory|graph order_load=.. graph_order_load=.. schedule_peak=.. graph_peak=.."
std::string schedule_fields(const ScheduledPlan& p);

// The text of the kept order's file: one operator name per line, or JSON (write_order_json)
// when `path` ends in .json. The caller writes it with its other outputs, all or nothing.
std::string order_file_text(const std::string& path, const Graph& g, const ScheduledPlan& p);

}  // namespace memplan
