#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "io/check.h"
#include "io/json_plain.h"
#include "io/partial_order.h"
#include "io/plan_rows.h"

#include "memplan/io_json.h"
#include "memplan/streams.h"

namespace memplan {
namespace {

using nlohmann::json;

int64_t get_int(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(where + ": missing field '" + key + "'");
  if (!it->is_number_integer())
    throw InputError(where + ": field '" + key + "' must be an integer");
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw InputError(where + ": field '" + key + "' is out of the 64-bit range");
  return it->get<int64_t>();
}

int64_t get_at(const json& arr, size_t k, const std::string& where) {
  const json& v = arr[k];
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)))
    throw InputError(where + "[" + std::to_string(k) + "]: must be a 64-bit integer");
  return v.get<int64_t>();
}

// Parses `text`; every nlohmann error (syntax, or a number beyond double such as 1e400,
// which nlohmann reports as out_of_range) becomes an InputError naming the file and the
// field being read: the parser callback keeps the path of keys and array indices. The
// callback parser is quadratic in a container's length (nlohmann 3.11's end_object scans
// the parent for a discarded value after every member: 221 s of CPU on 10^6 buffers), so
// the text is parsed without it first, and again with it only to name the field of an
// error (the same lexer stops at the same place).
json parse_doc(const std::string& text, const std::string& name) {
  std::string first_error;
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    first_error = e.what();
  }
  std::vector<std::string> path;     // "buffers", "[3]", "upper", ...
  std::vector<int64_t> next_index;   // per open array: index of its next element
  std::vector<bool> in_array;        // per open container
  auto callback = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    auto begin_value = [&] {
      if (!in_array.empty() && in_array.back()) {
        path.push_back("[" + std::to_string(next_index.back()++) + "]");
      }
    };
    auto end_value = [&] {  // a complete value: drop its key or index
      if (!path.empty()) path.pop_back();
    };
    switch (event) {
      case json::parse_event_t::key:
        path.push_back(parsed.get<std::string>());
        break;
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        begin_value();
        in_array.push_back(event == json::parse_event_t::array_start);
        next_index.push_back(0);
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        in_array.pop_back();
        next_index.pop_back();
        if (!in_array.empty()) end_value();
        break;
      case json::parse_event_t::value:
        if (!in_array.empty() && in_array.back()) next_index.back()++;
        else end_value();
        break;
    }
    return true;
  };
  std::string what = first_error;  // kept should the second parse not fail (it does)
  try {
    const json again = json::parse(text, callback);  // for its exception: the value is not used
    static_cast<void>(again);
    path.clear();
  } catch (const json::exception& e) {
    what = e.what();
  }
  std::string where;
  for (const std::string& part : path) where += (part[0] == '[' || where.empty() ? "" : ".") + part;
  if (const auto close = what.find("] "); what.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    what = what.substr(close + 2);  // drop nlohmann's "[json.exception.out_of_range.406] "
  throw InputError(name + ": invalid JSON" + (where.empty() ? "" : " in field '" + where + "'") + ": " + what);
}

// Fields memplan reads; anything else is a typo ("alignement") unless lenient.
void check_fields(const json& obj, std::initializer_list<const char*> known, const std::string& where,
                  const JsonReadOptions& opt) {
  for (const auto& [key, value] : obj.items()) {
    bool ok = false;
    for (const char* k : known) ok |= key == k;
    if (ok) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    const std::string msg = where + ": unknown field '" + key + "' (fields: " + list + ")";
    if (!opt.lenient) throw InputError(msg + "; --lenient ignores unknown fields");
    if (opt.warnings) opt.warnings->push_back(msg + ": ignored");
  }
}

std::string slurp(const std::string& path) {
  std::ifstream in = open_input(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "conflicts": [["a", "b"], ...]: explicit conflict pairs by buffer id (problem.h).
void read_conflicts(const json& list, const std::string& name, Problem& p) {
  if (!list.is_array()) throw InputError(name + ": field 'conflicts' must be an array of [id, id] pairs");
  std::unordered_map<std::string, int32_t> index;
  for (size_t i = 0; i < p.buffers.size(); ++i) index.emplace(p.buffers[i].id, static_cast<int32_t>(i));
  size_t k = 0;
  for (const json& pair : list) {
    const std::string where = name + ": conflicts[" + std::to_string(k++) + "]";
    if (!pair.is_array() || pair.size() != 2) throw InputError(where + ": expected [id, id]");
    int32_t ends[2];
    for (int e = 0; e < 2; ++e) {
      const json& id = pair[e];
      if (!id.is_string() && !id.is_number_integer()) throw InputError(where + ": ids must be strings or integers");
      auto it = index.find(id.is_string() ? id.get<std::string>() : id.dump());
      if (it == index.end()) throw InputError(where + ": unknown buffer id " + id.dump());
      ends[e] = it->second;
    }
    if (ends[0] == ends[1]) throw InputError(where + ": a buffer cannot conflict with itself");
    p.conflicts.emplace_back(ends[0], ends[1]);
  }
}

}  // namespace

std::string json_buffer_location(const std::string& name, size_t i) {
  return name + ": buffers[" + std::to_string(i) + "]";
}

Problem parse_json(const std::string& text, const std::string& name) {
  return parse_json(text, name, JsonReadOptions{});
}

namespace {
Problem parse_problem(const std::string& text, const std::string& name, const JsonReadOptions& opt) {
  const json doc = parse_doc(text, name);
  if (!doc.is_object() || !doc.contains("buffers") || !doc["buffers"].is_array())
    throw InputError(name + ": expected an object with a 'buffers' array");
  // A plan written by memplan (peak, algo, status) reads back as a problem.
  // memories, swap, durations and the buffers' spaces, uses, evictable, accesses are read by
  // read_json_spaces (spaces_io.h).
  check_fields(doc, {"capacity", "buffers", "peak", "algo", "status", "conflicts", "memories", "swap", "durations",
                    "bytes_moved"},
               name, opt);
  Problem p;
  if (doc.contains("capacity") && !doc["capacity"].is_null())
    p.capacity = get_int(doc, "capacity", name);
  const json& buffers = doc["buffers"];
  std::vector<OrderRow> order_rows;  // only when the buffers give a partial order
  // Whether read_json_spaces has anything to read: as PlainJson::space_fields (json_plain.h).
  // (It was set for every document read here, and `solve` then parsed the whole text again
  // for nothing: 0.5 s of a 200k-buffer streams document, outside the time limit's count.)
  bool spaces = doc.contains("memories") || doc.contains("swap") || doc.contains("durations");
  size_t k = 0;
  for (const json& jb : buffers) {
    const std::string where = json_buffer_location(name, k++);
    if (!jb.is_object()) throw InputError(where + ": expected an object");
    spaces = spaces || jb.contains("spaces") || jb.contains("uses") || jb.contains("evictable") || jb.contains("accesses");
    check_fields(jb, {"id", "lower", "upper", "size", "alignment", "offset", "hint", "inplace", "side",
                      "group", "group_index", "gaps", "spaces", "uses", "evictable", "accesses", "stream", "deps",
                      "reads"},
                 where, opt);
    Buffer b;
    if (!jb.contains("id")) throw InputError(where + ": missing field 'id'");
    if (!jb["id"].is_string() && !jb["id"].is_number_integer())
      throw InputError(where + ": field 'id' must be a string or an integer");
    b.id = jb["id"].is_string() ? jb["id"].get<std::string>() : jb["id"].dump();
    // Partial-order forms (partial_order.h): "lower"/"upper" arrays (vector clocks), or
    // "stream" with op positions, "deps" (ids) and "reads" ([[stream, op], ...]).
    OrderRow order;
    order.where = where;
    if (jb.contains("lower") && jb["lower"].is_array()) {
      order.form = RowForm::kClock;
      for (const char* key : {"lower", "upper"}) {
        if (!jb.contains(key) || !jb[key].is_array())
          throw InputError(where + ": field '" + key + "': mixed forms: vector clocks need both lower and upper as arrays");
        std::vector<int64_t>& dst = key[0] == 'l' ? order.lower : order.upper;
        for (size_t t = 0; t < jb[key].size(); ++t) {
          dst.push_back(get_at(jb[key], t, where + "." + key));
          if (dst.back() < 0) throw InputError(where + "." + key + "[" + std::to_string(t) + "]: must be >= 0");
        }
      }
      b.start = 0, b.end = 1;  // placeholders, replaced by apply_partial_order
    } else {
      b.start = get_int(jb, "lower", where);
      b.end = get_int(jb, "upper", where);
    }
    if (jb.contains("stream")) {
      if (order.form == RowForm::kClock) throw InputError(where + ": field 'stream': mixed forms: a stream together with vector clocks");
      order.form = RowForm::kStream;
      order.stream = get_int(jb, "stream", where);
      order.op_lower = b.start, order.op_upper = b.end;
    }
    if (jb.contains("deps")) {
      if (!jb["deps"].is_array()) throw InputError(where + ": field 'deps' must be an array of buffer ids");
      for (const json& d : jb["deps"]) {
        if (!d.is_string() && !d.is_number_integer()) throw InputError(where + ": field 'deps': ids must be strings or integers");
        order.deps.push_back(d.is_string() ? d.get<std::string>() : d.dump());
      }
    }
    if (jb.contains("reads")) {
      if (!jb["reads"].is_array()) throw InputError(where + ": field 'reads' must be an array of [stream, op]");
      for (const json& r : jb["reads"]) {
        if (!r.is_array() || r.size() != 2) throw InputError(where + ": field 'reads': each read must be [stream, op]");
        order.reads.emplace_back(get_at(r, 0, where + ".reads"), get_at(r, 1, where + ".reads"));
      }
    }
    if (order.form != RowForm::kStream && (!order.deps.empty() || !order.reads.empty()))
      throw InputError(where + ": field '" + std::string(order.deps.empty() ? "reads" : "deps") + "': needs a 'stream'");
    if (order.form != RowForm::kScalar || !order_rows.empty()) {
      if (order_rows.size() != p.buffers.size())
        throw InputError(where + ": field 'lower': mixed forms: this buffer gives a partial order (vector clocks or a stream), the earlier ones scalar lifetimes");
      order_rows.push_back(std::move(order));
    }
    b.size = get_int(jb, "size", where);
    if (jb.contains("alignment")) b.alignment = get_int(jb, "alignment", where);
    if (jb.contains("offset") && !jb["offset"].is_null()) b.offset = get_int(jb, "offset", where);
    if (jb.contains("hint")) b.hint = get_int(jb, "hint", where);
    if (jb.contains("inplace")) {
      if (!jb["inplace"].is_string()) throw InputError(where + ": field 'inplace' must be a buffer id string");
      b.inplace_of = jb["inplace"].get<std::string>();
    }
    if (jb.contains("side")) {
      if (jb["side"] != "low" && jb["side"] != "high")
        throw InputError(where + ": field 'side' must be \"low\" or \"high\"");
      b.from_top = jb["side"] == "high";
    }
    if (jb.contains("group")) {
      if (!jb["group"].is_string()) throw InputError(where + ": field 'group' must be a string");
      b.group = jb["group"].get<std::string>();
      if (b.group.empty()) throw InputError(where + ": field 'group': empty group name");  // as in CSV
      b.group_index = jb.contains("group_index") ? get_int(jb, "group_index", where) : static_cast<int64_t>(k);
    }
    if (jb.contains("gaps")) {
      if (!jb["gaps"].is_array()) throw InputError(where + ": field 'gaps' must be an array");
      for (const json& jg : jb["gaps"]) {
        if (!jg.is_object()) throw InputError(where + ".gaps: each gap must be an object");
        check_fields(jg, {"lower", "upper", "window"}, where + ".gaps", opt);
        Gap g;
        g.start = get_int(jg, "lower", where + ".gaps");
        g.end = get_int(jg, "upper", where + ".gaps");
        if (jg.contains("window")) {
          const json& w = jg["window"];
          if (!w.is_array() || w.size() != 2 || !w[0].is_number_integer() ||
              !w[1].is_number_integer())
            throw InputError(where + ".gaps: 'window' must be [lo, hi]");
          g.has_window = true;
          g.window_lo = get_at(jg["window"], 0, where + ".gaps.window");
          g.window_hi = get_at(jg["window"], 1, where + ".gaps.window");
        }
        b.gaps.push_back(g);
      }
    }
    p.buffers.push_back(std::move(b));
  }
  if (doc.contains("conflicts")) read_conflicts(doc["conflicts"], name, p);
  if (!order_rows.empty()) {
    for (const Buffer& b : p.buffers)  // the rules apply_partial_order does not cover
      if (auto issue = buffer_issue(b)) throw InputError(name + ": buffer '" + b.id + "': " + issue->field + ": " + issue->message);
    apply_partial_order(p, order_rows, name, "field", opt.stop);
  }
  check_problem(p, name);
  if (opt.space_fields) *opt.space_fields = spaces;
  return p;
}
}  // namespace

// nlohmann keeps the last of a repeated key ({"size": 10, "size": 20} read as 20, silently):
// a SAX pass over the text finds the first one and names where it is. Only on documents the
// plain reader did not take (which stops at a repeated buffer field).
class RepeatedKeys : public nlohmann::json_sax<json> {
 public:
  std::string found;  // "buffers[1].size", empty: none

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    Frame& f = frames_.back();
    if (std::find(f.keys.begin(), f.keys.end(), k) != f.keys.end()) {
      for (const Frame& g : frames_)
        if (!g.label.empty()) found += (g.label[0] == '[' || found.empty() ? "" : ".") + g.label;
      found += (found.empty() ? "" : ".") + k;
      return false;
    }
    f.keys.push_back(k);
    f.pending = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool array = false;
    int64_t next = 0;
    std::string label;               // how the parent names it: a key or "[i]"
    std::vector<std::string> keys;   // an object's keys so far
    std::string pending;             // the key whose value comes next
  };
  std::string child_label() {
    if (frames_.empty()) return "";
    Frame& p = frames_.back();
    return p.array ? "[" + std::to_string(p.next++) + "]" : p.pending;
  }
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().next;
    return true;
  }
  bool open(bool array) {
    Frame f;
    f.array = array;
    f.label = child_label();
    frames_.push_back(std::move(f));
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  std::vector<Frame> frames_;
};

Problem parse_json_as_value(const std::string& text, const std::string& name, const JsonReadOptions& opt) {
  RepeatedKeys repeated;
  json::sax_parse(text, &repeated);  // a syntax error is reported below, by the reader
  if (!repeated.found.empty()) throw InputError(name + ": field '" + repeated.found + "' is given twice");
  try {
    return parse_problem(text, name, opt);
  } catch (const json::exception& e) {  // a safety net: the reader checks types first
    throw InputError(name + ": " + e.what());
  }
}

Problem parse_json(const std::string& text, const std::string& name, const JsonReadOptions& opt) {
  // The plain form in one pass (json_plain.h); anything else, or anything wrong, as a json
  // value, which names the field at fault.
  if (std::optional<PlainJson> plain = read_plain_json(text)) {
    if (opt.space_fields) *opt.space_fields = plain->space_fields;
    check_problem(plain->problem, name);
    return std::move(plain->problem);
  }
  return parse_json_as_value(text, name, opt);
}

Problem read_json_file(const std::string& path) { return parse_json(slurp(path), path); }
Problem read_json_file(const std::string& path, const JsonReadOptions& opt) {
  return parse_json(slurp(path), path, opt);
}

namespace {

// A plan's entries as the plan reader needs them: each element of the top-level "buffers"
// array, with its "id" and "offset" if they are scalars (the last of a repeated key, as a
// json object keeps it). Read by nlohmann's SAX interface: a plan of 1M buffers as a json
// value cost a map per entry (~1.5 s and 0.6 GB, most of `memplan validate`).
struct PlanEntry {
  bool object = false;
  enum Kind { kNone, kString, kInt, kUnsignedBig, kOther } id = kNone, offset = kNone;
  std::string id_text;  // a string id, or an integer id as json writes it
  int64_t offset_value = 0;
};
struct PlanDoc {
  bool object = false, buffers = false, array = false;  // top level; its "buffers"; an array
  std::vector<PlanEntry> entries;
};

class PlanSax : public nlohmann::json_sax<json> {
 public:
  explicit PlanSax(PlanDoc& doc) : doc_(doc) {}
  bool null() override { return scalar(PlanEntry::kOther); }
  bool boolean(bool) override { return scalar(PlanEntry::kOther); }
  bool number_integer(number_integer_t v) override {
    return scalar(PlanEntry::kInt, v, std::to_string(v));
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (v > static_cast<uint64_t>(INT64_MAX)) return scalar(PlanEntry::kUnsignedBig, 0, std::to_string(v));
    return scalar(PlanEntry::kInt, static_cast<int64_t>(v), std::to_string(v));
  }
  // (A number beyond double, 1e400, never gets here: the parser reports it as an error.)
  bool number_float(number_float_t, const string_t&) override { return scalar(PlanEntry::kOther); }
  bool string(string_t& v) override { return scalar(PlanEntry::kString, 0, v); }
  bool binary(binary_t&) override { return scalar(PlanEntry::kOther); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (stack_.back().ctx == kTop || stack_.back().ctx == kEntry) stack_.back().key = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // the caller parses again for the message
  }

 private:
  enum Ctx { kTop, kBuffers, kEntry, kOther };
  struct Open {
    Ctx ctx;
    std::string key;  // the current member's key (kTop, kEntry)
  };
  // The slot a value fills: what it is, given where it stands.
  Ctx slot(bool container, bool object) {
    if (stack_.empty()) {
      doc_.object = object;
      return container && object ? kTop : kOther;
    }
    Open& at = stack_.back();
    if (at.ctx == kTop && at.key == "buffers") {  // a repeated "buffers": the last one counts
      doc_.buffers = true;
      doc_.array = container && !object;
      doc_.entries.clear();
      return doc_.array ? kBuffers : kOther;
    }
    if (at.ctx == kBuffers) {
      doc_.entries.emplace_back();
      doc_.entries.back().object = object;
      return object ? kEntry : kOther;
    }
    return kOther;
  }
  bool scalar(PlanEntry::Kind kind, int64_t value = 0, const std::string& text = {}) {
    if (!stack_.empty() && stack_.back().ctx == kEntry) {
      PlanEntry& e = doc_.entries.back();
      const std::string& k = stack_.back().key;
      if (k == "id") e.id = kind, e.id_text = text;
      else if (k == "offset") e.offset = kind, e.offset_value = value;
      return true;
    }
    slot(false, false);
    return true;
  }
  bool open(bool object) {
    Ctx ctx = kOther;
    if (!stack_.empty() && stack_.back().ctx == kEntry) {  // an id or offset that is a container
      PlanEntry& e = doc_.entries.back();
      if (stack_.back().key == "id") e.id = PlanEntry::kOther;
      else if (stack_.back().key == "offset") e.offset = PlanEntry::kOther;
    } else {
      ctx = slot(true, object);
    }
    stack_.push_back({ctx, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  PlanDoc& doc_;
  std::vector<Open> stack_;
};

}  // namespace

std::vector<int64_t> parse_json_solution(const std::string& text, const std::string& name,
                                         const Problem& problem) {
  PlanDoc doc;
  PlanSax sax(doc);
  if (!json::sax_parse(text, &sax)) parse_doc(text, name);  // throws, naming the field
  if (!doc.object || !doc.buffers || !doc.array)
    throw InputError(name + ": expected an object with a 'buffers' array");
  PlanRows rows(problem);
  std::vector<int64_t> offsets(problem.buffers.size(), 0);
  std::vector<size_t> entry_of(problem.buffers.size(), 0);  // 1 + entry index; 0 = none
  for (size_t k = 0; k < doc.entries.size(); ++k) {
    const PlanEntry& e = doc.entries[k];
    // Where, only for a message (a string per entry cost ~0.2 s at 1M entries).
    const auto where = [&] { return json_buffer_location(name, k); };
    if (!e.object || (e.id != PlanEntry::kString && e.id != PlanEntry::kInt && e.id != PlanEntry::kUnsignedBig))
      throw InputError(where() + ": expected an object with an 'id' (string or integer)");
    const std::optional<size_t> buffer = rows.buffer_of(e.id_text, k);
    if (!buffer) throw InputError(where() + ": field 'id': buffer '" + e.id_text + "' is not in the problem");
    if (entry_of[*buffer])
      throw InputError(where() + ": field 'id': duplicate id '" + e.id_text + "' (first in buffers[" +
                       std::to_string(entry_of[*buffer] - 1) + "])");
    if (e.offset == PlanEntry::kNone) throw InputError(where() + ": missing field 'offset'");
    if (e.offset == PlanEntry::kUnsignedBig)
      throw InputError(where() + ": field 'offset' is out of the 64-bit range");
    if (e.offset != PlanEntry::kInt) throw InputError(where() + ": field 'offset' must be an integer");
    offsets[*buffer] = e.offset_value;
    entry_of[*buffer] = k + 1;
  }
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    if (!entry_of[i])
      throw InputError(name + ": buffers: buffer '" + problem.buffers[i].id +
                       "' of the problem has no entry");
  return offsets;
}

std::vector<int64_t> read_json_solution_file(const std::string& path, const Problem& problem) {
  return parse_json_solution(slurp(path), path, problem);
}

}  // namespace memplan
