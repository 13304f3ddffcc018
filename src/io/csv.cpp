#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <string_view>
#include <unordered_map>

#include "io/check.h"
#include "io/csv_fields.h"
#include "io/partial_order.h"
#include "memplan/constraints.h"
#include "memplan/io.h"
#include "memplan/streams.h"

namespace memplan {
namespace {

enum Field { kId, kLower, kUpper, kEnd, kSize, kAlignment, kOffset, kHint, kGaps, kInplace, kGroup, kSide, kConflicts, kStream, kDeps, kReads, kFieldCount };

// Canonical field of a header name; -1 when the column is not one memplan reads.
int field_of(const std::string& c) {
  static const std::unordered_map<std::string, int> names = {
      {"id", kId},         {"buffer", kId},     {"buffer_id", kId},   {"lower", kLower},
      {"start", kLower},   {"begin", kLower},   {"upper", kUpper},    {"end", kEnd},
      {"size", kSize},     {"alignment", kAlignment}, {"offset", kOffset}, {"hint", kHint},
      {"gaps", kGaps},     {"inplace", kInplace}, {"group", kGroup},
      {"side", kSide},     {"conflicts", kConflicts}, {"stream", kStream}, {"deps", kDeps},
      {"reads", kReads}};
  auto it = names.find(c);
  return it == names.end() ? -1 : it->second;
}

// True iff a and b differ by one insertion, deletion, substitution or swap of two
// neighbours (a typo such as 'alignmnt' or 'szie').
bool one_edit_apart(const std::string& a, const std::string& b) {
  if (a == b) return false;
  const std::string& s = a.size() <= b.size() ? a : b;  // shorter
  const std::string& l = a.size() <= b.size() ? b : a;
  if (l.size() - s.size() > 1) return false;
  size_t i = 0;
  while (i < s.size() && s[i] == l[i]) ++i;
  if (s.size() == l.size()) {
    if (s.compare(i + 1, std::string::npos, l, i + 1, std::string::npos) == 0) return true;
    return i + 1 < s.size() && s[i] == l[i + 1] && s[i + 1] == l[i] &&
           s.compare(i + 2, std::string::npos, l, i + 2, std::string::npos) == 0;
  }
  return s.compare(i, std::string::npos, l, i + 1, std::string::npos) == 0;
}

// The known column name one edit away from `c`, or "" (for the typo warning).
std::string near_column(const std::string& c) {
  static const char* known[] = {"id",   "buffer", "buffer_id", "lower",     "start",   "begin",
                                "upper", "end",   "size",      "alignment", "offset",  "hint",
                                "gaps", "inplace", "group",    "side", "conflicts", "stream", "deps", "reads"};
  for (const char* k : known)
    if (one_edit_apart(c, k)) return k;
  return "";
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(line);
  while (std::getline(in, cur, sep)) out.push_back(trim_blanks(cur));
  if (!line.empty() && line.back() == sep) out.push_back("");
  return out;
}

struct Loc {
  const std::string& file;
  size_t line;
  [[noreturn]] void fail(const std::string& column, const std::string& msg) const {
    std::string where = file + ":" + std::to_string(line);
    if (!column.empty()) where += ": column '" + column + "'";
    throw InputError(where + ": " + msg);
  }
};

int64_t parse_int(const std::string& text, const Loc& loc, const std::string& column) {
  int64_t v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (text.empty()) loc.fail(column, "empty value, expected an integer");
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range)
    loc.fail(column, "'" + text + "' is out of the 64-bit integer range");
  if (ec != std::errc() || ptr != last) loc.fail(column, "'" + text + "' is not an integer");
  return v;
}

// "lo-hi" or "lo-hi@wlo:whi", space separated.
std::vector<Gap> parse_gaps(const std::string& text, const Loc& loc, const std::string& column,
                            int64_t upper_shift) {
  std::vector<Gap> gaps;
  std::istringstream in(text);
  std::string tok;
  while (in >> tok) {
    const std::string form = "gap '" + tok + "' must be 'lo-hi' or 'lo-hi@wlo:whi'";
    auto number = [&](const std::string& t) {
      if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-'))
        loc.fail(column, form);
      return parse_int(t, loc, column);
    };
    Gap g;
    std::string span = tok;
    if (auto at = tok.find('@'); at != std::string::npos) {
      span = tok.substr(0, at);
      const std::string window = tok.substr(at + 1);
      auto colon = window.find(':');
      if (colon == std::string::npos) loc.fail(column, form);
      g.has_window = true;
      g.window_lo = number(window.substr(0, colon));
      g.window_hi = number(window.substr(colon + 1));
    }
    auto dash = span.find('-', 1);
    if (dash == std::string::npos) loc.fail(column, form);
    g.start = number(span.substr(0, dash));
    g.end = number(span.substr(dash + 1));
    if (upper_shift && __builtin_add_overflow(g.end, upper_shift, &g.end))
      loc.fail(column, "gap '" + tok + "': end overflows 64 bits");
    gaps.push_back(g);
  }
  return gaps;
}

}  // namespace

std::string format_gaps(const std::vector<Gap>& gaps) {
  std::string out;
  for (const Gap& g : gaps) {
    if (!out.empty()) out += ' ';
    // Appended piece by piece: "@" + std::string trips GCC 12's -Wrestrict false positive.
    out += std::to_string(g.start);
    out += '-';
    out += std::to_string(g.end);
    if (!g.has_window) continue;
    out += '@';
    out += std::to_string(g.window_lo);
    out += ':';
    out += std::to_string(g.window_hi);
  }
  return out;
}

CsvTable read_csv(std::istream& in, const std::string& name, Lifetimes lifetimes, const std::function<bool()>& stop) {
  CsvTable table;
  std::string line;
  std::getline(in, line);  // on an empty stream `line` stays empty
  if (line.rfind("\xEF\xBB\xBF", 0) == 0)
    line.erase(0, 3);  // UTF-8 byte order mark (before the emptiness test: a BOM alone is empty)
  if (trim_blanks(line).empty())
    throw InputError(name + ":1: empty file: expected a header row such as 'id,lower,upper,size'");
  Loc header{name, 1};
  CsvSplitError quote_error;
  if (auto columns = split_csv_fields(line, quote_error)) table.columns = std::move(*columns);
  else header.fail(csv_error_column(quote_error, {}), quote_error.what);
  std::vector<int> col_field(table.columns.size(), -1);
  std::vector<size_t> unknown_cols;  // carried through to the output verbatim
  int where[kFieldCount];
  std::fill(std::begin(where), std::end(where), -1);
  const bool any_known = std::any_of(table.columns.begin(), table.columns.end(),
                                     [](const std::string& c) { return field_of(c) >= 0; });
  if (!any_known && !table.columns[0].empty() &&
      (std::isdigit(static_cast<unsigned char>(table.columns[0][0])) || table.columns[0][0] == '-'))
    header.fail("", "no header row: the first line looks like data; expected column names "
                    "such as 'id,lower,upper,size'");
  std::unordered_map<std::string, size_t> seen_names;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const int f = field_of(table.columns[c]);
    if (table.columns[c].empty())
      header.fail("", "header column " + std::to_string(c + 1) + " has an empty name");
    // A name starting with a byte order mark would be written back at the start of the
    // file, where the mark is skipped: the column would read back under another name.
    if (c == 0 && table.columns[0].rfind("\xEF\xBB\xBF", 0) == 0)
      header.fail("", "header column 1 starts with a byte order mark (U+FEFF) after the file's own");
    if (auto [it, fresh] = seen_names.emplace(table.columns[c], c); !fresh)
      header.fail(table.columns[c], "duplicate column name (columns " +
                                        std::to_string(it->second + 1) + " and " +
                                        std::to_string(c + 1) + ")");
    if (f < 0) {
      unknown_cols.push_back(c);  // MiniMalloc ignores unknown columns too
      if (const std::string near = near_column(table.columns[c]); !near.empty())
        table.warnings.push_back(name + ":1: column '" + table.columns[c] +
                                 "' is not a column memplan reads: did you mean '" + near +
                                 "'? It is kept and written back, but ignored");
      continue;
    }
    const bool upper_like = f == kUpper || f == kEnd;
    const int slot = upper_like ? kUpper : f;
    if (where[slot] >= 0)
      header.fail(table.columns[c], "duplicate column (same field as '" +
                                        table.columns[where[slot]] + "')");
    where[slot] = static_cast<int>(c);
    col_field[c] = f;
  }
  for (int f : {kId, kLower, kUpper, kSize}) {
    if (where[f] >= 0) continue;
    static const char* names[] = {"id", "lower", "upper", "", "size"};
    header.fail(names[f], "missing required column (the header must name id, lower, upper and "
                          "size, or their aliases)");
  }
  const bool inclusive_end = col_field[where[kUpper]] == kEnd || lifetimes == Lifetimes::kInclusive;
  table.has_offset_column = where[kOffset] >= 0;
  // `conflicts` column: ids (separated by ';') each row conflicts with, resolved at the end.
  struct PendingConflicts {
    size_t line;
    int32_t row;
    std::string ids;
  };
  std::vector<PendingConflicts> pending;
  std::vector<OrderRow> order_rows;  // only when the rows give a partial order
  TotalGuard total;
  size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (trim_blanks(line).empty()) break;  // MiniMalloc stops at the first empty line
    Loc loc{name, lineno};
    std::optional<std::vector<std::string>> split_fields = split_csv_fields(line, quote_error);
    if (!split_fields) loc.fail(csv_error_column(quote_error, table.columns), quote_error.what);
    std::vector<std::string> fields = std::move(*split_fields);
    if (fields.size() != table.columns.size()) {
      const size_t n = table.columns.size();
      const std::string& col = table.columns[std::min(fields.size(), n - 1)];
      loc.fail(col, "expected " + std::to_string(n) + " comma-separated fields (one per header "
                    "column), found " + std::to_string(fields.size()) +
                    (fields.size() < n ? ": this column is missing" : ": extra fields after the last column"));
    }
    Buffer b;
    // The partial-order forms (partial_order.h): clocks "a:b:c" in lower/upper, or a stream.
    OrderRow order;
    std::string clock_error;
    for (size_t c = 0; c < fields.size(); ++c) {
      const std::string& col = table.columns[c];
      if ((col_field[c] == kLower || col_field[c] == kUpper) &&
          parse_clock(fields[c], col_field[c] == kLower ? order.lower : order.upper, clock_error)) {
        if (!clock_error.empty()) loc.fail(col, clock_error);
        order.form = RowForm::kClock;
        continue;
      }
      switch (col_field[c]) {
        case kId:
          if (fields[c].empty()) loc.fail(col, "empty id");
          b.id = fields[c];
          break;
        case kLower: b.start = parse_int(fields[c], loc, col); break;
        case kUpper: b.end = parse_int(fields[c], loc, col); break;
        case kEnd: b.end = parse_int(fields[c], loc, col); break;
        case kSize: b.size = parse_int(fields[c], loc, col); break;
        case kAlignment:
          if (!fields[c].empty()) b.alignment = parse_int(fields[c], loc, col);
          break;
        case kOffset:
          if (!fields[c].empty() && fields[c] != "-1") {
            b.offset = parse_int(fields[c], loc, col);
            if (*b.offset < 0) loc.fail(col, "negative offset " + fields[c] + " (-1 or empty = not fixed)");
          }
          break;
        case kHint:
          if (!fields[c].empty()) b.hint = parse_int(fields[c], loc, col);
          break;
        case kGaps: b.gaps = parse_gaps(fields[c], loc, col, inclusive_end ? 1 : 0); break;
        case kInplace: b.inplace_of = fields[c]; break;
        case kStream:
          if (!fields[c].empty()) {
            order.stream = parse_int(fields[c], loc, col);
            order.form = RowForm::kStream;
          }
          break;
        case kDeps:
          for (const std::string& d : split(fields[c], ';'))
            if (!d.empty()) order.deps.push_back(d);
          break;
        case kReads:
          for (const std::string& r : split(fields[c], ';')) {
            if (r.empty()) continue;
            const auto at = r.find('@');
            if (at == std::string::npos) loc.fail(col, "read '" + r + "' must be 'stream@op'");
            order.reads.emplace_back(parse_int(r.substr(0, at), loc, col), parse_int(r.substr(at + 1), loc, col));
          }
          break;
        case kConflicts:
          if (!fields[c].empty())
            pending.push_back({lineno, static_cast<int32_t>(table.problem.buffers.size()), fields[c]});
          break;
        case kSide:
          if (fields[c] == "high") b.from_top = true;
          else if (!fields[c].empty() && fields[c] != "low")
            loc.fail(col, "'" + fields[c] + "' must be 'low', 'high' or empty (two-ended pool side)");
          break;
        case kGroup: {
          // "name" or "name:index"; without an index, members keep their row order.
          const auto colon = fields[c].rfind(':');
          b.group = fields[c].substr(0, colon);
          b.group_index = colon == std::string::npos ? static_cast<int64_t>(lineno)
                                                     : parse_int(fields[c].substr(colon + 1), loc, col);
          if (!fields[c].empty() && b.group.empty()) loc.fail(col, "empty group name");
          break;
        }
        default: break;
      }
    }
    if (order.form == RowForm::kClock) {
      if (where[kStream] >= 0 && !fields[where[kStream]].empty())
        loc.fail(table.columns[where[kStream]], "mixed forms: a stream together with vector clocks");
      if (order.lower.empty() || order.upper.empty())
        loc.fail(table.columns[where[order.lower.empty() ? kLower : kUpper]],
                 "mixed forms: vector clocks need both lower and upper as 'a:b:c'");
      if (inclusive_end) loc.fail(table.columns[where[kUpper]], "vector clocks need the half-open 'upper' column");
      b.start = 0, b.end = 1;  // placeholders, replaced by apply_partial_order
    }
    if (order.form == RowForm::kScalar && (!order.deps.empty() || !order.reads.empty()))
      loc.fail(table.columns[where[order.deps.empty() ? kReads : kDeps]], "needs a 'stream' on this row");
    if ((order.form != RowForm::kScalar) != !order_rows.empty() && lineno > 2)
      loc.fail(table.columns[where[where[kStream] >= 0 ? kStream : kLower]],
               "mixed forms: this row and the first differ in giving a partial order (vector clocks or a stream)");
    if (inclusive_end && __builtin_add_overflow(b.end, 1, &b.end))
      loc.fail(table.columns[where[kUpper]], "end overflows 64 bits");
    if (order.form != RowForm::kScalar) {
      auto raw = [&](int f) { return where[f] >= 0 ? fields[where[f]] : std::string(); };
      // Kept as written back: half-open. A stream row's upper (an op index) read inclusive (an
      // 'end' column, or Lifetimes::kInclusive) is kept plus one; clocks are never inclusive.
      for (int f : {kLower, kUpper, kStream, kDeps, kReads})
        table.order_fields.push_back(f == kUpper && order.form == RowForm::kStream ? std::to_string(b.end) : raw(f));
    }
    for (size_t c : unknown_cols) table.unknown_fields.push_back(std::move(fields[c]));
    auto column_of = [&](const std::string& field) {
      if (field == "lower") return table.columns[where[kLower]];
      if (field == "upper") return table.columns[where[kUpper]];
      if (field == "id") return table.columns[where[kId]];
      return field;
    };
    if (auto issue = buffer_issue(b)) {
      if (issue->field == "upper" && col_field[where[kUpper]] == kEnd && b.end <= b.start)
        issue->message = "inclusive end " + std::to_string(b.end - 1) + " is before start " +
                         std::to_string(b.start);
      loc.fail(column_of(issue->field), issue->message);
    }
    if (auto issue = total.add(b)) loc.fail(column_of(issue->field), issue->message);
    if (order.form != RowForm::kScalar) {
      order.op_lower = b.start, order.op_upper = b.end;
      order.upper_name = column_of("upper");
      order.where = name + ":" + std::to_string(lineno);
      order_rows.push_back(std::move(order));
    }
    table.problem.buffers.push_back(std::move(b));
  }
  // Unique ids, checked once every row is read (first_duplicate_id: on 1M rows a map of the
  // ids, line by line, was a third of the reading). Every line after the header up to the
  // first empty one is a row, so row i is line i + 2.
  const auto& bufs = table.problem.buffers;
  if (const auto d = first_duplicate_id(bufs))
    Loc{name, d->dup + 2}.fail(table.columns[where[kId]], "duplicate id '" + bufs[d->dup].id +
                                                             "' (first on line " + std::to_string(d->first + 2) + ")");
  std::unordered_map<std::string_view, int32_t> row_of;
  if (!pending.empty())
    for (size_t i = 0; i < bufs.size(); ++i) row_of.emplace(bufs[i].id, static_cast<int32_t>(i));
  for (const PendingConflicts& pc : pending) {
    const Loc loc{name, pc.line};
    for (const std::string& id : split(pc.ids, ';')) {
      auto it = row_of.find(id);
      if (it == row_of.end()) loc.fail(table.columns[where[kConflicts]], "unknown buffer id '" + id + "'");
      const int32_t other = it->second;
      if (other == pc.row) loc.fail(table.columns[where[kConflicts]], "a buffer cannot conflict with itself");
      table.problem.conflicts.emplace_back(pc.row, other);
    }
  }
  if (!order_rows.empty()) apply_partial_order(table.problem, order_rows, name, "column", stop);
  if (has_constraints(table.problem)) {
    try {
      lower_constraints(table.problem);
    } catch (const ConstraintError& e) {  // row i is line i + 2
      const int col = where[e.field == "group" ? kGroup : e.field == "offset" ? kOffset : kInplace];
      Loc{name, e.buffer + 2}.fail(col >= 0 ? table.columns[col] : e.field, e.what());
    }
  }
  // Every rule of check_problem was applied line by line above (buffer_issue, unique ids,
  // TotalGuard), so errors name their line; no second pass is needed.
  return table;
}

CsvTable read_csv_file(const std::string& path, Lifetimes lifetimes, const std::function<bool()>& stop) {
  std::ifstream in = open_input(path);
  return read_csv(in, path, lifetimes, stop);
}

std::ifstream open_input(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": cannot open file: is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw InputError(path + ": cannot open file: " +
                     (err ? std::strerror(err) : "unknown error"));
  }
  return in;
}

namespace {

// The writer behind both write_csv overloads. `unknown` holds the fields of the columns
// memplan does not read (row-major, in header order), or is null.
// `order` (CsvTable::order_fields) holds the raw partial-order fields, or is null. Only the
// explicit conflicts the clocks (if any) do not imply are written.
void write_rows(std::ostream& out, const Problem& problem, const std::vector<int64_t>* offsets,
                const std::vector<std::string>& columns_in,
                const std::vector<std::string>* unknown, const std::vector<std::string>* order = nullptr) {
  if (order && order->empty()) order = nullptr;
  // A problem with vector clocks (built in code) is written in the clock form, with only the
  // explicit conflicts its clocks do not imply.
  const size_t S = static_cast<size_t>(problem.clock_dim);
  const bool clocks = !order && S > 0 && problem.clock_lower.size() == problem.buffers.size() * S &&
                      problem.clock_upper.size() == problem.clock_lower.size();
  const std::vector<std::pair<int32_t, int32_t>> pairs = conflicts_beyond_clocks(problem);
  const size_t conflicts = pairs.size();
  auto clock_text = [&](const std::vector<int64_t>& c, size_t i) {
    std::string t;
    for (size_t k = 0; k < S; ++k) {
      if (k) t += ':';
      t += std::to_string(c[i * S + k]);
    }
    return t;
  };
  std::vector<std::string> columns;
  size_t n_unknown = 0;
  for (const std::string& c : columns_in) {
    n_unknown += field_of(c) < 0;
    if (field_of(c) >= 0 || unknown) columns.push_back(c);
  }
  if (unknown && n_unknown * problem.buffers.size() != unknown->size())
    throw std::invalid_argument("write_csv: unknown-column fields do not match the rows");
  bool align = false, hint = false, gaps = false, fixed = false, inplace = false, group = false,
       high = false;
  for (const Buffer& b : problem.buffers) {
    high |= b.from_top;
    inplace |= !b.inplace_of.empty();
    group |= !b.group.empty();
    align |= b.alignment != 1;
    hint |= b.hint != -1;
    gaps |= !b.gaps.empty();
    fixed |= b.offset.has_value();
  }
  auto has = [&](int field) {
    for (const std::string& c : columns)
      if (field_of(c) == field || (field == kUpper && field_of(c) == kEnd)) return true;
    return false;
  };
  // Required columns, then the optional ones some buffer uses, so that nothing is lost
  // even when `columns_in` (the input's header) lacks them.
  if (!has(kId)) columns.push_back("id");
  if (!has(kLower)) columns.push_back("lower");
  if (!has(kUpper)) columns.push_back("upper");
  if (!has(kSize)) columns.push_back("size");
  if (align && !has(kAlignment)) columns.push_back("alignment");
  if (hint && !has(kHint)) columns.push_back("hint");
  if (gaps && !has(kGaps)) columns.push_back("gaps");
  if (inplace && !has(kInplace)) columns.push_back("inplace");
  if (group && !has(kGroup)) columns.push_back("group");
  if (high && !has(kSide)) columns.push_back("side");
  if ((fixed || offsets) && !has(kOffset)) columns.push_back("offset");
  if (conflicts > 0 && !has(kConflicts)) columns.push_back("conflicts");
  // Each pair is written once, on its first buffer's row.
  std::vector<std::string> conflict_ids(conflicts == 0 ? 0 : problem.buffers.size());
  for (size_t k = 0; k < conflicts; ++k) {
    const auto [a, b] = pairs[k];
    if (!conflict_ids[a].empty()) conflict_ids[a] += ';';
    conflict_ids[a] += problem.buffers[b].id;
  }
  std::string text;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) text += ',';
    text += csv_field(columns[c]);
  }
  text += '\n';
  // An 'end' column holds the inclusive end (upper - 1), and so do the gaps' upper bounds.
  const bool inclusive = std::find(columns.begin(), columns.end(), "end") != columns.end();
  std::vector<int> column_field(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) column_field[c] = field_of(columns[c]);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    size_t u = 0;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) text += ',';
      const int f = column_field[c];
      if (order && (f == kLower || f == kUpper || f == kStream || f == kDeps || f == kReads)) {
        text += csv_field((*order)[i * 5 + (f == kLower ? 0 : f == kUpper ? 1 : f == kStream ? 2 : f == kDeps ? 3 : 4)]);
        continue;
      }
      if (order && f == kEnd) {  // a stream row's op index, kept half-open (read_csv): inclusive here
        const std::string& upper = (*order)[i * 5 + 1];
        text += (*order)[i * 5 + 2].empty() ? upper : std::to_string(std::stoll(upper) - 1);
        continue;
      }
      switch (f) {
        case kId: text += csv_field(b.id); break;
        case kLower: text += clocks ? clock_text(problem.clock_lower, i) : std::to_string(b.start); break;
        case kUpper: text += clocks ? clock_text(problem.clock_upper, i) : std::to_string(b.end); break;
        case kEnd: text += std::to_string(b.end - 1); break;
        case kSize: text += std::to_string(b.size); break;
        case kAlignment: text += std::to_string(b.alignment); break;
        case kHint: text += std::to_string(b.hint); break;
        case kOffset:
          if (offsets) text += std::to_string((*offsets)[i]);
          else if (b.offset) text += std::to_string(*b.offset);
          else text += "-1";
          break;
        case kGaps: {
          std::vector<Gap> g = b.gaps;
          if (inclusive)
            for (Gap& x : g) x.end -= 1;
          text += format_gaps(g);
          break;
        }
        case kInplace: text += csv_field(b.inplace_of); break;
        case kSide: text += b.from_top ? "high" : "low"; break;
        case kGroup:
          if (!b.group.empty()) text += csv_field(b.group + ":" + std::to_string(b.group_index));
          break;
        case kConflicts:
          if (!conflict_ids.empty()) text += csv_field(conflict_ids[i]);
          break;
        case kStream:
        case kDeps:
        case kReads: break;  // no partial order to write (see `order` above)
        default: text += csv_field((*unknown)[i * n_unknown + u++]); break;
      }
    }
    text += '\n';
  }
  out << text;
}

}  // namespace

void write_csv(std::ostream& out, const Problem& problem, const std::vector<int64_t>* offsets,
               const std::vector<std::string>& columns) {
  write_rows(out, problem, offsets, columns, nullptr);
}

void write_csv(std::ostream& out, const CsvTable& table, const std::vector<int64_t>* offsets) {
  write_csv(out, table, table.problem, offsets);
}

void write_csv(std::ostream& out, const CsvTable& table, const Problem& rows, const std::vector<int64_t>* offsets) {
  write_rows(out, rows, offsets, table.columns, &table.unknown_fields, &table.order_fields);
}

namespace {

// An output that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is
// written in place: renaming a temporary file over it would replace the device itself (as
// root, `-o /dev/null` once turned /dev/null into a regular file that later readers of
// /dev/null read other programs' output from).
bool special_file(const std::string& path) {
  std::error_code ec;
  // A symlink is written through, in place: renamed over, the link itself was replaced by
  // a regular file (its target kept its old contents), and `-o /dev/stdout` with stdout
  // redirected to a file replaced the /dev/stdout link of every process in the container.
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec))) return true;
  const auto st = std::filesystem::status(path, ec);
  return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
         !std::filesystem::is_directory(st);
}

void write_in_place(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": cannot write");
  out << content;
  out.flush();
  if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace

void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files) {
  // Every temp file is written first; only when all are complete is any renamed into
  // place, so a failure leaves none of the outputs behind. Special files (special_file)
  // are written last, in place.
  std::vector<std::string> temps;  // "" for a special file
  auto drop_temps = [&] {
    for (const std::string& t : temps)
      if (!t.empty()) std::remove(t.c_str());
  };
  for (size_t k = 0; k < files.size(); ++k) {
    const std::string& path = files[k].first;
    for (size_t j = 0; j < k; ++j)
      if (files[j].first == path) {
        drop_temps();
        throw std::runtime_error(path + ": named for two outputs");
      }
    if (special_file(path)) {
      temps.emplace_back();
      continue;
    }
    try {
      check_writable(path);  // a folder, or a missing one, named as such (not "cannot rename")
    } catch (...) {
      drop_temps();
      throw;
    }
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      const int err = errno;
      drop_temps();
      throw std::runtime_error(path + ": cannot write: " + (err ? std::strerror(err) : "cannot create file"));
    }
    temps.push_back(tmp);
    out << files[k].second;
    out.flush();
    if (!out) {
      drop_temps();
      throw std::runtime_error(path + ": write failed");
    }
  }
  for (size_t k = 0; k < files.size(); ++k)
    if (!temps[k].empty() && std::rename(temps[k].c_str(), files[k].first.c_str()) != 0) {
      const int err = errno;
      for (size_t j = k; j < temps.size(); ++j)
        if (!temps[j].empty()) std::remove(temps[j].c_str());
      throw std::runtime_error(files[k].first + ": cannot rename temporary file into place: " +
                               std::strerror(err));
    }
  for (size_t k = 0; k < files.size(); ++k)
    if (temps[k].empty()) write_in_place(files[k].first, files[k].second);
}

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error(path + ": cannot write: is a directory");
  const fs::path dir = fs::path(path).parent_path();
  const std::string d = dir.empty() ? "." : dir.string();
  if (!fs::is_directory(d, ec))
    throw std::runtime_error(path + ": cannot write: folder '" + d + "' does not exist");
  if (::access(d.c_str(), W_OK) != 0)
    throw std::runtime_error(path + ": cannot write: folder '" + d + "' is not writable");
}

void write_file_atomic(const std::string& path, const std::string& content) {
  if (special_file(path)) return write_in_place(path, content);
  check_writable(path);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot write (cannot create " + tmp + ")");
    out << content;
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw std::runtime_error(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename temporary file into place: " + std::strerror(err));
  }
}

}  // namespace memplan
