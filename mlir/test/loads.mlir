// RUN: memplan-opt %s --memplan-arena --split-input-file --verify-diagnostics | FileCheck %s

// Buffers read by memref.load and vector.load (as linalg lowered to loops reads them) are
// planned: a scalar or vector result is a value, not an alias of the buffer. (Every op with
// a builtin-typed result counted as an alias: after --convert-linalg-to-loops no alloc of
// straight.mlir was planned.) %a dies at its last load before %c is allocated, so %c reuses
// its bytes: 256 + 256.

// CHECK-LABEL: func.func @loops
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<512xi8>
// CHECK: arith.constant [[A:[0-9]+]] : index
// CHECK: memref.view %[[ARENA]]
// CHECK: memref.load
// CHECK: arith.constant [[A]] : index
// CHECK-NEXT: memref.view %[[ARENA]]
// CHECK-NOT: memref.alloc
// CHECK: memref.dealloc %[[ARENA]] : memref<512xi8>
// CHECK-NEXT: return
// expected-remark @+1 {{function '@loops': planned 3 allocations (768 bytes) into a 512-byte arena}}
func.func @loops(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %one, %a[%i] : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    memref.store %x, %b[%i] : memref<64xf32>
  }
  %c = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %b[%i] : memref<64xf32>
    memref.store %x, %c[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %c[%i] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// A vector read is a value too.
// CHECK-LABEL: func.func @vector_read
// CHECK: memref.view
// CHECK: vector.load
// expected-remark @+1 {{function '@vector_read': planned 1 allocations (64 bytes)}}
func.func @vector_read(%in: memref<16xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %v = vector.load %a[%c0] : memref<16xf32>, vector<4xf32>
  memref.dealloc %a : memref<16xf32>
  return %v : vector<4xf32>
}
