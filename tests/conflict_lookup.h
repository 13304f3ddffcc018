// Test helper: whether two buffers, named by id, conflict in a problem (timeline.h's relation).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "memplan/timeline.h"

namespace memplan {

inline bool conflict_by_id(const Problem& p, const std::string& x, const std::string& y) {
  ConflictGraph g;
  EXPECT_TRUE(conflict_graph(p, g, 1 << 20));
  int32_t a = -1, b = -1;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    if (p.buffers[i].id == x) a = static_cast<int32_t>(i);
    if (p.buffers[i].id == y) b = static_cast<int32_t>(i);
  }
  EXPECT_TRUE(a >= 0 && b >= 0) << x << " " << y;
  if (a < 0 || b < 0) return false;
  for (int64_t k = g.begin[a]; k < g.begin[a + 1]; ++k)
    if (g.adj[k] == b) return true;
  return false;
}

}  // namespace memplan
