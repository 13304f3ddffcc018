// RUN: memplan-opt %s --memplan-arena=arena-as-argument=true --verify-diagnostics | FileCheck %s

// The arena becomes a new last argument; the function records its size and alignment and
// neither allocates nor frees it.
// CHECK-LABEL: func.func @arg
// CHECK-SAME: (%{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32>, %[[ARENA:.*]]: memref<256xi8> {memplan.arena_alignment = 16 : i64})
// CHECK-SAME: attributes {memplan.arena_size = 256 : i64}
// CHECK-NOT: memref.alloc
// CHECK: memref.view %[[ARENA]]
// CHECK-NOT: memref.dealloc
// CHECK: return
// expected-remark @+1 {{planned 1 allocations (256 bytes) into a 256-byte arena}}
func.func @arg(%in: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%in : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  return
}
