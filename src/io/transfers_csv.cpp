// Reading back what a plan CSV says beyond offsets (spaces_io.h): the chosen memory and the
// absences, and the transfer schedule solve --transfers writes.
#include <charconv>
#include <sstream>

#include "io/check.h"
#include "io/csv_fields.h"
#include "io/plan_rows.h"
#include "memplan/spaces_io.h"

namespace memplan {
namespace {

struct CsvLines {
  std::istream& in;
  const std::string& name;
  std::vector<std::string> columns;
  size_t lineno = 0;

  [[noreturn]] void fail(const std::string& column, const std::string& msg) const {
    std::string where = name + ":" + std::to_string(lineno);
    if (!column.empty()) where += ": column '" + column + "'";
    throw InputError(where + ": " + msg);
  }
  // The next non-empty row's fields (false at the end, or at the first blank line).
  bool next(std::vector<std::string>& fields) {
    std::string line;
    if (!std::getline(in, line) || trim_blanks(line).empty()) return false;
    ++lineno;
    CsvSplitError error;
    std::optional<std::vector<std::string>> f = split_csv_fields(line, error);
    if (!f) fail(csv_error_column(error, columns), error.what);
    if (!columns.empty() && f->size() != columns.size())
      fail(columns[std::min(f->size(), columns.size() - 1)],
           "expected " + std::to_string(columns.size()) + " fields, found " + std::to_string(f->size()));
    fields = std::move(*f);
    return true;
  }
  int column(std::initializer_list<const char*> names) const {
    for (size_t c = 0; c < columns.size(); ++c)
      for (const char* n : names)
        if (columns[c] == n) return static_cast<int>(c);
    return -1;
  }
  int64_t integer(const std::string& text, const std::string& column) const {
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc::result_out_of_range) fail(column, "'" + text + "' is out of the 64-bit integer range");
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) fail(column, "'" + text + "' is not an integer");
    return v;
  }
};

CsvLines open_table(std::istream& in, const std::string& name, const char* expected) {
  CsvLines t{in, name, {}};
  if (!t.next(t.columns)) {
    t.lineno = 1;
    t.fail("", std::string("empty file: expected a header row with ") + expected);
  }
  return t;
}

}  // namespace

PlanColumns read_plan_columns_csv(std::istream& in, const std::string& name, const Problem& problem) {
  CsvLines t = open_table(in, name, "an 'id' column");
  const int id = t.column({"id", "buffer", "buffer_id"});
  const int space = t.column({"space"});
  const int evictions = t.column({"evictions"});
  if (id < 0) t.fail("id", "missing required column");
  PlanColumns out;
  out.has_evictions = evictions >= 0;
  if (space >= 0) out.space.resize(problem.buffers.size());
  PlanRows rows(problem);
  std::vector<std::string> f;
  for (size_t row = 0; t.next(f); ++row) {
    const std::optional<size_t> b = rows.buffer_of(f[id], row);
    if (!b) t.fail(t.columns[id], "buffer '" + f[id] + "' is not in the problem");
    if (space >= 0) {
      if (f[space].empty() || f[space].find('|') != std::string::npos)
        t.fail("space", "expected the one memory buffer '" + f[id] + "' was placed in, found '" + f[space] + "'");
      out.space[*b] = f[space];
    }
    if (evictions < 0) continue;
    std::istringstream list(f[evictions]);
    for (std::string pair; list >> pair;) {
      const size_t dash = pair.find('-', 1);  // "lo-hi"; lo may be negative
      if (dash == std::string::npos) t.fail("evictions", "expected 'lo-hi', found '" + pair + "'");
      out.evictions.push_back({*b, t.integer(pair.substr(0, dash), "evictions"), t.integer(pair.substr(dash + 1), "evictions")});
    }
  }
  return out;
}

PlanColumns read_plan_columns_csv_file(const std::string& path, const Problem& problem) {
  std::ifstream in = open_input(path);
  return read_plan_columns_csv(in, path, problem);
}

std::vector<Transfer> read_transfers_csv_file(const std::string& path, const Problem& problem) {
  std::ifstream in = open_input(path);
  CsvLines t = open_table(in, path, "buffer,direction,start,end");
  const int buffer = t.column({"buffer", "id"});
  const int direction = t.column({"direction"});
  const int start = t.column({"start"});
  const int end = t.column({"end"});
  if (buffer < 0) t.fail("buffer", "missing required column");
  if (direction < 0) t.fail("direction", "missing required column");
  if (start < 0) t.fail("start", "missing required column");
  if (end < 0) t.fail("end", "missing required column");
  PlanRows rows(problem);
  std::vector<Transfer> out;
  std::vector<std::string> f;
  while (t.next(f)) {
    const std::optional<size_t> b = rows.buffer_of(f[buffer], SIZE_MAX);
    if (!b) t.fail(t.columns[buffer], "buffer '" + f[buffer] + "' is not in the problem");
    if (f[direction] != "out" && f[direction] != "in") t.fail("direction", "expected 'out' or 'in', found '" + f[direction] + "'");
    out.push_back({*b, f[direction] == "out", t.integer(f[start], "start"), t.integer(f[end], "end")});
  }
  return out;
}

}  // namespace memplan
