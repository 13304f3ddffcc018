// RUN: memplan-opt %s --memplan-arena --verify-diagnostics | FileCheck %s

// Three 256-byte buffers; %a dies (last use: the first copy) before %d is allocated, so %d
// reuses %a's bytes and the arena is 512 bytes, not 768. Deallocs go, the arena's comes last.

// CHECK-LABEL: func.func @straight
// CHECK-SAME: (%[[OUT:.*]]: memref<64xf32>)
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<512xi8>
// CHECK: %[[OA:.*]] = arith.constant [[A:[0-9]+]] : index
// CHECK: %[[VA:.*]] = memref.view %[[ARENA]][%[[OA]]][] : memref<512xi8> to memref<64xf32>
// CHECK: linalg.fill {{.*}} outs(%[[VA]] : memref<64xf32>)
// CHECK: %[[VB:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK: linalg.copy ins(%[[VA]] : memref<64xf32>) outs(%[[VB]] : memref<64xf32>)
// CHECK: %[[OD:.*]] = arith.constant [[A]] : index
// CHECK: %[[VD:.*]] = memref.view %[[ARENA]][%[[OD]]][] : memref<512xi8> to memref<64xf32>
// CHECK: linalg.copy ins(%[[VB]] : memref<64xf32>) outs(%[[VD]] : memref<64xf32>)
// CHECK: linalg.copy ins(%[[VD]] : memref<64xf32>) outs(%[[OUT]] : memref<64xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc {{.*}}xf32>
// CHECK: memref.dealloc %[[ARENA]] : memref<512xi8>
// CHECK-NEXT: return
// expected-remark @+1 {{function '@straight': planned 3 allocations (768 bytes) into a 512-byte arena (LOAD 512, auto, optimal)}}
func.func @straight(%out: memref<64xf32>) {
  %c = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  %d = memref.alloc() : memref<64xf32>
  linalg.copy ins(%b : memref<64xf32>) outs(%d : memref<64xf32>)
  linalg.copy ins(%d : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %d : memref<64xf32>
  return
}
