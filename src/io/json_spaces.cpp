// JSON input of memories and the per-buffer space fields (spaces_io.h), read beside the
// main JSON reader so that both stay short.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <optional>

#include "io/check.h"
#include "io/plan_rows.h"

#include "memplan/io_json.h"
#include "memplan/spaces_io.h"

namespace memplan {

namespace {

// The file as a json value; a syntax error names the file.
nlohmann::json parse_file(const std::string& path) {
  std::ifstream in = open_input(path);
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": invalid JSON: " + e.what());
  }
}

}  // namespace

std::vector<std::string> read_json_spaces(const std::string& path, Problem& p, SwapOptions* swap,
                                          bool* swap_on) {
  using nlohmann::json;
  json doc = parse_file(path);
  auto need_int = [&](const json& v, const std::string& where, const std::string& field) {
    if (!v.is_number_integer()) throw InputError(where + ": field '" + field + "' must be an integer");
    return v.get<int64_t>();
  };
  if (doc.contains("memories")) {
    if (!doc["memories"].is_array()) throw InputError(path + ": field 'memories' must be an array");
    size_t k = 0;
    for (const json& jm : doc["memories"]) {
      const std::string where = path + ": memories[" + std::to_string(k++) + "]";
      if (!jm.is_object() || !jm.contains("name") || !jm["name"].is_string())
        throw InputError(where + ": field 'name' must be a string");
      Memory m;
      m.name = jm["name"].get<std::string>();
      if (jm.contains("capacity") && !jm["capacity"].is_null()) m.capacity = need_int(jm["capacity"], where, "capacity");
      if (jm.contains("alignment")) m.alignment = need_int(jm["alignment"], where, "alignment");
      p.memories.push_back(m);
    }
  }
  if (doc.contains("durations")) {
    const json& d = doc["durations"];
    if (!d.is_array()) throw InputError(path + ": field 'durations' must be an array of positive integers");
    std::vector<int64_t> ds;
    for (size_t k = 0; k < d.size(); ++k) {
      const std::string field = "durations[" + std::to_string(k) + "]";
      ds.push_back(need_int(d[k], path, field));
      if (ds.back() <= 0) throw InputError(path + ": field '" + field + "': must be > 0");
    }
    if (swap) swap->durations = ds;
  }
  if (doc.contains("swap")) {
    const json& js = doc["swap"];
    const std::string where = path + ": swap";
    if (!js.is_object()) throw InputError(path + ": field 'swap' must be an object");
    SwapOptions s = swap ? *swap : SwapOptions{};
    for (const auto& [key, v] : js.items()) {
      if (key == "to") {
        if (!v.is_string()) throw InputError(where + ": field 'to' must be a memory name");
        s.to = v.get<std::string>();
      } else if (key == "mode") {
        const std::string m = v.is_string() ? v.get<std::string>() : "";
        if (m != "pinned" && m != "split") throw InputError(where + ": field 'mode' must be \"pinned\" or \"split\"");
        s.split = m == "split";
      } else if (key == "channels") {
        const int64_t c = need_int(v, where, "channels");
        if (c <= 0 || c > 1 << 20) throw InputError(where + ": field 'channels': must be in [1, 2^20]");
        s.channels = static_cast<int>(c);
      } else if (key == "bandwidth") {
        s.bandwidth = need_int(v, where, "bandwidth");
        if (s.bandwidth < 0) throw InputError(where + ": field 'bandwidth': must be >= 0");
      } else if (key == "allow_stall") {
        if (!v.is_boolean()) throw InputError(where + ": field 'allow_stall' must be true or false");
        s.allow_stall = v.get<bool>();
      } else {
        throw InputError(where + ": unknown field '" + key + "' (to, mode, channels, bandwidth, allow_stall)");
      }
    }
    if (swap) *swap = s;
    if (swap_on) *swap_on = true;
  }
  std::vector<std::string> where;
  const json& buffers = doc["buffers"];
  for (size_t i = 0; i < buffers.size() && i < p.buffers.size(); ++i) {
    where.push_back(json_buffer_location(path, i));
    const json& jb = buffers[i];
    Buffer& b = p.buffers[i];
    if (jb.contains("spaces")) {
      if (!jb["spaces"].is_array()) throw InputError(where.back() + ": field 'spaces' must be an array of names");
      for (const json& s : jb["spaces"]) {
        if (!s.is_string()) throw InputError(where.back() + ": field 'spaces' must be an array of names");
        b.spaces.push_back(s.get<std::string>());
      }
      if (b.spaces.empty()) b.spaces.push_back("");  // allowed nowhere: check_spaces says so
    }
    if (jb.contains("uses")) {
      if (!jb["uses"].is_array()) throw InputError(where.back() + ": field 'uses' must be an array");
      for (const json& u : jb["uses"]) b.uses.push_back(need_int(u, where.back(), "uses"));
    }
    if (jb.contains("evictable")) {
      if (!jb["evictable"].is_boolean()) throw InputError(where.back() + ": field 'evictable' must be true or false");
      b.evictable = jb["evictable"].get<bool>();
    }
    if (jb.contains("accesses")) b.accesses = need_int(jb["accesses"], where.back(), "accesses");
  }
  return where;
}

}  // namespace memplan

namespace memplan {

std::string problem_to_json(const Problem& p, const std::vector<int64_t>* offsets, const SwapOptions& swap,
                            const std::map<std::string, std::string>& extra) {
  using nlohmann::json;
  json doc = json::parse(problem_to_json(p, offsets, extra));
  json s = {{"mode", swap.split ? "split" : "pinned"}, {"channels", swap.channels}, {"bandwidth", swap.bandwidth}};
  if (!swap.to.empty()) s["to"] = swap.to;
  if (swap.allow_stall) s["allow_stall"] = true;
  doc["swap"] = s;
  if (!swap.durations.empty()) doc["durations"] = swap.durations;
  return doc.dump(1) + "\n";
}

std::string plan_to_json(const Problem& p, const std::vector<int64_t>& offsets, const PlanColumns& columns,
                         const std::map<std::string, std::string>& extra) {
  using nlohmann::json;
  json doc = json::parse(problem_to_json(p, &offsets, extra));
  json& buffers = doc["buffers"];
  for (size_t i = 0; i < columns.space.size() && i < buffers.size(); ++i) buffers[i]["space"] = columns.space[i];
  if (columns.has_evictions)
    for (const Eviction& e : columns.evictions) buffers[e.buffer]["evictions"].push_back({e.lo, e.hi});
  return doc.dump(1) + "\n";
}

PlanColumns read_plan_columns_json_file(const std::string& path, const Problem& problem) {
  using nlohmann::json;
  json doc = parse_file(path);
  if (!doc.is_object() || !doc.contains("buffers") || !doc["buffers"].is_array())
    throw InputError(path + ": expected an object with a 'buffers' array");
  PlanRows rows(problem);  // as the plan's offsets are mapped (parse_json_solution)
  PlanColumns out;
  const json& buffers = doc["buffers"];
  for (size_t k = 0; k < buffers.size(); ++k) {
    const json& jb = buffers[k];
    const std::string where = json_buffer_location(path, k);
    if (!jb.is_object() || !jb.contains("id")) throw InputError(where + ": expected an object with an 'id'");
    const std::string id = jb["id"].is_string() ? jb["id"].get<std::string>() : jb["id"].dump();
    const std::optional<size_t> b = rows.buffer_of(id, k);
    if (!b) throw InputError(where + ": field 'id': buffer '" + id + "' is not in the problem");
    if (jb.contains("space")) {
      if (!jb["space"].is_string()) throw InputError(where + ": field 'space' must be a memory's name");
      out.space.resize(problem.buffers.size());
      out.space[*b] = jb["space"].get<std::string>();
    }
    if (!jb.contains("evictions")) continue;
    out.has_evictions = true;
    const json& ev = jb["evictions"];
    if (!ev.is_array()) throw InputError(where + ": field 'evictions' must be an array of [lo, hi]");
    for (size_t e = 0; e < ev.size(); ++e) {
      const std::string field = "evictions[" + std::to_string(e) + "]";
      if (!ev[e].is_array() || ev[e].size() != 2 || !ev[e][0].is_number_integer() || !ev[e][1].is_number_integer())
        throw InputError(where + ": field '" + field + "' must be [lo, hi] (integers)");
      out.evictions.push_back({*b, ev[e][0].get<int64_t>(), ev[e][1].get<int64_t>()});
    }
  }
  if (!out.space.empty())
    for (size_t i = 0; i < problem.buffers.size(); ++i)
      if (out.space[i].empty())
        throw InputError(path + ": buffers: buffer '" + problem.buffers[i].id + "' has no field 'space'");
  return out;
}

}  // namespace memplan
