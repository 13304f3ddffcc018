// parse_byte_size (io.h): "4MiB", "512 kb", "1048576".
#include <cctype>
#include <charconv>

#include "memplan/io.h"

namespace memplan {

std::optional<int64_t> parse_byte_size(std::string_view text) {
  auto space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  int64_t count = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;
  std::string_view unit = text.substr(static_cast<size_t>(ptr - text.data()));
  while (!unit.empty() && space(unit.front())) unit.remove_prefix(1);
  std::string u;
  for (char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (u.empty() || u == "b") return count;
  // The prefix, then "" or "b" (SI: powers of 1000) or "i" / "ib" (IEC: powers of 1024).
  static constexpr std::string_view kPrefixes = "kmgtpe";
  const size_t power = kPrefixes.find(u[0]);
  if (power == std::string_view::npos) return std::nullopt;
  const std::string_view rest = std::string_view(u).substr(1);
  int64_t base = 0;
  if (rest.empty() || rest == "b") base = 1000;
  else if (rest == "i" || rest == "ib") base = 1024;
  else return std::nullopt;
  int64_t bytes = count;
  for (size_t k = 0; k <= power; ++k)
    if (__builtin_mul_overflow(bytes, base, &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace memplan
