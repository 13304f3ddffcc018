// Internal to the CLI: option validators whose messages name the expected value.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

#include "memplan/io.h"

namespace memplan {

// Option checks with messages that name the expected value (CLI11 prefixes the option name),
// run on the text before conversion, so "abc", "-1" or a number beyond 64 bits never
// reaches a silent clamp. `what` completes "expected ...".
template <class T>
CLI::Validator integer_in(T lo, T hi, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        T v{};
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (ec == std::errc::result_out_of_range)
          return "'" + text + "' is out of the 64-bit range; expected " + what;
        if (ec != std::errc() || ptr != end) return "'" + text + "' is not an integer; expected " + what;
        if (v < lo || v > hi) return "'" + text + "' is out of range; expected " + what;
        return "";
      },
      "INT");
}

// A byte count (parse_byte_size, io.h: "1048576", "4MiB", "512KB") in [lo, hi], rewritten
// to its integer for the option's int64_t: use with ->transform, not ->check.
inline CLI::Validator bytes_in(int64_t lo, int64_t hi, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::optional<int64_t> v = parse_byte_size(text);
        if (!v) return "'" + text + "' is not a byte count (an integer, or one with a unit: 4MiB = 4194304, 4MB = 4000000); expected " + what;
        if (*v < lo || *v > hi) return "'" + text + "' is out of range; expected " + what;
        text = std::to_string(*v);
        return "";
      },
      "BYTES");
}

// Seconds: a finite number in [0, kMaxSeconds]; 0 means no limit. nan, inf, negative values
// and anything longer than 11.6 days are refused rather than read as "no limit".
inline constexpr double kMaxSeconds = 1e6;
inline CLI::Validator seconds_option() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (ec != std::errc() || ptr != end || !(v >= 0) || v > kMaxSeconds)
          return "'" + text + "' is not a number of seconds in [0, 1000000] (0 = no limit)";
        return "";
      },
      "SECONDS");
}

inline CLI::Validator power_of_two_option() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (ec != std::errc() || ptr != end || v < 1 || (v & (v - 1)) != 0)
          return "'" + text + "' is not a power of two >= 1";
        return "";
      },
      "POW2");
}

}  // namespace memplan
