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

// Bytes of stack one search level takes. The searches measured ~0.6 KB a level in an
// optimized build, and kReleaseLevelBytes leaves room to spare there. Instrumented builds
// (ASan's redzones, no optimization) take several times more, so the figure is scaled by
// how much larger a calibration frame is in this build than in an optimized plain one.
constexpr int64_t kReleaseLevelBytes = 2048;
constexpr int64_t kSafeStackBytes = int64_t{4} << 20;  // safe on any usual thread stack
constexpr int64_t kMaxStack = int64_t{1} << 30;  // virtual; only the pages used are touched
// A calibration level's bytes in optimized builds without sanitizers: gcc 12 and clang 14,
// -O2 and -O3, x86-64, all 112. (-O0: 144-160; ASan+UBSan: 304-320; TSan: 160.)
constexpr int64_t kReleaseCalibrationBytes = 112;

// One level of a recursion shaped like a search level: a few locals whose addresses escape
// (so instrumented builds pad each, as they pad the searches' locals). Returns the stack
// distance from `top` at the deepest level.
[[gnu::noinline]] int64_t calibration_level(int depth, const char* top) {
  int64_t a[4] = {depth, 1, 2, 3};
  int32_t b = depth;
  int64_t c[2] = {depth, depth};
  asm volatile("" : : "r"(a), "r"(&b), "r"(c) : "memory");
  if (depth == 0) {
    char here = 0;
    asm volatile("" : : "r"(&here) : "memory");
    return top - &here;
  }
  return calibration_level(depth - 1, top) + (a[0] + b + c[1] - 2 * depth);  // no tail call
}

int64_t measure_level_bytes() {
  char top = 0;
  asm volatile("" : : "r"(&top) : "memory");
  constexpr int kLevels = 64;
  const int64_t per_level = (calibration_level(kLevels, &top) - calibration_level(0, &top)) / kLevels;
  // Locals moved off the stack (ASan's fake stack) give nonsense: assume a large frame.
  if (per_level <= 0 || per_level > 16 * kReleaseCalibrationBytes) return 16 * kReleaseLevelBytes;
  if (per_level <= kReleaseCalibrationBytes) return kReleaseLevelBytes;
  // Round the scale up: 1.2x larger frames count as 2x.
  return kReleaseLevelBytes * ((per_level + kReleaseCalibrationBytes - 1) / kReleaseCalibrationBytes);
}

}  // namespace

int64_t level_bytes() {
  static const int64_t bytes = measure_level_bytes();
  return bytes;
}

namespace {

int64_t safe_depth() { return kSafeStackBytes / level_bytes(); }
thread_local int64_t t_depth_limit = -1;  // -1: not set on this thread, safe_depth()

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
    out.emplace_back([&fn] { (t_depth_limit = safe_depth()), fn(); });
  } catch (const std::system_error&) {
  }
}

}  // namespace

int64_t depth_limit() { return t_depth_limit >= 0 ? t_depth_limit : safe_depth(); }

void run_deep(int count, int64_t depth, const std::function<void()>& fn) {
  std::vector<std::thread> fallback;
#ifdef MEMPLAN_PTHREADS
  const int64_t level = level_bytes();
  const int64_t bytes = std::min(kMaxStack, (std::max<int64_t>(depth, safe_depth()) + 512) * level);
  const Job job{&fn, bytes / level - 512};
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
