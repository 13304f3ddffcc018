// The one-pass reader of plain JSON problems (src/io/json_plain.h) against the reader
// through a json value, on random documents.
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "io/json_plain.h"
#include "memplan/io.h"
#include "memplan/io_json.h"

namespace memplan {
namespace {

// Whether a document read as a json value (the last of a repeated key kept) has a field
// read_json_spaces reads: "memories", "swap" or "durations", or a buffer's "spaces",
// "uses", "evictable" or "accesses" (io_json.h, JsonReadOptions::space_fields).
bool has_space_fields(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object()) return false;
  bool any = doc.contains("memories") || doc.contains("swap") || doc.contains("durations");
  if (doc.contains("buffers") && doc["buffers"].is_array())
    for (const nlohmann::json& b : doc["buffers"])
      for (const char* key : {"spaces", "uses", "evictable", "accesses"}) any = any || (b.is_object() && b.contains(key));
  return any;
}

// What a reader made of a document: the problem or the message.
struct Outcome {
  bool ok = false;
  Problem problem;
  std::string error;
  std::vector<std::string> warnings;
};

template <class Read>
Outcome outcome(Read&& read) {
  Outcome o;
  try {
    o.problem = read();
    o.ok = true;
  } catch (const InputError& e) {
    o.error = e.what();
  }
  return o;
}

void expect_same(const Outcome& got, const Outcome& want, const std::string& text) {
  ASSERT_EQ(got.ok, want.ok) << text << "\ngot: " << got.error << "\nwant: " << want.error;
  EXPECT_EQ(got.error, want.error) << text;
  EXPECT_EQ(got.warnings, want.warnings) << text;
  if (!got.ok) return;
  EXPECT_TRUE(got.problem.buffers == want.problem.buffers) << text;
  EXPECT_EQ(got.problem.capacity, want.problem.capacity) << text;
  EXPECT_TRUE(got.problem.conflicts == want.problem.conflicts) << text;
}

// Random documents around the plain form: its fields with valid and invalid values, repeated
// keys (the last counts), missing fields, nulls, numbers beyond 64 bits, skipped members
// holding nested values, the space fields, and what only the json-value reader takes
// (vector clocks, streams, groups, gaps, conflicts), unknown keys, syntax errors. Where the
// one-pass reader answers, its problem (after check_problem) or message is the other
// reader's; where it declines, parse_json gives the other reader's answer; and it says
// whether space fields are present exactly when the generator put some in.
TEST(JsonPlain, AgreesWithTheJsonValueReaderOnRandomDocuments) {
  std::mt19937_64 rng(5);
  auto pick = [&](std::initializer_list<const char*> v) { return std::string(v.begin()[rng() % v.size()]); };
  auto nested = [&] {
    return pick({"null", "true", "1.5", "-3", "\"s\"", "[]", "{}", "[1, {\"x\": [2, {\"id\": 1}]}]",
                 "{\"buffers\": [], \"x\": {\"y\": null}}"});
  };
  auto integer = [&] {
    return pick({"0", "1", "2", "3", "4", "8", "16", "64", "100", "-1", "-0", "9223372036854775807",
                 "9223372036854775808", "18446744073709551615", "1.0", "\"4\"", "null", "[4]", "{}"});
  };
  auto small = [&] { return std::to_string(rng() % 12); };
  int fast_ok = 0, fast_error = 0, declined = 0, with_space = 0;
  for (int round = 0; round < 4000; ++round) {
    bool space = false;
    std::string text;
    auto member = [](std::string& obj, const std::string& key, const std::string& value) {
      obj += (obj.size() > 1 ? ", \"" : "\"") + key + "\": " + value;
    };
    auto buffer = [&](int k) {
      std::string b = "{";
      std::vector<std::pair<std::string, std::string>> ms;
      const bool clean = rng() % 3 != 0;  // mostly valid: the one-pass reader's own ground
      const int64_t lower = static_cast<int64_t>(rng() % 8);
      if (rng() % 40) ms.emplace_back("id", clean ? (rng() % 4 ? "\"b" + std::to_string(k % 7) + "\"" : std::to_string(k))
                                                  : pick({"\"x\"", "7", "-7", "18446744073709551615", "1.5", "null", "[\"a\"]"}));
      if (rng() % 40) ms.emplace_back("lower", clean ? std::to_string(lower) : integer());
      if (rng() % 40) ms.emplace_back("upper", clean ? std::to_string(lower + 1 + static_cast<int64_t>(rng() % 6)) : integer());
      if (rng() % 40) ms.emplace_back("size", clean ? std::to_string(8 * (1 + rng() % 8)) : integer());
      if (rng() % 3 == 0) ms.emplace_back("alignment", clean ? pick({"1", "2", "8", "3"}) : integer());
      if (rng() % 3 == 0) ms.emplace_back("offset", clean ? pick({"0", "8", "64", "null", "-8", "5"}) : integer());
      if (rng() % 6 == 0) ms.emplace_back("hint", clean ? small() : integer());
      if (rng() % 8 == 0) ms.emplace_back("inplace", clean ? pick({"\"b0\"", "\"b1\"", "\"zz\""}) : pick({"1", "null", "\"b2\""}));
      if (rng() % 8 == 0) ms.emplace_back("side", pick({"\"low\"", "\"high\"", "\"mid\"", "1", "null"}));
      for (const char* s : {"spaces", "uses", "evictable", "accesses"})
        if (rng() % 30 == 0) {
          ms.emplace_back(s, nested());
          space = true;
        }
      if (rng() % 40 == 0) ms.emplace_back(pick({"group", "gaps", "stream", "deps", "reads", "alignement"}), nested());
      if (rng() % 50 == 0) {  // vector clocks
        ms.emplace_back("lower", "[" + small() + ", " + small() + "]");
        ms.emplace_back("upper", "[" + small() + ", " + small() + "]");
      }
      std::shuffle(ms.begin(), ms.end(), rng);
      if (!ms.empty() && rng() % 6 == 0) {  // a repeated key, either value last
        const auto& [key, value] = ms[rng() % ms.size()];
        ms.emplace_back(key, rng() % 2 ? value : key == "offset" ? pick({"null", "16"}) : integer());
      }
      for (const auto& [key, value] : ms) member(b, key, value);
      return b + "}";
    };
    if (rng() % 40 == 0) {
      text = nested();
    } else {
      std::vector<std::pair<std::string, std::string>> top;
      const int arrays = rng() % 30 == 0 ? 2 : 1;
      for (int a = 0; a < arrays; ++a) {
        if (rng() % 40 == 0) {
          top.emplace_back("buffers", nested());
          continue;
        }
        std::string list = "[";
        const int n = static_cast<int>(rng() % 6);
        for (int k = 0; k < n; ++k) list += (k ? ", " : "") + (rng() % 50 ? buffer(k) : nested());
        top.emplace_back("buffers", list + "]");
      }
      if (rng() % 3 == 0) top.emplace_back("capacity", rng() % 2 ? std::to_string(64 + 64 * (rng() % 8)) : integer());
      if (rng() % 4 == 0) top.emplace_back(pick({"peak", "algo", "status", "bytes_moved"}), nested());
      if (rng() % 10 == 0) {
        top.emplace_back(pick({"memories", "swap", "durations"}), nested());
        space = true;
      }
      if (rng() % 30 == 0) top.emplace_back(pick({"conflicts", "capcity"}), pick({"[]", "[[\"b0\", \"b1\"]]", "1"}));
      std::shuffle(top.begin(), top.end(), rng);
      if (!top.empty() && rng() % 12 == 0) {  // a repeated key: a capacity perhaps cleared
        auto again = top[rng() % top.size()];
        if (again.first == "capacity") again.second = rng() % 2 ? "null" : "128";
        top.push_back(again);
      }
      text = "{";
      for (const auto& [key, value] : top) member(text, key, value);
      text += "}";
    }
    if (rng() % 25 == 0) text.resize(rng() % text.size());  // a syntax error, most of the time

    const bool lenient = rng() % 4 == 0;
    std::vector<std::string> want_warnings, got_warnings;
    JsonReadOptions wo;
    wo.lenient = lenient;
    wo.warnings = &want_warnings;
    Outcome want = outcome([&] { return parse_json_as_value(text, "doc.json", wo); });
    want.warnings = want_warnings;
    // The public reader, whichever path it takes.
    bool space_fields = false;
    JsonReadOptions go;
    go.lenient = lenient;
    go.warnings = &got_warnings;
    go.space_fields = &space_fields;
    Outcome got = outcome([&] { return parse_json(text, "doc.json", go); });
    got.warnings = got_warnings;
    expect_same(got, want, text);
    const std::optional<PlainJson> plain = read_plain_json(text);
    if (!plain) {
      ++declined;
      // As precise on this path (read_json_spaces runs only when they are there).
      if (got.ok) EXPECT_EQ(space_fields, has_space_fields(text)) << text;
      continue;
    }
    // The one-pass reader's own answer: its buffers, then check_problem.
    const Outcome fast = outcome([&] {
      Problem p = plain->problem;
      check_problem(p, "doc.json");
      return p;
    });
    expect_same(fast, want, text);
    EXPECT_EQ(plain->space_fields, space) << text;
    if (fast.ok) EXPECT_EQ(space_fields, space) << text;
    (fast.ok ? fast_ok : fast_error) += 1;
    with_space += space;
  }
  std::cout << "fast ok " << fast_ok << ", fast error " << fast_error << ", declined " << declined
            << ", with space fields " << with_space << "\n";
  // Each way through was taken often enough to matter.
  EXPECT_GT(fast_ok, 600);
  EXPECT_GT(fast_error, 150);  // check_problem's messages (an end before its start, ...)
  EXPECT_GT(declined, 1500);
  EXPECT_GT(with_space, 100);
}

// The plain form at scale reads the same problem as the json-value reader (one document of
// 20,000 buffers with every field it reads).
TEST(JsonPlain, ReadsEveryPlainFieldOfALargeDocument) {
  std::string text = "{\"capacity\": 9000000, \"algo\": \"x\", \"buffers\": [";
  for (int i = 0; i < 20000; ++i) {
    const int lo = i % 97;
    text += (i ? ", " : "");
    text += "{\"id\": " + (i % 3 ? "\"t" + std::to_string(i) + "\"" : std::to_string(i)) +
            ", \"lower\": " + std::to_string(lo) + ", \"upper\": " + std::to_string(lo + 1 + i % 13) +
            ", \"size\": " + std::to_string(64 * (1 + i % 9)) + ", \"alignment\": " + std::to_string(1 << (i % 4)) +
            (i % 5 == 0 ? ", \"offset\": " + std::to_string(4096 * i) : std::string()) +
            (i % 7 == 0 ? ", \"hint\": " + std::to_string(i) : std::string()) +
            (i % 11 == 0 ? ", \"side\": \"high\"" : std::string()) + "}";
  }
  text += "]}";
  const std::optional<PlainJson> plain = read_plain_json(text);
  ASSERT_TRUE(plain.has_value());
  const Problem want = parse_json_as_value(text, "big.json", JsonReadOptions{});
  ASSERT_EQ(plain->problem.buffers.size(), 20000u);
  EXPECT_TRUE(plain->problem.buffers == want.buffers);
  EXPECT_EQ(plain->problem.capacity, want.capacity);
  EXPECT_EQ(plain->problem.buffers[3].id, "3");
  EXPECT_EQ(plain->problem.buffers[11].from_top, true);
  EXPECT_FALSE(plain->space_fields);
}

}  // namespace
}  // namespace memplan
