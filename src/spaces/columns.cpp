#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "memplan/io.h"
#include "memplan/spaces_io.h"

namespace memplan {

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

int64_t to_int(const std::string& text, const std::string& where, const std::string& field) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw InputError(where + ": field '" + field + "': '" + text + "' is not a 64-bit integer");
  return v;
}

// A byte count on the command line: an integer or one with a unit (parse_byte_size).
int64_t to_bytes(const std::string& text, const std::string& where, const std::string& field) {
  const std::optional<int64_t> v = parse_byte_size(text);
  if (!v)
    throw InputError(where + ": field '" + field + "': '" + text +
                     "' is not a byte count (an integer, or one with a unit: 4MiB = 4194304, 4MB = 4000000)");
  return *v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(trim(cur));
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

}  // namespace

bool known_column(const std::string& c) {
  static const std::set<std::string> known = {"id", "buffer", "buffer_id", "lower", "start", "begin",
                                              "upper", "end", "size", "alignment", "offset", "hint",
                                              "gaps", "inplace", "group", "side", "conflicts"};
  return known.count(c) > 0;
}

std::string csv_row_location(const std::string& name, size_t row) { return name + ":" + std::to_string(row + 2); }

void read_space_columns(const CsvTable& table, std::vector<Buffer>& buffers, const std::string& name) {
  std::vector<std::string> unknown;
  for (const std::string& c : table.columns)
    if (!known_column(c)) unknown.push_back(c);
  const size_t k = unknown.size();
  if (k == 0) return;
  for (size_t r = 0; r < buffers.size() && k * (r + 1) <= table.unknown_fields.size(); ++r) {
    Buffer& b = buffers[r];
    for (size_t c = 0; c < k; ++c) {
      const std::string& col = unknown[c];
      const std::string v = trim(table.unknown_fields[r * k + c]);
      if (col == "space" || col == "spaces") {
        if (!v.empty()) b.spaces = split(v, '|');
      } else if (col == "uses") {
        std::istringstream in(v);
        std::string tok;
        while (in >> tok) b.uses.push_back(to_int(tok, csv_row_location(name, r), col));
      } else if (col == "evictable") {
        if (v == "1" || v == "true") b.evictable = true;
        else if (!v.empty() && v != "0" && v != "false")
          throw InputError(csv_row_location(name, r) + ": field 'evictable': '" + v + "' is not 0 or 1");
      } else if (col == "accesses") {
        if (!v.empty()) b.accesses = to_int(v, csv_row_location(name, r), col);
      }
    }
  }
}

namespace {

// The memories' own rules, each error naming `where` (the file, or --memories) and the field.
void check_memories(const std::vector<Memory>& memories, const std::string& where, std::set<std::string>& names) {
  for (const Memory& m : memories) {
    const std::string w = where + ": memory '" + m.name + "'";
    if (m.name.empty() || m.name.find('|') != std::string::npos)
      throw InputError(where + ": field 'memories': empty or invalid memory name '" + m.name + "'");
    if (!names.insert(m.name).second) throw InputError(w + ": field 'name': declared twice");
    if (m.capacity && *m.capacity <= 0)
      throw InputError(w + ": field 'capacity': " + std::to_string(*m.capacity) + " must be > 0");
    if (m.alignment <= 0 || (m.alignment & (m.alignment - 1)) != 0)
      throw InputError(w + ": field 'alignment': " + std::to_string(m.alignment) + " is not a power of two");
  }
}

}  // namespace

std::vector<Memory> parse_memories(const std::string& spec, const std::string& where) {
  std::vector<Memory> out;
  for (const std::string& item : split(spec, ',')) {
    Memory m;
    const size_t eq = item.find('=');
    m.name = trim(item.substr(0, eq));
    if (eq != std::string::npos) {
      const std::string rest = item.substr(eq + 1);
      const size_t colon = rest.find(':');
      m.capacity = to_bytes(trim(rest.substr(0, colon)), where, m.name + " capacity");
      if (colon != std::string::npos) m.alignment = to_bytes(trim(rest.substr(colon + 1)), where, m.name + " alignment");
    }
    out.push_back(m);
  }
  std::set<std::string> names;
  check_memories(out, where, names);  // so that an error names the option, not the input file
  return out;
}

void check_spaces(const Problem& p, const std::string& name, const std::function<std::string(size_t)>& where) {
  std::set<std::string> names;
  check_memories(p.memories, name, names);
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    // Only an error spells out where (not a string per buffer on every run).
    const auto w = [&] {
      std::string at = where ? where(i) : "";
      return at.empty() ? name + ": buffer '" + b.id + "'" : at;
    };
    if (!b.spaces.empty()) {
      bool any = false;
      for (const std::string& s : b.spaces) {
        if (s.empty()) continue;
        if (!names.count(s))
          throw InputError(w() + ": field 'space': unknown memory '" + s + "'" +
                           (p.memories.empty() ? " (no memories declared; use --memories)" : ""));
        any = true;
      }
      if (!any) throw InputError(w() + ": field 'space': buffer '" + b.id + "' is allowed in no declared memory");
    }
    for (int64_t u : b.uses)
      if (u < b.start || u >= b.end)
        throw InputError(w() + ": field 'uses': " + std::to_string(u) + " is outside the lifetime [" +
                         std::to_string(b.start) + "," + std::to_string(b.end) + ")");
    if (b.evictable) {
      std::set<int64_t> u(b.uses.begin(), b.uses.end());
      if (b.uses.empty()) u = {b.start, b.end - 1};
      if (u.size() < 2)
        throw InputError(w() + ": field 'evictable': buffer '" + b.id + "' has a single use; nothing to swap between");
    }
    if (b.accesses < -1) throw InputError(w() + ": field 'accesses': must be >= 0");
  }
}

}  // namespace memplan
