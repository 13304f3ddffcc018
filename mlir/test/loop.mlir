// RUN: memplan-opt %s --memplan-arena --verify-diagnostics | FileCheck %s

// %acc lives across the whole loop (allocated before it, used in every iteration) and must
// not share bytes with anything in the body. %t1 and %t2 are allocated and freed inside
// one iteration, so they are local to it: %t2 reuses %t1's slot in every iteration.
// %after is allocated after the loop and may reuse a body slot. Arena: 256 + 256.

// CHECK-LABEL: func.func @loop
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<512xi8>
// CHECK: arith.constant [[ACC:[0-9]+]] : index
// CHECK-NEXT: %[[VACC:.*]] = memref.view %[[ARENA]]
// CHECK: scf.for
// CHECK: arith.constant [[T:[0-9]+]] : index
// CHECK-NEXT: %[[V1:.*]] = memref.view %[[ARENA]]
// CHECK: linalg.add ins(%[[VACC]], %[[V1]] : {{.*}}) outs(%[[VACC]]
// CHECK-NOT: memref.dealloc
// CHECK: arith.constant [[T]] : index
// CHECK-NEXT: %[[V2:.*]] = memref.view %[[ARENA]]
// CHECK-NOT: memref.dealloc
// CHECK: }
// CHECK: memref.view %[[ARENA]]
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return
// expected-remark @+1 {{planned 4 allocations (1024 bytes) into a 512-byte arena (LOAD 512}}
func.func @loop(%in: memref<64xf32>, %out: memref<64xf32>, %n: index) {
  %acc = memref.alloc() : memref<64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64xf32>)
  scf.for %i = %c0 to %n step %c1 {
    %t1 = memref.alloc() : memref<64xf32>
    linalg.copy ins(%in : memref<64xf32>) outs(%t1 : memref<64xf32>)
    linalg.add ins(%acc, %t1 : memref<64xf32>, memref<64xf32>) outs(%acc : memref<64xf32>)
    memref.dealloc %t1 : memref<64xf32>
    %t2 = memref.alloc() : memref<64xf32>
    linalg.copy ins(%in : memref<64xf32>) outs(%t2 : memref<64xf32>)
    linalg.add ins(%t2, %t2 : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>)
    memref.dealloc %t2 : memref<64xf32>
  }
  %after = memref.alloc() : memref<64xf32>
  linalg.copy ins(%acc : memref<64xf32>) outs(%after : memref<64xf32>)
  linalg.copy ins(%after : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %acc : memref<64xf32>
  memref.dealloc %after : memref<64xf32>
  return
}
