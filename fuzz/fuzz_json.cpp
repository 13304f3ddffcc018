// JSON reader, strict and lenient: any bytes read or raise InputError (never another
// exception); what is read writes back and reads again to the same problem. The plan
// reader too: the same bytes as a plan, and a plan written by memplan reads back. Where the
// one-pass reader of plain problems answers (io/json_plain.h), the reader through a json
// value gives the same problem or message.
#include <cstdint>
#include <cstdio>

#include "fuzz_common.h"
#include "io/json_plain.h"
#include "memplan/bounds.h"
#include "memplan/io_json.h"
#include "memplan/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  if (size > fuzz::kMaxBytes) return 0;
  if (const std::optional<PlainJson> plain = read_plain_json(fuzz::text(data, size))) {
    Problem fast = plain->problem, slow;
    std::string fast_error, slow_error;
    try {
      check_problem(fast, "fuzz.json");
    } catch (const InputError& e) {
      fast_error = e.what();
    }
    try {
      slow = parse_json_as_value(fuzz::text(data, size), "fuzz.json", JsonReadOptions{});
    } catch (const InputError& e) {
      slow_error = e.what();
    }
    if (fast_error != slow_error || (fast_error.empty() && (fast.buffers != slow.buffers || fast.capacity != slow.capacity)))
      fuzz::fail("the one-pass JSON reader and the json-value reader disagree");
  }
  std::vector<std::string> warnings;
  Problem p;
  try {
    p = parse_json(fuzz::text(data, size), "fuzz.json", JsonReadOptions{size % 2 == 1, &warnings});
  } catch (const InputError&) {
    return 0;
  }
  std::string doc;
  try {
    doc = problem_to_json(p, nullptr);
  } catch (const std::exception&) {
    return 0;  // an id that is not valid UTF-8 cannot be written as JSON; reading it was fine
  }
  try {
    if (parse_json(doc, "again.json").buffers != p.buffers) fuzz::fail("JSON write/read changed the buffers");
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    fuzz::fail("JSON written by memplan does not read back");
  }
  // The plan reader: the same bytes read as a plan of that problem (offsets or InputError,
  // never another exception), and a plan memplan writes reads back to its offsets.
  try {
    parse_json_solution(fuzz::text(data, size), "fuzz.json", p);
  } catch (const InputError&) {
  }
  std::vector<int64_t> offsets(p.buffers.size(), 0);
  for (size_t i = 0; i < offsets.size(); ++i)
    if (p.buffers[i].size <= INT64_MAX - static_cast<int64_t>(offsets.size())) offsets[i] = static_cast<int64_t>(i);
  try {
    if (parse_json_solution(problem_to_json(p, &offsets), "plan.json", p) != offsets)
      fuzz::fail("a JSON plan written by memplan reads back to other offsets");
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    fuzz::fail("a JSON plan written by memplan does not read back");
  }
  compute_load(p);
  validate(p, std::vector<int64_t>(p.buffers.size(), 0));
  return 0;
}
