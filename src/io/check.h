// Internal: semantic checks of one buffer, shared by every reader.
#pragma once

#include <optional>
#include <string>

#include "memplan/problem.h"

namespace memplan {

struct FieldIssue {
  std::string field;    // the CSV column / JSON key at fault
  std::string message;  // what is wrong, in words
};

// The first rule `b` breaks: end > start, size > 0, alignment a power of two, fixed offset
// >= 0 and aligned, gaps sorted, disjoint, inside the lifetime, windows inside the size.
std::optional<FieldIssue> buffer_issue(const Buffer& b);

}  // namespace memplan
