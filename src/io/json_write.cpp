// problem_to_json (io_json.h): a problem or plan as JSON text, written directly.
#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memplan/io_json.h"
#include "memplan/streams.h"

namespace memplan {

using nlohmann::json;

namespace {

// problem_to_json writes the document as nlohmann's dump(1) lays it out (members in key
// order, one space of indent a level) straight into the text: building it as a json value
// first cost a map per buffer and a copy of each (1,000,000 buffers: 7 s and 1 GB).
class JsonText {
 public:
  explicit JsonText(std::string& out) : s_(out) {}
  // Containers: open(), then item() or key() before each member, then close().
  void open(char c) {
    s_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    s_ += c;
  }
  void item() {
    if (!first_.back()) s_ += ',';
    first_.back() = false;
    newline();
  }
  void key(const char* k) {
    item();
    s_ += '"';
    s_ += k;
    s_ += "\": ";
  }
  void key(const std::string& k) {
    item();
    string(k);
    s_ += ": ";
  }
  void number(int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    s_.append(buf, r.ptr);
  }
  // Printable ASCII without quote or backslash as is; anything else as nlohmann escapes it
  // (and refuses invalid UTF-8).
  void string(const std::string& v) {
    if (std::all_of(v.begin(), v.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; })) {
      s_ += '"';
      s_ += v;
      s_ += '"';
    } else {
      s_ += json(v).dump();
    }
  }
  void raw(const char* v) { s_ += v; }
  void numbers(const int64_t* v, size_t n) {
    open('[');
    for (size_t k = 0; k < n; ++k) item(), number(v[k]);
    close(']');
  }
  void strings(const std::vector<std::string>& v) {
    open('[');
    for (const std::string& x : v) item(), string(x);
    close(']');
  }

 private:
  void newline() {
    s_ += '\n';
    s_.append(first_.size(), ' ');
  }
  std::string& s_;
  std::vector<bool> first_;  // per open container: no member yet
};

void buffer_json(JsonText& w, const Problem& p, size_t i, const std::vector<int64_t>* offsets, bool clocks) {
  const Buffer& b = p.buffers[i];
  const size_t S = static_cast<size_t>(p.clock_dim);
  w.open('{');  // members in key order
  if (b.accesses >= 0) w.key("accesses"), w.number(b.accesses);
  if (b.alignment != 1) w.key("alignment"), w.number(b.alignment);
  if (b.evictable) w.key("evictable"), w.raw("true");
  if (!b.gaps.empty()) {
    w.key("gaps");
    w.open('[');
    for (const Gap& g : b.gaps) {
      w.item();
      w.open('{');
      w.key("lower"), w.number(g.start);
      w.key("upper"), w.number(g.end);
      if (g.has_window) {
        const int64_t window[2] = {g.window_lo, g.window_hi};
        w.key("window"), w.numbers(window, 2);
      }
      w.close('}');
    }
    w.close(']');
  }
  if (!b.group.empty()) w.key("group"), w.string(b.group), w.key("group_index"), w.number(b.group_index);
  if (b.hint != -1) w.key("hint"), w.number(b.hint);
  w.key("id"), w.string(b.id);
  if (!b.inplace_of.empty()) w.key("inplace"), w.string(b.inplace_of);
  w.key("lower");
  if (clocks) w.numbers(p.clock_lower.data() + i * S, S);  // the partial order itself
  else w.number(b.start);
  if (offsets) w.key("offset"), w.number((*offsets)[i]);
  else if (b.offset) w.key("offset"), w.number(*b.offset);
  if (b.from_top) w.key("side"), w.string("high");
  w.key("size"), w.number(b.size);
  if (!b.spaces.empty()) w.key("spaces"), w.strings(b.spaces);
  w.key("upper");
  if (clocks) w.numbers(p.clock_upper.data() + i * S, S);
  else w.number(b.end);
  if (!b.uses.empty()) w.key("uses"), w.numbers(b.uses.data(), b.uses.size());
  w.close('}');
}

}  // namespace

std::string problem_to_json(const Problem& p, const std::vector<int64_t>* offsets,
                            const std::map<std::string, std::string>& extra) {
  const size_t S = static_cast<size_t>(p.clock_dim);
  const bool clocks = S > 0 && p.clock_lower.size() == p.buffers.size() * S && p.clock_upper.size() == p.clock_lower.size();
  // The document's members: the extra strings, then ours (which win a name both use).
  std::map<std::string, std::function<void(JsonText&)>> members;
  for (const auto& member : extra) {
    const std::string& v = member.second;
    members[member.first] = [&v](JsonText& w) { w.string(v); };
  }
  if (p.capacity) members["capacity"] = [&](JsonText& w) { w.number(*p.capacity); };
  if (offsets) members["peak"] = [peak = peak_of(p, *offsets)](JsonText& w) { w.number(peak); };
  if (!p.memories.empty()) {  // read back by read_json_spaces (spaces_io.h)
    members["memories"] = [&](JsonText& w) {
      w.open('[');
      for (const Memory& m : p.memories) {
        w.item();
        w.open('{');
        w.key("alignment"), w.number(m.alignment);
        if (m.capacity) w.key("capacity"), w.number(*m.capacity);
        w.key("name"), w.string(m.name);
        w.close('}');
      }
      w.close(']');
    };
  }
  members["buffers"] = [&](JsonText& w) {
    w.open('[');
    for (size_t i = 0; i < p.buffers.size(); ++i) w.item(), buffer_json(w, p, i, offsets, clocks);
    w.close(']');
  };
  const std::vector<std::pair<int32_t, int32_t>> kept = clocks ? conflicts_beyond_clocks(p) : p.conflicts;
  if (!kept.empty()) {
    members["conflicts"] = [&](JsonText& w) {
      w.open('[');
      for (auto [a, b] : kept) w.item(), w.strings({p.buffers[a].id, p.buffers[b].id});
      w.close(']');
    };
  }
  std::string out;
  out.reserve(96 * p.buffers.size() + 256);
  JsonText w(out);
  w.open('{');
  for (const auto& [k, put] : members) w.key(k), put(w);
  w.close('}');
  out += '\n';
  return out;
}

}  // namespace memplan
