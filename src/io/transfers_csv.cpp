// Reading back the transfer schedule solve --transfers writes (spaces_io.h).

#include "io/check.h"
#include "io/csv_fields.h"
#include "io/plan_rows.h"
#include "memplan/spaces_io.h"

namespace memplan {

std::vector<Transfer> read_transfers_csv_file(const std::string& path, const Problem& problem) {
  std::ifstream in = open_input(path);
  CsvRows t = open_csv_rows(in, path, "buffer,direction,start,end");
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
