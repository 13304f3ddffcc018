// The exact search's failure memo (src/solvers/exact/search.h): its table starts small and
// grows, yet answers as a table of its full size from the start would.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "solvers/exact/search.h"

namespace memplan::exact {
namespace {

// The memo as it was: all its slots from the start, a key overwriting whatever holds its
// slot; reserve() moves the keys into a larger table.
class FixedMemo {
 public:
  explicit FixedMemo(size_t slots) : table_(slots) {}
  void reserve(size_t slots) {
    if (slots <= table_.size()) return;
    std::vector<FailureMemo::Key> old(slots);
    old.swap(table_);
    for (const FailureMemo::Key& k : old)
      if (k.h1 != 0 || k.h2 != 0) remember(k);
  }
  bool failed(const FailureMemo::Key& k) const {
    const FailureMemo::Key& e = table_[k.h1 & (table_.size() - 1)];
    return e.h1 == k.h1 && e.h2 == k.h2;
  }
  void remember(const FailureMemo::Key& k) { table_[k.h1 & (table_.size() - 1)] = k; }

 private:
  std::vector<FailureMemo::Key> table_;
};

TEST(ExactMemo, GrowingTableAnswersAsTheFullTable) {
  // Keys drawn from a narrow range of h1 so that they collide at the small sizes and at the
  // full one; reserve() raising the size midway. After every step, every key seen so far
  // (and keys that share an h1 with them) is failed() in both or in neither.
  std::mt19937_64 rng(3);
  int64_t held = 0, lost = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t budget = 1000 + static_cast<int64_t>(rng() % 9000);  // 1,024 to 16,384 slots
    FailureMemo memo(budget);
    size_t slots = 1024;
    while (static_cast<int64_t>(slots) < budget) slots <<= 1;
    FixedMemo fixed(slots);
    const uint64_t range = 4 * slots;
    std::vector<FailureMemo::Key> seen;
    for (int step = 0; step < 3000; ++step) {
      if (step == 1500 && trial % 2 == 0) {  // a later probe with a larger budget
        memo.reserve(4 * budget);
        size_t more = slots;
        while (static_cast<int64_t>(more) < 4 * budget) more <<= 1;
        fixed.reserve(more);
      }
      FailureMemo::Key k;
      k.h1 = 1 + rng() % range;
      k.h2 = 1 + rng() % 3;
      memo.remember(k);
      fixed.remember(k);
      seen.push_back(k);
      if (step % 100 == 99)
        for (const FailureMemo::Key& q : seen) {
          for (uint64_t h2 = 1; h2 <= 3; ++h2) {
            const FailureMemo::Key r{q.h1, h2};
            ASSERT_EQ(memo.failed(r), fixed.failed(r)) << "trial " << trial << " step " << step;
          }
          (fixed.failed(q) ? held : lost) += 1;
        }
    }
  }
  // Both ways were seen: keys kept, and keys overwritten at the full size.
  EXPECT_GT(held, 100000);
  EXPECT_GT(lost, 100000);
}

}  // namespace
}  // namespace memplan::exact
