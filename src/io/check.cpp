#include "io/check.h"

#include "core/polled.h"

#include <stdexcept>

#include "memplan/constraints.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "core/arith.h"
#include "memplan/io.h"

namespace memplan {

std::optional<FieldIssue> buffer_issue(const Buffer& b) {
  auto s = [](int64_t v) { return std::to_string(v); };
  if (b.id.empty()) return FieldIssue{"id", "empty id"};
  if (b.id.find_first_of("\n\r") != std::string::npos)
    return FieldIssue{"id", "id '" + b.id + "' contains a line break"};
  // Other control characters (a NUL from JSON's \u0000 was written raw into the plan CSV).
  for (const char c : b.id)
    if (control_char(c)) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      return FieldIssue{"id", "id contains the control character " + std::string(hex)};
    }
  if (b.start < 0) return FieldIssue{"lower", "negative start " + s(b.start)};
  if (b.end <= b.start)
    return FieldIssue{"upper", "lifetime [" + s(b.start) + ", " + s(b.end) +
                                   ") is empty: upper must be greater than lower"};
  if (b.size <= 0) return FieldIssue{"size", "size must be positive, got " + s(b.size)};
  if (!is_power_of_two(b.alignment))
    return FieldIssue{"alignment", "alignment must be a power of two >= 1, got " + s(b.alignment)};
  if (b.hint < -1) return FieldIssue{"hint", "hint must be >= -1 (-1 = none), got " + s(b.hint)};
  if (b.offset) {
    if (*b.offset < 0) return FieldIssue{"offset", "negative offset " + s(*b.offset)};
    if (*b.offset % b.alignment != 0)
      return FieldIssue{"offset", "fixed offset " + s(*b.offset) + " is not a multiple of alignment " +
                                      s(b.alignment)};
    int64_t top;
    if (__builtin_add_overflow(*b.offset, b.size, &top))
      return FieldIssue{"offset", "offset + size overflows 64 bits"};
  }
  int64_t prev_end = b.start;
  for (const Gap& g : b.gaps) {
    const std::string where = "gap " + s(g.start) + "-" + s(g.end);
    if (g.end <= g.start) return FieldIssue{"gaps", where + " is empty or reversed"};
    if (g.start < b.start || g.end > b.end)
      return FieldIssue{"gaps", where + " lies outside the lifetime [" + s(b.start) + ", " +
                                    s(b.end) + ")"};
    if (g.start < prev_end)
      return FieldIssue{"gaps", where + " overlaps or precedes the previous gap"};
    if (g.has_window && (g.window_lo < 0 || g.window_lo > g.window_hi || g.window_hi > b.size))
      return FieldIssue{"gaps", where + " has window " + s(g.window_lo) + ":" + s(g.window_hi) +
                                    " outside [0, size=" + s(b.size) + "]"};
    prev_end = g.end;
  }
  return std::nullopt;
}

std::optional<FieldIssue> TotalGuard::add(const Buffer& b) {
  total_ = sat_add(total_, sat_add(b.size, b.alignment));
  if (b.offset) total_ = sat_add(total_, *b.offset);
  if (total_ <= kLimit) return std::nullopt;
  // Names the largest of the buffer's own contributions.
  const int64_t off = b.offset.value_or(0);
  const char* field = off >= b.size && off >= b.alignment ? "offset"
                      : b.alignment > b.size           ? "alignment"
                                                       : "size";
  return FieldIssue{field,
                    "the total of sizes, alignments and fixed offsets up to this buffer exceeds "
                    "2^61, beyond what memplan plans safely in 64 bits"};
}

std::optional<DuplicateId> first_duplicate_id(const std::vector<Buffer>& buffers, const Deadline* deadline,
                                              bool* stopped) {
  Poll poll(deadline);
  auto stop = [&] {
    if (stopped) *stopped = true;
    return std::nullopt;
  };
  std::vector<std::pair<uint64_t, size_t>> hashes(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (poll()) return stop();
    hashes[i] = {std::hash<std::string_view>{}(buffers[i].id), i};
  }
  if (!sort_until(hashes, std::less<>(), deadline)) return stop();
  std::optional<DuplicateId> found;
  for (size_t k = 0; k + 1 < hashes.size(); ++k) {
    if (poll()) return stop();
    for (size_t j = k + 1; j < hashes.size() && hashes[j].first == hashes[k].first; ++j)
      if (buffers[hashes[j].second].id == buffers[hashes[k].second].id && (!found || hashes[j].second < found->dup))
        found = DuplicateId{hashes[j].second, hashes[k].second};  // indices ascend within equal hashes
  }
  return found;
}

void check_problem(const Problem& p, const std::string& name, const Deadline* deadline) {
  Poll poll(deadline);
  // solve() runs this on every call, so it stays cheap on 10^6 buffers: messages are built
  // only on error, and duplicate ids are found without a hash table (first_duplicate_id).
  auto who = [&](size_t i) {
    std::string id;  // control characters and tabs as \xNN (a NUL cut the message short)
    for (const char c : p.buffers[i].id) {
      if (!control_char(c) && c != '\t') {
        id += c;
        continue;
      }
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      id += hex;
    }
    return name + ": buffer #" + std::to_string(i) + " '" + id + "': ";
  };
  TotalGuard total;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    if (poll()) return;
    const Buffer& b = p.buffers[i];
    if (auto issue = buffer_issue(b)) throw InputError(who(i) + issue->field + ": " + issue->message);
    if (auto issue = total.add(b)) throw InputError(who(i) + issue->field + ": " + issue->message);
  }
  bool stopped = false;
  if (const auto d = first_duplicate_id(p.buffers, deadline, &stopped))
    throw InputError(who(d->dup) + "id: duplicate id (also buffer #" + std::to_string(d->first) + ")");
  if (stopped) return;
  if (has_constraints(p)) {
    try {
      lower_constraints(p, deadline);  // stopped: the caller sees the deadline passed
    } catch (const ConstraintError& e) {
      throw InputError(who(e.buffer) + e.field + ": " + e.what());
    }
  }
  if (p.clock_dim != 0 || !p.clock_lower.empty() || !p.clock_upper.empty()) {
    const size_t S = static_cast<size_t>(std::max(p.clock_dim, 0));
    if (p.clock_dim < 1 || p.clock_lower.size() != p.buffers.size() * S || p.clock_upper.size() != p.buffers.size() * S)
      throw InputError(name + ": clocks: clock_dim must be >= 1 with clock_dim components per buffer");
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      bool less = false;
      for (size_t t = 0; t < S; ++t) {
        if (p.clock_lower[i * S + t] > p.clock_upper[i * S + t])
          throw InputError(who(i) + "upper: below lower in component " + std::to_string(t));
        less = less || p.clock_lower[i * S + t] < p.clock_upper[i * S + t];
      }
      if (!less) throw InputError(who(i) + "upper: equals lower (an empty lifetime)");
      if (!p.buffers[i].inplace_of.empty()) throw InputError(who(i) + "inplace: not supported with vector clocks");
    }
  }
  if (p.capacity && *p.capacity < 0)
    throw InputError(name + ": capacity: must be >= 0, got " + std::to_string(*p.capacity));
}

}  // namespace memplan
