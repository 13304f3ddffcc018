#include "solvers/exact/deep_threads.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define MEMPLAN_PTHREADS 1
#endif

namespace memplan::exact {
namespace {

constexpr int64_t kLevelBytes = 2048;         // measured ~0.6 KB a level; room to spare
constexpr int64_t kSafeDepth = 2000;          // 4 MB: safe on any usual thread stack
constexpr int64_t kMaxStack = int64_t{1} << 30;  // virtual; only the pages used are touched
thread_local int64_t t_depth_limit = kSafeDepth;

struct Job {
  const std::function<void()>* fn;
  int64_t depth;
};

void* start(void* arg) {
  const Job* job = static_cast<const Job*>(arg);
  t_depth_limit = job->depth;
  (*job->fn)();
  return nullptr;
}

// A thread with the default stack; none when the system refuses one (std::system_error).
void start_plain(std::vector<std::thread>& out, const std::function<void()>& fn) {
  try {
    out.emplace_back([&fn] { (t_depth_limit = kSafeDepth), fn(); });
  } catch (const std::system_error&) {
  }
}

}  // namespace

int64_t depth_limit() { return t_depth_limit; }

void run_deep(int count, int64_t depth, const std::function<void()>& fn) {
  std::vector<std::thread> fallback;
#ifdef MEMPLAN_PTHREADS
  const int64_t bytes = std::min(kMaxStack, (std::max<int64_t>(depth, kSafeDepth) + 512) * kLevelBytes);
  const Job job{&fn, bytes / kLevelBytes - 512};
  std::vector<pthread_t> threads;
  for (int k = 0; k < count; ++k) {
    pthread_attr_t attr;
    pthread_t th;
    bool ok = false;
    if (pthread_attr_init(&attr) == 0) {
      ok = pthread_attr_setstacksize(&attr, static_cast<size_t>(bytes)) == 0 &&
           pthread_create(&th, &attr, start, const_cast<Job*>(&job)) == 0;
      pthread_attr_destroy(&attr);
    }
    if (ok) threads.push_back(th);
    else start_plain(fallback, fn);
  }
  for (pthread_t th : threads) pthread_join(th, nullptr);
#else
  for (int k = 0; k < count; ++k) start_plain(fallback, fn);
#endif
  for (auto& th : fallback) th.join();
  // Not one thread could be started: the work runs here, at this thread's depth limit.
  if (count > 0 && fallback.empty()
#ifdef MEMPLAN_PTHREADS
      && threads.empty()
#endif
  )
    fn();
}

}  // namespace memplan::exact
