// Writing a schedule for a compiler to apply: operator names, as text or JSON.
#include <cstdio>
#include <ostream>

#include "memplan/schedule.h"

namespace memplan {

namespace {

std::string op_name(const Graph& g, int32_t o) {
  return g.ops[o].name.empty() ? "#" + std::to_string(o) : g.ops[o].name;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

void write_order_text(std::ostream& os, const Graph& g, const std::vector<int32_t>& order) {
  for (int32_t o : order) os << op_name(g, o) << '\n';
}

void write_order_json(std::ostream& os, const Graph& g, const ScheduleResult& r) {
  os << "{\n  \"method\": " << json_string(r.method) << ",\n  \"load\": " << r.load
     << ",\n  \"graph_order_load\": " << r.graph_order_load
     << ",\n  \"proven_optimal\": " << (r.proven_optimal ? "true" : "false")
     << ",\n  \"lower_bound\": " << r.lower_bound
     << ",\n  \"fell_back\": " << (r.fell_back ? "true" : "false")
     << ",\n  \"fell_back_reason\": " << json_string(r.fell_back_reason) << ",\n  \"order\": [";
  for (size_t k = 0; k < r.order.size(); ++k)
    os << (k ? ", " : "") << json_string(op_name(g, r.order[k]));
  os << "]\n}\n";
}

}  // namespace memplan
