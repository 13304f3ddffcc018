// memplan: JSON form of problems and plans (separate library memplan_json, which uses
// nlohmann-json; the core library stays standard-library only).
//
// Problem: {"capacity": 1048576 (optional), "buffers": [{"id": "a", "lower": 0,
//   "upper": 10, "size": 64, "alignment": 1, "offset": 0 (pre-placed, optional),
//   "gaps": [{"lower": 2, "upper": 4, "window": [0, 32]}]}]}
// Plan: the same document with "offset" set on every buffer plus "peak" (and any extra
// summary fields passed in).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <functional>

#include "memplan/io.h"
#include "memplan/problem.h"

namespace memplan {

struct JsonReadOptions {
  // Unknown fields in the document, a buffer or a gap (a typo such as "alignement") are an
  // error naming the field; lenient readers ignore them and note each in *warnings.
  bool lenient = false;
  std::vector<std::string>* warnings = nullptr;
  // Polled while a partial order's conflicts are derived (see read_csv).
  std::function<bool()> stop;
  // If set: false when the document has no "memories", "swap" or "durations" and no buffer
  // has "spaces", "uses", "evictable" or "accesses" (read_json_spaces would read nothing),
  // true when it may have them.
  bool* space_fields = nullptr;
};

// Where buffer i of the JSON document `name` is, for messages: "f.json: buffers[3]".
std::string json_buffer_location(const std::string& name, size_t i);

// Throws InputError naming the file and the field (syntax errors and numbers beyond the
// 64-bit range included).
Problem read_json_file(const std::string& path);
Problem read_json_file(const std::string& path, const JsonReadOptions& options);
Problem parse_json(const std::string& text, const std::string& name);
Problem parse_json(const std::string& text, const std::string& name, const JsonReadOptions& options);
// A plan document (as written by problem_to_json with offsets, or any object with a
// "buffers" array of {"id", "offset"}) mapped onto `problem` by id. Offsets are only
// checked to be integers (validate checks the rest). Throws InputError when an id is
// unknown, duplicated or missing.
std::vector<int64_t> parse_json_solution(const std::string& text, const std::string& name,
                                         const Problem& problem);
std::vector<int64_t> read_json_solution_file(const std::string& path, const Problem& problem);
std::string problem_to_json(const Problem& p, const std::vector<int64_t>* offsets,
                            const std::map<std::string, std::string>& extra = {});

}  // namespace memplan
