// RUN: memplan-opt %s --memplan-arena --verify-diagnostics | FileCheck %s

// A dynamically shaped alloc stays (with its dealloc); the static one is planned.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: %[[N:[^:]*]]: index
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256xi8>
// CHECK: %[[D:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<64xf32>
// CHECK: memref.dealloc %[[D]] : memref<?xf32>
// CHECK-NEXT: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return
// expected-remark @+1 {{planned 1 allocations (256 bytes) into a 256-byte arena}}
func.func @dynamic(%n: index, %in: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark @+1 {{not planned: dynamic shape}}
  %d = memref.alloc(%n) : memref<?xf32>
  %s = memref.alloc() : memref<64xf32>
  linalg.copy ins(%in : memref<64xf32>) outs(%s : memref<64xf32>)
  linalg.copy ins(%s : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %s : memref<64xf32>
  memref.dealloc %d : memref<?xf32>
  return
}
