// Internal: threads with stacks deep enough for the exact searches. Both searches recurse
// once per placement (about 0.6 KB a level), so a plan of n buffers needs about 0.6 n KB of
// stack: 35 MB on the 62k-buffer Y_1, past the usual 8 MB. std::thread cannot size its
// stack, so POSIX threads do it here; each search also stops (as "budget spent", never as
// "infeasible") before it passes the depth its thread's stack can hold.
#pragma once

#include <cstdint>
#include <functional>

namespace memplan::exact {

// The deepest recursion the calling thread's stack is known to hold: a default that is safe
// on an 8 MB stack, or what run_deep set for its threads. Read by the searches.
int64_t depth_limit();

// Bytes of stack reserved per recursion level: 2 KB in optimized builds, scaled up by a
// calibration recursion measured once at first use in builds whose frames are larger
// (sanitizers, -O0), so the depth limits stay safe there too.
int64_t level_bytes();

// Runs fn on `count` new threads whose stacks hold `depth` levels of search, and waits for
// them. Where such a stack cannot be had, the threads get the default depth limit instead.
void run_deep(int count, int64_t depth, const std::function<void()>& fn);

}  // namespace memplan::exact
