#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <unordered_map>

#include "io/check.h"
#include "memplan/io.h"

namespace memplan {
namespace {

enum Field { kId, kLower, kUpper, kEnd, kSize, kAlignment, kOffset, kHint, kGaps, kFieldCount };

// Canonical field of a header name; -1 when the column is not one memplan reads.
int field_of(const std::string& c) {
  static const std::unordered_map<std::string, int> names = {
      {"id", kId},         {"buffer", kId},     {"buffer_id", kId},   {"lower", kLower},
      {"start", kLower},   {"begin", kLower},   {"upper", kUpper},    {"end", kEnd},
      {"size", kSize},     {"alignment", kAlignment}, {"offset", kOffset}, {"hint", kHint},
      {"gaps", kGaps}};
  auto it = names.find(c);
  return it == names.end() ? -1 : it->second;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(line);
  while (std::getline(in, cur, sep)) out.push_back(trim(cur));
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
    Gap g;
    std::string span = tok, window;
    if (auto at = tok.find('@'); at != std::string::npos) {
      span = tok.substr(0, at);
      window = tok.substr(at + 1);
      auto colon = window.find(':');
      if (colon == std::string::npos)
        loc.fail(column, "gap '" + tok + "': window must be 'lo:hi'");
      g.has_window = true;
      g.window_lo = parse_int(window.substr(0, colon), loc, column);
      g.window_hi = parse_int(window.substr(colon + 1), loc, column);
    }
    auto dash = span.find('-', 1);
    if (dash == std::string::npos) loc.fail(column, "gap '" + tok + "' must be 'lo-hi' or 'lo-hi@wlo:whi'");
    g.start = parse_int(span.substr(0, dash), loc, column);
    g.end = parse_int(span.substr(dash + 1), loc, column);
    if (upper_shift && __builtin_add_overflow(g.end, upper_shift, &g.end))
      loc.fail(column, "gap end overflows 64 bits");
    gaps.push_back(g);
  }
  return gaps;
}

}  // namespace

std::string format_gaps(const std::vector<Gap>& gaps) {
  std::string out;
  for (const Gap& g : gaps) {
    if (!out.empty()) out += ' ';
    out += std::to_string(g.start) + "-" + std::to_string(g.end);
    if (g.has_window) out += "@" + std::to_string(g.window_lo) + ":" + std::to_string(g.window_hi);
  }
  return out;
}

CsvTable read_csv(std::istream& in, const std::string& name, Lifetimes lifetimes) {
  CsvTable table;
  std::string line;
  if (!std::getline(in, line) || trim(line).empty())
    throw InputError(name + ":1: empty file: expected a header row such as 'id,lower,upper,size'");
  table.columns = split(line, ',');
  Loc header{name, 1};
  std::vector<int> col_field(table.columns.size(), -1);
  int where[kFieldCount];
  std::fill(std::begin(where), std::end(where), -1);
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const int f = field_of(table.columns[c]);
    if (table.columns[c].empty()) header.fail("", "header has an empty column name");
    if (f < 0) continue;  // unknown columns are ignored
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
    std::string msg = std::string("missing required column '") + names[f] +
                      "' (the header must name id, lower, upper and size)";
    if (!table.columns.empty() && !table.columns[0].empty() &&
        (std::isdigit(static_cast<unsigned char>(table.columns[0][0])) || table.columns[0][0] == '-'))
      msg += "; the first row looks like data: is the header row missing?";
    header.fail("", msg);
  }
  const bool inclusive_end = col_field[where[kUpper]] == kEnd || lifetimes == Lifetimes::kInclusive;
  table.has_offset_column = where[kOffset] >= 0;
  std::unordered_map<std::string, size_t> id_line;
  size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (trim(line).empty()) break;  // MiniMalloc stops at the first empty line
    Loc loc{name, lineno};
    std::vector<std::string> fields = split(line, ',');
    if (fields.size() != table.columns.size())
      loc.fail("", "expected " + std::to_string(table.columns.size()) + " fields, found " +
                       std::to_string(fields.size()));
    Buffer b;
    for (size_t c = 0; c < fields.size(); ++c) {
      const std::string& col = table.columns[c];
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
            if (*b.offset < 0) loc.fail(col, "negative offset " + fields[c]);
          }
          break;
        case kHint:
          if (!fields[c].empty()) b.hint = parse_int(fields[c], loc, col);
          break;
        case kGaps: b.gaps = parse_gaps(fields[c], loc, col, inclusive_end ? 1 : 0); break;
        default: break;
      }
    }
    if (inclusive_end && __builtin_add_overflow(b.end, 1, &b.end))
      loc.fail(table.columns[where[kUpper]], "end overflows 64 bits");
    if (auto issue = buffer_issue(b)) {
      std::string col = issue->field;
      if (col == "lower") col = table.columns[where[kLower]];
      else if (col == "upper") col = table.columns[where[kUpper]];
      else if (col == "offset" && where[kOffset] < 0) col = "offset";
      loc.fail(col, issue->message);
    }
    if (auto [it, fresh] = id_line.emplace(b.id, lineno); !fresh)
      loc.fail(table.columns[where[kId]],
               "duplicate id '" + b.id + "' (first on line " + std::to_string(it->second) + ")");
    table.problem.buffers.push_back(std::move(b));
  }
  check_problem(table.problem, name);
  return table;
}

CsvTable read_csv_file(const std::string& path, Lifetimes lifetimes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  return read_csv(in, path, lifetimes);
}

std::vector<int64_t> read_solution_csv_file(const std::string& path, const Problem& problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  CsvTable t = read_csv(in, path);
  if (!t.has_offset_column) throw InputError(path + ":1: missing required column 'offset'");
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < problem.buffers.size(); ++i) index.emplace(problem.buffers[i].id, i);
  std::vector<int64_t> offsets(problem.buffers.size(), -1);
  for (size_t r = 0; r < t.problem.buffers.size(); ++r) {
    const Buffer& b = t.problem.buffers[r];
    const std::string where = path + ":" + std::to_string(r + 2) + ": column 'id': ";
    auto it = index.find(b.id);
    if (it == index.end()) throw InputError(where + "buffer '" + b.id + "' is not in the problem");
    if (!b.offset) throw InputError(path + ":" + std::to_string(r + 2) + ": column 'offset': no offset for buffer '" + b.id + "'");
    offsets[it->second] = *b.offset;
  }
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    if (offsets[i] < 0)
      throw InputError(path + ": buffer '" + problem.buffers[i].id + "' of the problem has no row");
  return offsets;
}

void write_csv(std::ostream& out, const Problem& problem, const std::vector<int64_t>* offsets,
               const std::vector<std::string>& columns_in) {
  std::vector<std::string> columns;
  for (const std::string& c : columns_in)
    if (field_of(c) >= 0) columns.push_back(c);  // unknown input columns are not carried
  if (columns.empty()) {
    bool align = false, hint = false, gaps = false, fixed = false;
    for (const Buffer& b : problem.buffers) {
      align |= b.alignment != 1;
      hint |= b.hint != -1;
      gaps |= !b.gaps.empty();
      fixed |= b.offset.has_value();
    }
    columns = {"id", "lower", "upper", "size"};
    if (align) columns.push_back("alignment");
    if (hint) columns.push_back("hint");
    if (gaps) columns.push_back("gaps");
    if (fixed) columns.push_back("offset");
  }
  if (offsets && std::find(columns.begin(), columns.end(), "offset") == columns.end())
    columns.push_back("offset");
  std::string text;
  for (size_t c = 0; c < columns.size(); ++c) text += (c ? "," : "") + columns[c];
  text += '\n';
  const bool inclusive = std::find(columns.begin(), columns.end(), "end") != columns.end();
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) text += ',';
      switch (field_of(columns[c])) {
        case kId: text += b.id; break;
        case kLower: text += std::to_string(b.start); break;
        case kUpper: text += std::to_string(b.end); break;
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
        default: break;
      }
    }
    text += '\n';
  }
  out << text;
}

void write_file_atomic(const std::string& path, const std::string& content) {
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
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename temporary file into place");
  }
}

}  // namespace memplan
