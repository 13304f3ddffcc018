// Shared by the libFuzzer targets: bytes as text, and a crash when a property fails (an
// uncaught exception or __builtin_trap is what libFuzzer reports, with the input saved).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace memplan::fuzz {

inline std::string text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Inputs above this many bytes are skipped: large inputs only slow the search down.
constexpr size_t kMaxBytes = 64 * 1024;

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz property failed: %s\n", what);
  __builtin_trap();
}

}  // namespace memplan::fuzz
