// Test helper shared by the exact search's tests.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "memplan/problem.h"
#include "solvers/exact/search.h"

namespace memplan::testing {

// The search's prepared instance of `p` (no deadline), with overlap lists, or `implicit`
// (without them, as on inputs with too many pairs).
inline exact::Instance exact_instance(const Problem& p, bool implicit = false) {
  std::optional<exact::Instance> in = exact::prepare(p, implicit ? -1 : 1 << 30, Deadline());
  EXPECT_TRUE(in.has_value());
  return *in;
}

}  // namespace memplan::testing
