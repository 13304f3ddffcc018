// memplan: file formats (MiniMalloc CSV, idealloc PLC traces). JSON lives in io_json.h.
//
// CSV: a header row naming columns in any order. Required: id, lower, upper, size.
// Aliases: buffer/buffer_id = id; start/begin = lower; end = upper - 1 (inclusive end, so
// the reader adds 1, to upper and to every gap's upper bound). Optional: alignment,
// offset (pre-placed; empty or -1 = not fixed), hint, gaps ("lo-hi" or "lo-hi@wlo:whi",
// space separated). Other columns are kept verbatim and written back. Fields are split on
// ',' without quoting; reading stops at the first empty line, as MiniMalloc's reader does.
// Writing the table back gives the same columns in the same order (plus 'offset' for a
// plan), so MiniMalloc can read the output and an 'end' column stays inclusive.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

class Deadline;  // solver.h

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
  // Fields of the columns memplan does not read, row-major in header order (k such columns:
  // row r's fields are unknown_fields[r*k .. r*k+k)). Written back by write_csv(table).
  std::vector<std::string> unknown_fields;
  // A partial-order file (vector clocks or a stream program, see README "Parallel
  // streams"): per row the raw lower, upper, stream, deps and reads fields (5 per row),
  // written back verbatim (the conflicts the order implies are not written), except a
  // stream row's upper, kept half-open (read inclusive, it is kept plus one; an 'end'
  // column gets it minus one again).
  std::vector<std::string> order_fields;
  // Notes for the user that do not stop reading, e.g. an unknown column one edit away from
  // a known one ("alignmnt"); the CLI prints them on stderr.
  std::vector<std::string> warnings;
};

// Parses a problem. `name` is used in error messages. Throws InputError. A partial order's
// conflicts are derived after the whole file is parsed, polling `stop` (the first poll
// marks the end of parsing); when it says so, DerivationStopped (streams.h) is thrown.
CsvTable read_csv(std::istream& in, const std::string& name,
                  Lifetimes lifetimes = Lifetimes::kHalfOpen, const std::function<bool()>& stop = {});
CsvTable read_csv_file(const std::string& path, Lifetimes lifetimes = Lifetimes::kHalfOpen,
                       const std::function<bool()>& stop = {});

// Reads a solution CSV (needs an id column or alias and an offset column; others are
// ignored) and maps offsets onto `problem` by id. Offsets are not checked here (that is
// memplan::validate's job) beyond being integers. Throws InputError when an id is unknown,
// duplicated or missing, naming the file and line.
std::vector<int64_t> read_solution_csv(std::istream& in, const std::string& name,
                                       const Problem& problem);
std::vector<int64_t> read_solution_csv_file(const std::string& path, const Problem& problem);

// idealloc's binary PLC trace: 64-byte records of eight big-endian u64 words: id, birth,
// death, allocated size, heap id, original offset, alignment (0 = none), requested size.
// A record is live at integer t iff birth < t < death, i.e. during the half-open
// [birth + 1, death); records with death - birth < 2 are rejected (never live). The buffer
// gets the allocated size and the alignment; heap id, original offset and requested size
// are not used. Throws InputError naming the file, record number and field.
Problem read_plc(std::istream& in, const std::string& name);
Problem read_plc_file(const std::string& path);

// Writes the problem as MiniMalloc CSV; with offsets, adds/overwrites the offset column.
// `columns` (e.g. an input header) fixes the known columns and their order; columns memplan
// does not read are dropped. Required columns, and optional ones some buffer uses, are
// appended when missing. An 'end' column is written inclusive (upper - 1, gaps too).
void write_csv(std::ostream& out, const Problem& problem, const std::vector<int64_t>* offsets,
               const std::vector<std::string>& columns = {});
// Writes a table read by read_csv back with all its columns, unknown ones included: with
// offsets == nullptr a canonical input (see the round-trip tests) comes back byte-identical.
void write_csv(std::ostream& out, const CsvTable& table, const std::vector<int64_t>* offsets);
// The same with the rows' buffers from `rows` instead of table.problem (one row per buffer,
// in the table's order): for a caller that moved the problem out of the table to solve it,
// so as not to hold two copies (a buffer is ~280 bytes: 280 MB a copy at 1M buffers).
void write_csv(std::ostream& out, const CsvTable& table, const Problem& rows, const std::vector<int64_t>* offsets);

// Writes `content` to `path` atomically (temp file in the same folder, then rename).
// Throws std::runtime_error on failure; never leaves a partial file at `path`.
void write_file_atomic(const std::string& path, const std::string& content);

// Writes several files all or nothing: every content goes to a temp file next to its path
// first, and only when all are written are they renamed into place. Throws
// std::runtime_error (naming the path) and leaves no output and no temp file on failure.
void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files);

// Throws std::runtime_error naming `path` when it is a folder or its folder is missing or
// not writable: lets a command refuse before hours of work rather than after.
void check_writable(const std::string& path);

// A byte count as a user types it: an integer, optionally followed (after spaces) by a unit,
// case-insensitive: b; k or kb = 1000, ki or kib = 1024; m/mb, mi/mib; g, gi; t, ti; p, pi;
// e, ei (the SI and IEC prefixes, as CLI11's AsSizeValue(true) reads them: "4MiB" is
// 4,194,304, "4MB" 4,000,000). nullopt when it is not one, or the bytes overflow int64_t.
std::optional<int64_t> parse_byte_size(std::string_view text);

// Formats gaps as MiniMalloc does ("lo-hi lo-hi@wlo:whi").
std::string format_gaps(const std::vector<Gap>& gaps);

// Checks a parsed problem's semantic rules (end > start, size > 0, alignment power of two,
// unique ids, aligned fixed offsets, gaps inside lifetimes...). Throws InputError naming
// `name` and the buffer. Readers call it, and so does solve() (solver.h) on its input;
// programmatic users may too. With a deadline it polls it (every 4096 buffers and in its
// sort; 1,000,000 buffers take ~0.2 s of CPU) and stops, unfinished, once it has passed: the
// caller must then not use the problem (solve() returns no_plan).
void check_problem(const Problem& p, const std::string& name, const Deadline* deadline = nullptr);

}  // namespace memplan
