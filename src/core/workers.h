// Internal: one worker function run on several threads, this one included. A thread the
// system refuses to start (std::system_error) is not an error: the work runs on the threads
// there are, so a worker should take its tasks from a shared counter (not one task per
// thread). Used by `auto`, the greedy orders and `lns`'s batches.
#pragma once

#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace memplan {

// Starts up to `count` threads running `f` (fewer when the system refuses one) and returns
// them, to be joined by the caller.
template <class F>
std::vector<std::thread> start_threads(int count, const F& f) {
  std::vector<std::thread> pool;
  for (int t = 0; t < count; ++t) {
    try {
      pool.emplace_back(f);
    } catch (const std::system_error&) {
      break;
    }
  }
  return pool;
}

// Runs `worker` on up to `threads` threads (at least this one) and waits for all of them.
// An exception from the worker on this thread is rethrown once the others have joined.
template <class Worker>
void run_workers(int threads, const Worker& worker) {
  std::vector<std::thread> pool = start_threads(threads - 1, worker);
  std::exception_ptr error;
  try {
    worker();
  } catch (...) {
    error = std::current_exception();
  }
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace memplan
