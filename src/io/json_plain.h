// memplan internal: JSON problems in their plain form read in one pass, without a json value.
//
// The reader in json.cpp parses the whole document into an nlohmann value, then reads it:
// at 10^6 buffers that is ~2 GB touched and ~4 s (a map per buffer, a string compare per
// key against the field list), and `memplan solve` read a JSON problem twice (the problem,
// then the space fields). This reader takes nlohmann's SAX events straight into buffers,
// for the form almost every large document has: a top-level object whose "buffers" hold
// scalar fields only (id, lower, upper, size, alignment, offset, hint, inplace, side).
//
// It never decides anything the json-value reader would decide otherwise: on anything
// outside that form (a syntax error, a missing field or one of the wrong type, a number
// beyond int64, an unknown key, a repeated "buffers", vector clocks or streams, groups,
// gaps, conflicts) it returns nullopt and the caller reads the text the old way, which
// gives the same result or names the field at fault. What it does read is tested against
// that reader on random documents (tests/json_plain_test.cpp).
#pragma once

#include <optional>
#include <string>

#include "memplan/io_json.h"
#include "memplan/problem.h"

namespace memplan {

struct PlainJson {
  Problem problem;  // buffers and capacity, as read (not yet checked: check_problem)
  // The document has "memories", "swap" or "durations", or a buffer has "spaces", "uses",
  // "evictable" or "accesses" (read by read_json_spaces; skipped here).
  bool space_fields = false;
};

std::optional<PlainJson> read_plain_json(const std::string& text);

// The reader of any JSON problem through a json value (json.cpp), which parse_json falls
// back on; apart for the tests that hold the two side by side.
Problem parse_json_as_value(const std::string& text, const std::string& name, const JsonReadOptions& options);

}  // namespace memplan
