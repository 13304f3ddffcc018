// RUN: memplan-opt %s --memplan-arena --split-input-file --verify-diagnostics | FileCheck %s

// Data-flow diamond a -> (b, c) -> d. a, b and c are live together at the second copy and
// fill the 768-byte arena (LOAD); d is disjoint from b and c, so it must take a's slot.

// CHECK-LABEL: func.func @diamond
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<768xi8>
// CHECK: arith.constant [[A:[0-9]+]] : index
// CHECK: %[[VA:.*]] = memref.view %[[ARENA]]
// CHECK: %[[VB:.*]] = memref.view %[[ARENA]]
// CHECK: %[[VC:.*]] = memref.view %[[ARENA]]
// CHECK: arith.constant [[A]] : index
// CHECK-NEXT: %[[VD:.*]] = memref.view %[[ARENA]]
// CHECK: linalg.add ins(%[[VB]], %[[VC]] : memref<64xf32>, memref<64xf32>) outs(%[[VD]] : memref<64xf32>)
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NOT: memref.dealloc
// expected-remark @+1 {{planned 4 allocations (1024 bytes) into a 768-byte arena (LOAD 768}}
func.func @diamond(%in: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%in : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  %c = memref.alloc() : memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%c : memref<64xf32>)
  %d = memref.alloc() : memref<64xf32>
  linalg.add ins(%b, %c : memref<64xf32>, memref<64xf32>) outs(%d : memref<64xf32>)
  linalg.copy ins(%d : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  memref.dealloc %d : memref<64xf32>
  return
}

// -----

// Control-flow diamond: the then and else temporaries never live together and share bytes;
// %x, used after the scf.if, must stay apart from both (its lifetime covers the whole op).

// CHECK-LABEL: func.func @branches
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<512xi8>
// CHECK: arith.constant [[X:[0-9]+]] : index
// CHECK-NEXT: %[[VX:.*]] = memref.view %[[ARENA]]
// CHECK: scf.if
// CHECK: arith.constant [[T:[0-9]+]] : index
// CHECK-NEXT: memref.view %[[ARENA]]
// CHECK: } else {
// CHECK: arith.constant [[T]] : index
// CHECK-NEXT: memref.view %[[ARENA]]
// CHECK-NOT: memref.dealloc
// CHECK: }
// CHECK: linalg.copy ins(%[[VX]]
// CHECK-NEXT: memref.dealloc %[[ARENA]]
// expected-remark @+1 {{planned 3 allocations (768 bytes) into a 512-byte arena}}
func.func @branches(%cond: i1, %in: memref<64xf32>, %out: memref<64xf32>) {
  %x = memref.alloc() : memref<64xf32>
  scf.if %cond {
    %t = memref.alloc() : memref<64xf32>
    linalg.copy ins(%in : memref<64xf32>) outs(%t : memref<64xf32>)
    linalg.copy ins(%t : memref<64xf32>) outs(%x : memref<64xf32>)
    memref.dealloc %t : memref<64xf32>
  } else {
    %e = memref.alloc() : memref<64xf32>
    linalg.copy ins(%in : memref<64xf32>) outs(%e : memref<64xf32>)
    linalg.add ins(%e, %e : memref<64xf32>, memref<64xf32>) outs(%x : memref<64xf32>)
    memref.dealloc %e : memref<64xf32>
  }
  linalg.copy ins(%x : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %x : memref<64xf32>
  return
}
