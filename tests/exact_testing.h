// Test helper shared by the exact search's tests.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "memplan/problem.h"
#include "solvers/exact/search.h"

namespace memplan::testing {

// The search's prepared instance of `p` (overlap lists never declined, no deadline).
inline exact::Instance exact_instance(const Problem& p) {
  std::optional<exact::Instance> in = exact::prepare(p, 1 << 30, Deadline());
  EXPECT_TRUE(in.has_value());
  return *in;
}

}  // namespace memplan::testing
