// Reading a plan back: a CSV with an id column (or alias) and an offset column, such as
// memplan's or MiniMalloc's output, split as the problem reader does (csv_fields.h), and
// the chosen memories and absences solve writes beside them (spaces_io.h).
#include <optional>
#include <sstream>

#include "io/check.h"
#include "io/csv_fields.h"
#include "io/plan_rows.h"
#include "memplan/io.h"
#include "memplan/spaces_io.h"

namespace memplan {

std::vector<int64_t> read_plan_csv(std::istream& in, const std::string& name, const Problem& problem,
                                   PlanColumns* columns) {
  CsvRows t = open_csv_rows(in, name, "'id' and 'offset' columns");
  int id_col = -1;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const std::string& col = t.columns[c];
    if (col != "id" && col != "buffer" && col != "buffer_id") continue;
    if (id_col >= 0) t.fail(col, "duplicate column (same field as '" + t.columns[id_col] + "')");
    id_col = static_cast<int>(c);
  }
  const int offset_col = t.column({"offset"});
  if (id_col < 0) t.fail("id", "missing required column (a plan needs 'id' and 'offset')");
  if (offset_col < 0) t.fail("offset", "missing required column (a plan needs 'id' and 'offset')");
  const int space_col = columns ? t.column({"space"}) : -1;
  const int evictions_col = columns ? t.column({"evictions"}) : -1;
  if (columns) {
    *columns = {};
    columns->has_evictions = evictions_col >= 0;
    if (space_col >= 0) columns->space.resize(problem.buffers.size());
  }

  PlanRows rows(problem);
  std::vector<int64_t> offsets(problem.buffers.size(), 0);
  std::vector<size_t> line_of(problem.buffers.size(), 0);  // 0: no row yet
  std::vector<std::string> f;
  while (t.next(f)) {
    const std::string& id = f[id_col];
    const std::optional<size_t> buffer = rows.buffer_of(id, t.lineno - 2);
    if (!buffer) t.fail(t.columns[id_col], "buffer '" + id + "' is not in the problem");
    if (line_of[*buffer])
      t.fail(t.columns[id_col], "duplicate id '" + id + "' (first on line " + std::to_string(line_of[*buffer]) + ")");
    const std::string& text = f[offset_col];
    if (text.empty()) t.fail("offset", "no offset for buffer '" + id + "'");
    offsets[*buffer] = t.integer(text, "offset");
    line_of[*buffer] = t.lineno;
    if (space_col >= 0) {
      if (f[space_col].empty() || f[space_col].find('|') != std::string::npos)
        t.fail("space", "expected the one memory buffer '" + id + "' was placed in, found '" + f[space_col] + "'");
      columns->space[*buffer] = f[space_col];
    }
    if (evictions_col < 0) continue;
    std::istringstream list(f[evictions_col]);
    for (std::string pair; list >> pair;) {
      const size_t dash = pair.find('-', 1);  // "lo-hi"; lo may be negative
      if (dash == std::string::npos) t.fail("evictions", "expected 'lo-hi', found '" + pair + "'");
      columns->evictions.push_back(
          {*buffer, t.integer(pair.substr(0, dash), "evictions"), t.integer(pair.substr(dash + 1), "evictions")});
    }
  }
  ++t.lineno;
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    if (!line_of[i]) t.fail("id", "end of plan: buffer '" + problem.buffers[i].id + "' of the problem has no row");
  return offsets;
}

std::vector<int64_t> read_plan_csv_file(const std::string& path, const Problem& problem, PlanColumns* columns) {
  std::ifstream in = open_input(path);
  return read_plan_csv(in, path, problem, columns);
}

std::vector<int64_t> read_solution_csv(std::istream& in, const std::string& name, const Problem& problem) {
  return read_plan_csv(in, name, problem, nullptr);
}

std::vector<int64_t> read_solution_csv_file(const std::string& path, const Problem& problem) {
  return read_plan_csv_file(path, problem, nullptr);
}

}  // namespace memplan
