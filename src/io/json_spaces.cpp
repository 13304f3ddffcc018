// JSON input of memories and the per-buffer space fields (spaces_io.h), read beside the
// main JSON reader so that both stay short.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "memplan/io_json.h"
#include "memplan/spaces_io.h"

namespace memplan {

std::vector<std::string> read_json_spaces(const std::string& path, Problem& p) {
  using nlohmann::json;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  json doc;
  try {
    doc = json::parse(ss.str());
  } catch (const json::parse_error& e) {
    throw InputError(path + ": invalid JSON: " + e.what());
  }
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
  std::vector<std::string> where;
  const json& buffers = doc["buffers"];
  for (size_t i = 0; i < buffers.size() && i < p.buffers.size(); ++i) {
    where.push_back(path + ": buffers[" + std::to_string(i) + "]");
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
