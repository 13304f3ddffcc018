// RUN: memplan-opt %s --memplan-arena --split-input-file --verify-diagnostics | FileCheck %s

// Escaping allocs stay real allocs with a remark; the others in the function are planned.

// CHECK-LABEL: func.func @returned
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256xi8>
// CHECK: %[[R:.*]] = memref.alloc() : memref<64xf32>
// CHECK: memref.view %[[ARENA]]
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return %[[R]]
// expected-remark @+1 {{planned 1 allocations (256 bytes) into a 256-byte arena}}
func.func @returned(%in: memref<64xf32>) -> memref<64xf32> {
  // expected-remark @+1 {{not planned: escapes: returned}}
  %r = memref.alloc() : memref<64xf32>
  %t = memref.alloc() : memref<64xf32>
  linalg.copy ins(%in : memref<64xf32>) outs(%t : memref<64xf32>)
  linalg.copy ins(%t : memref<64xf32>) outs(%r : memref<64xf32>)
  memref.dealloc %t : memref<64xf32>
  return %r : memref<64xf32>
}

// -----

// Returned through a view: the alias closure catches it.
// CHECK-LABEL: func.func @returned_view
// CHECK-NOT: memref.view
// CHECK: memref.alloc() : memref<4x16xf32>
func.func @returned_view() -> memref<64xf32> {
  // expected-remark @+1 {{not planned: escapes: returned}}
  %r = memref.alloc() : memref<4x16xf32>
  %c = memref.collapse_shape %r [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  return %c : memref<64xf32>
}

// -----

// CHECK-LABEL: func.func @stored
// CHECK-NOT: memref.view
func.func @stored(%box: memref<1xmemref<64xf32>>) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{not planned: escapes: stored or captured by 'memref.store'}}
  %a = memref.alloc() : memref<64xf32>
  memref.store %a, %box[%c0] : memref<1xmemref<64xf32>>
  return
}

// -----

func.func private @consume(memref<64xf32>)

// CHECK-LABEL: func.func @called
// CHECK-NOT: memref.view
func.func @called() {
  // expected-remark @+1 {{not planned: escapes: passed to a call}}
  %a = memref.alloc() : memref<64xf32>
  func.call @consume(%a) : (memref<64xf32>) -> ()
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @yielded
// CHECK-NOT: memref.view
func.func @yielded(%cond: i1, %other: memref<64xf32>) -> memref<64xf32> {
  // expected-remark @+1 {{not planned: escapes: yielded or passed to another block}}
  %a = memref.alloc() : memref<64xf32>
  %r = scf.if %cond -> memref<64xf32> {
    scf.yield %a : memref<64xf32>
  } else {
    scf.yield %other : memref<64xf32>
  }
  return %r : memref<64xf32>
}

// -----

// A collapse_shape keeps %a alive until its own last use: Liveness alone would end %a at
// the collapse_shape and let %b take its bytes while %flat is still read.
// CHECK-LABEL: func.func @alias_extends_lifetime
// CHECK: memref.alloc() {alignment = 16 : i64} : memref<512xi8>
// expected-remark @+1 {{planned 2 allocations (512 bytes) into a 512-byte arena}}
func.func @alias_extends_lifetime(%in: memref<4x16xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<4x16xf32>
  linalg.copy ins(%in : memref<4x16xf32>) outs(%a : memref<4x16xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%out : memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.add ins(%flat, %b : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>)
  return
}

// -----

// scf.parallel iterations may run at once: a body alloc would need one slot per iteration,
// and an outer buffer used in the body is touched concurrently. Neither is planned.
// CHECK-LABEL: func.func @parallel
// CHECK-NOT: memref.view
func.func @parallel(%in: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not planned: used inside 'scf.parallel'}}
  %outer = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    // expected-remark @+1 {{not planned: inside 'scf.parallel' (may run concurrently)}}
    %t = memref.alloc() : memref<64xf32>
    linalg.copy ins(%in : memref<64xf32>) outs(%t : memref<64xf32>)
    linalg.copy ins(%t : memref<64xf32>) outs(%outer : memref<64xf32>)
    memref.dealloc %t : memref<64xf32>
  }
  memref.dealloc %outer : memref<64xf32>
  return
}
