// memplan: file formats (MiniMalloc CSV, PLC traces). JSON lives in io_json.h.
//
// CSV: a header row naming columns in any order. Required: id, lower, upper, size.
// Aliases: buffer/buffer_id = id; start/begin = lower; end = upper - 1 (inclusive end, so
// the reader adds 1, to upper and to every gap's upper bound). Optional: alignment,
// offset (pre-placed), hint, gaps ("lo-hi" or "lo-hi@wlo:whi", space separated).
// Reading stops at the first empty line, as MiniMalloc's reader does.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// Bad input: the message names file, line and column/field ("f.csv:3: column 'size': ...").
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Lifetime convention of a CSV's lower/upper columns.
enum class Lifetimes {
  kHalfOpen,   // [lower, upper) (MiniMalloc, idealloc SOMAS/IOPDDL sets)
  kInclusive,  // [lower, upper] (IREE sets; the reader adds 1 to upper)
};

struct CsvTable {
  std::vector<std::string> columns;  // header, as written
  Problem problem;
  // The offsets column when present (a solution file, or pre-placed buffers).
  bool has_offset_column = false;
};

// Parses a problem. `name` is used in error messages. Throws InputError.
CsvTable read_csv(std::istream& in, const std::string& name,
                  Lifetimes lifetimes = Lifetimes::kHalfOpen);
CsvTable read_csv_file(const std::string& path, Lifetimes lifetimes = Lifetimes::kHalfOpen);

// Reads a solution CSV (any columns incl. id and offset) and maps offsets onto `problem`
// by id. Throws InputError when ids are missing, duplicated or unknown.
std::vector<int64_t> read_solution_csv_file(const std::string& path, const Problem& problem);

// Writes the problem as MiniMalloc CSV; with offsets, adds/overwrites the offset column.
// Optional columns are written only when some buffer uses them (or `columns` names them).
void write_csv(std::ostream& out, const Problem& problem, const std::vector<int64_t>* offsets,
               const std::vector<std::string>& columns = {});

// Writes `content` to `path` atomically (temp file in the same folder, then rename).
// Throws std::runtime_error on failure; never leaves a partial file at `path`.
void write_file_atomic(const std::string& path, const std::string& content);

// Formats gaps as MiniMalloc does ("lo-hi lo-hi@wlo:whi").
std::string format_gaps(const std::vector<Gap>& gaps);

// Checks a parsed problem's semantic rules (end > start, size > 0, alignment power of two,
// unique ids, aligned fixed offsets, gaps inside lifetimes...). Throws InputError naming
// `name` and the buffer. Readers call it; programmatic users may too.
void check_problem(const Problem& p, const std::string& name);

}  // namespace memplan
