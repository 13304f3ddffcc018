// Heap accounting for the end-to-end test: finalize-memref-to-llvm{use-generic-functions}
// makes every memref.alloc/dealloc call these, and mlir-cpu-runner loads this library with
// -shared-libs. At exit it prints how many buffers were allocated, their total bytes and the
// most bytes live at once (requested sizes, without malloc's own overhead).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Counter {
  int64_t allocations = 0, total = 0, live = 0, peak = 0;
  ~Counter() {
    std::printf("memplan-alloc-counter: allocations=%lld total_bytes=%lld peak_live_bytes=%lld\n",
                static_cast<long long>(allocations), static_cast<long long>(total),
                static_cast<long long>(peak));
    std::fflush(stdout);
  }
} counter;

// Each block starts with a 16-byte header holding its size (16 keeps malloc's alignment).
constexpr size_t kHeader = 16;

void* allocate(size_t size) {
  auto* p = static_cast<unsigned char*>(std::malloc(size + kHeader));
  if (!p) return nullptr;
  const int64_t s = static_cast<int64_t>(size);
  std::memcpy(p, &s, sizeof s);
  ++counter.allocations;
  counter.total += s;
  counter.live += s;
  if (counter.live > counter.peak) counter.peak = counter.live;
  return p + kHeader;
}

}  // namespace

extern "C" {

void* _mlir_memref_to_llvm_alloc(size_t size) { return allocate(size); }

// Only used with use-aligned-alloc; the test lowers with plain allocation (the lowering
// over-allocates and aligns the pointer itself), so alignments up to 16 suffice here.
void* _mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  if (alignment > kHeader) std::abort();
  return allocate(size);
}

void _mlir_memref_to_llvm_free(void* ptr) {
  if (!ptr) return;
  auto* p = static_cast<unsigned char*>(ptr) - kHeader;
  int64_t s = 0;
  std::memcpy(&s, p, sizeof s);
  counter.live -= s;
  std::free(p);
}

}  // extern "C"
