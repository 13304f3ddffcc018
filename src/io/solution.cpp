// Reading a plan back: a CSV with an id column (or alias) and an offset column, such as
// memplan's or MiniMalloc's output, split as the problem reader does (csv_fields.h).
#include <charconv>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "io/check.h"
#include "io/csv_fields.h"
#include "io/plan_rows.h"
#include "memplan/io.h"

namespace memplan {
namespace {

// The fields of a line (csv_fields.h: quoted ids too), or a failure naming the line and the
// column (`columns`: the header's, empty while reading the header itself).
std::vector<std::string> split_fields(const std::string& line, size_t lineno, const std::string& name,
                                      const std::vector<std::string>& columns) {
  CsvSplitError error;
  std::optional<std::vector<std::string>> fields = split_csv_fields(line, error);
  if (!fields)
    throw InputError(name + ":" + std::to_string(lineno) + ": column '" + csv_error_column(error, columns) + "': " +
                     error.what);
  return std::move(*fields);
}

}  // namespace

std::vector<int64_t> read_solution_csv(std::istream& in, const std::string& name,
                                       const Problem& problem) {
  auto fail = [&](size_t line, const std::string& column, const std::string& msg) {
    std::string where = name + ":" + std::to_string(line);
    if (!column.empty()) where += ": column '" + column + "'";
    throw InputError(where + ": " + msg);
  };
  std::string line;
  if (!std::getline(in, line) || trim_blanks(line).empty())
    fail(1, "", "empty file: expected a header row with 'id' and 'offset' columns");
  const std::vector<std::string> columns = split_fields(line, 1, name, {});
  int id_col = -1, offset_col = -1;
  std::unordered_map<std::string, size_t> seen;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (auto [it, fresh] = seen.emplace(columns[c], c); !fresh)
      fail(1, columns[c], "duplicate column name");
    const bool is_id = columns[c] == "id" || columns[c] == "buffer" || columns[c] == "buffer_id";
    if (is_id && id_col >= 0) fail(1, columns[c], "duplicate column (same field as '" + columns[id_col] + "')");
    if (is_id) id_col = static_cast<int>(c);
    if (columns[c] == "offset") offset_col = static_cast<int>(c);
  }
  if (id_col < 0) fail(1, "id", "missing required column (a plan needs 'id' and 'offset')");
  if (offset_col < 0) fail(1, "offset", "missing required column (a plan needs 'id' and 'offset')");

  PlanRows rows(problem);
  std::vector<int64_t> offsets(problem.buffers.size(), 0);
  std::vector<size_t> line_of(problem.buffers.size(), 0);  // 0: no row yet
  size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (trim_blanks(line).empty()) break;  // as in read_csv
    const std::vector<std::string> f = split_fields(line, lineno, name, columns);
    if (f.size() != columns.size())
      fail(lineno, columns[std::min(f.size(), columns.size() - 1)],
           "expected " + std::to_string(columns.size()) + " fields, found " + std::to_string(f.size()));
    const std::string& id = f[id_col];
    const std::optional<size_t> buffer = rows.buffer_of(id, lineno - 2);
    if (!buffer) fail(lineno, columns[id_col], "buffer '" + id + "' is not in the problem");
    if (line_of[*buffer])
      fail(lineno, columns[id_col], "duplicate id '" + id + "' (first on line " +
                                        std::to_string(line_of[*buffer]) + ")");
    const std::string& text = f[offset_col];
    if (text.empty()) fail(lineno, "offset", "no offset for buffer '" + id + "'");
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc::result_out_of_range)
      fail(lineno, "offset", "'" + text + "' is out of the 64-bit integer range");
    if (ec != std::errc() || ptr != text.data() + text.size())
      fail(lineno, "offset", "'" + text + "' is not an integer");
    offsets[*buffer] = v;
    line_of[*buffer] = lineno;
  }
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    if (!line_of[i])
      fail(lineno + 1, "id", "end of plan: buffer '" + problem.buffers[i].id +
                                 "' of the problem has no row");
  return offsets;
}

std::vector<int64_t> read_solution_csv_file(const std::string& path, const Problem& problem) {
  std::ifstream in = open_input(path);
  return read_solution_csv(in, path, problem);
}

}  // namespace memplan
