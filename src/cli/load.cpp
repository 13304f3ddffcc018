#include "cli/load.h"

#include <iostream>

#include "memplan/io_json.h"
#ifdef MEMPLAN_HAVE_ONNX
#include "memplan/onnx.h"
#endif

namespace memplan {
bool has_extension(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// By extension: .json (io_json.h), .plc (idealloc binary trace), anything else CSV.
Loaded load_problem_as_given(const std::string& path, const std::string& lifetimes, bool lenient) {
  Loaded l;
#ifdef MEMPLAN_HAVE_ONNX
  if (has_extension(path, ".onnx")) {
    l.problem = import_onnx(path);
    return l;
  }
#endif
  if (has_extension(path, ".json")) {
    std::vector<std::string> warnings;
    l.problem = read_json_file(path, JsonReadOptions{lenient, &warnings});
    for (const std::string& w : warnings) std::cerr << "memplan: warning: " << w << "\n";
    return l;
  }
  if (has_extension(path, ".plc")) {
    l.problem = read_plc_file(path);
    return l;
  }
  CsvTable t = read_csv_file(path, lifetimes == "inclusive" ? Lifetimes::kInclusive
                                                             : Lifetimes::kHalfOpen);
  if (lifetimes == "inclusive") {
    // Written back half-open: drop the inclusive 'end' naming if any.
    for (auto& c : t.columns)
      if (c == "end") c = "upper";
  }
  for (const std::string& w : t.warnings) std::cerr << "memplan: warning: " << w << "\n";
  l.problem = t.problem;
  l.table = std::move(t);
  return l;
}

}  // namespace memplan
