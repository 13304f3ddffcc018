#include "io/csv_fields.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "memplan/io.h"

namespace memplan {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

std::optional<std::vector<std::string>> split_csv_fields(const std::string& line, CsvSplitError& error) {
  std::vector<std::string> out;
  size_t at = 0;
  const size_t n = line.size();
  for (;;) {
    size_t a = at;
    while (a < n && (line[a] == ' ' || line[a] == '\t')) ++a;
    if (a < n && line[a] == '"') {  // quoted: up to the quote that is not doubled
      std::string text;
      size_t k = a + 1;
      for (;; ++k) {
        if (k >= n) {
          error = {out.size(), "a quote opened and not closed"};
          return std::nullopt;
        }
        if (line[k] != '"') text += line[k];
        else if (k + 1 < n && line[k + 1] == '"') text += '"', ++k;
        else break;
      }
      ++k;  // past the closing quote: only blanks up to the comma
      while (k < n && blank(line[k])) ++k;
      if (k < n && line[k] != ',') {
        error = {out.size(), "text after a closing quote"};
        return std::nullopt;
      }
      out.push_back(std::move(text));
      if (k >= n) return out;
      at = k + 1;
      continue;
    }
    const size_t comma = line.find(',', at);
    size_t b = comma == std::string::npos ? n : comma;
    while (b > a && blank(line[b - 1])) --b;
    out.push_back(line.substr(a, b - a));
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

std::string csv_error_column(const CsvSplitError& error, const std::vector<std::string>& columns) {
  return error.field < columns.size() ? columns[error.field] : "field " + std::to_string(error.field + 1);
}

std::string trim_blanks(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && blank(s[b - 1])) --b;
  return s.substr(a, b - a);
}

std::string csv_field(const std::string& text) {
  const bool quote = text.find_first_of(",\"") != std::string::npos ||
                     (!text.empty() && (blank(text.front()) || blank(text.back())));
  if (!quote) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

void CsvRows::fail(const std::string& column, const std::string& msg) const {
  std::string where = name + ":" + std::to_string(lineno);
  if (!column.empty()) where += ": column '" + column + "'";
  throw InputError(where + ": " + msg);
}

bool CsvRows::next(std::vector<std::string>& fields) {
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

int CsvRows::column(std::initializer_list<const char*> names) const {
  for (size_t c = 0; c < columns.size(); ++c)
    for (const char* n : names)
      if (columns[c] == n) return static_cast<int>(c);
  return -1;
}

int64_t CsvRows::integer(const std::string& text, const std::string& column) const {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) fail(column, "'" + text + "' is out of the 64-bit integer range");
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    fail(column, "'" + text + "' is not an integer");
  return v;
}

CsvRows open_csv_rows(std::istream& in, const std::string& name, const std::string& expected) {
  CsvRows t{in, name, {}};
  if (!t.next(t.columns)) {
    t.lineno = 1;
    t.fail("", "empty file: expected a header row with " + expected);
  }
  std::unordered_map<std::string, size_t> seen;
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (!seen.emplace(t.columns[c], c).second) t.fail(t.columns[c], "duplicate column name");
  return t;
}

}  // namespace memplan
