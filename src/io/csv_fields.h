// Internal: one CSV line split into fields, and one field written, shared by the problem
// reader and writer (csv.cpp); and a table read row by row (CsvRows), shared by the readers
// of plans (solution.cpp) and transfer schedules (transfers_csv.cpp). RFC 4180 quoting, so that
// ids from models (tensor names, which may hold commas or quotes) survive a round trip: a
// field in double quotes keeps its text exactly (a doubled quote is one quote); an unquoted
// field is trimmed of spaces and tabs (and a trailing CR). Fields never span lines: a line
// break in an id is refused by buffer_issue (check.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace memplan {

// Why a line did not split: its field `field` (0-based) holds a quote left open, or text
// after a closing quote before the next comma.
struct CsvSplitError {
  size_t field = 0;
  std::string what;
};

// The fields of `line` split at commas outside quotes; nullopt (with `error`) on bad quoting.
std::optional<std::vector<std::string>> split_csv_fields(const std::string& line, CsvSplitError& error);
// The column a failing field names for messages: `columns[field]`, or "field N" past them.
std::string csv_error_column(const CsvSplitError& error, const std::vector<std::string>& columns);

// `s` without leading spaces and tabs and without trailing spaces, tabs and carriage returns
// (a line of a file written on Windows ends in '\r').
std::string trim_blanks(const std::string& s);

// A CSV read row by row after its header: rows end at the end of the file or at the first
// blank line (as read_csv reads problems); failures are InputErrors naming the file, the
// line and the column.
struct CsvRows {
  std::istream& in;
  const std::string& name;
  std::vector<std::string> columns;  // the header's
  size_t lineno = 0;                 // of the row read last

  [[noreturn]] void fail(const std::string& column, const std::string& msg) const;
  // The next row's fields (false at the end); a row with another number of fields than the
  // header fails.
  bool next(std::vector<std::string>& fields);
  // The index of the first column named one of `names`, or -1.
  int column(std::initializer_list<const char*> names) const;
  // `text` (of column `column`) as a 64-bit integer, or a failure.
  int64_t integer(const std::string& text, const std::string& column) const;
};
// Reads the header of `in` (a file named `name`); an empty file fails with "expected a
// header row with <expected>", a column named twice fails too.
CsvRows open_csv_rows(std::istream& in, const std::string& name, const std::string& expected);

// `text` as one CSV field: quoted when it holds a comma or a quote or starts or ends with a
// space or tab (which an unquoted field would lose), else as it is.
std::string csv_field(const std::string& text);

}  // namespace memplan
