// Internal: semantic checks of one buffer, shared by every reader.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

struct FieldIssue {
  std::string field;    // the CSV column / JSON key at fault
  std::string message;  // what is wrong, in words
};

// A character an id may not hold: a C0 control character other than a tab, or DEL.
inline bool control_char(char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f; }

// The first rule `b` breaks: id non-empty and free of line breaks and other control
// characters (control_char; so it can be written back as one CSV line; commas and quotes
// are quoted, csv_fields.h), start >= 0, end >
// start, size > 0, alignment a power of two, hint >= -1, fixed offset >= 0 and aligned, gaps
// sorted, disjoint, inside the lifetime, windows inside the size.
std::optional<FieldIssue> buffer_issue(const Buffer& b);

// Running total of sizes, alignments and fixed offsets. Every plan a solver can build stays
// below that total, so keeping it far from INT64_MAX (below 2^61) makes all offset
// arithmetic overflow-free. Readers add buffers one at a time to report the offending line.
class TotalGuard {
 public:
  static constexpr int64_t kLimit = INT64_MAX / 4;
  // The issue when adding `b` pushes the total past kLimit.
  std::optional<FieldIssue> add(const Buffer& b);

 private:
  int64_t total_ = 0;
};

// A repeated id: `dup` is the earliest buffer whose id an earlier buffer has, `first` the
// earliest buffer with that id.
struct DuplicateId {
  size_t dup = 0, first = 0;
};

// The repeated id with the earliest `dup`, or nullopt when every id differs or `deadline`
// (may be null) passed first (then `*stopped` is set, when given). Found by sorting 64-bit
// hashes of the ids and comparing the ids of equal hashes only: a hash table of the ids
// took seconds on 10^6 buffers, a cache miss per insertion.
std::optional<DuplicateId> first_duplicate_id(const std::vector<Buffer>& buffers, const Deadline* deadline = nullptr,
                                              bool* stopped = nullptr);

// Opens `path` for binary reading; throws InputError ("path: cannot open file: reason").
std::ifstream open_input(const std::string& path);

}  // namespace memplan
