// RUN: memplan-opt %s --memplan-arena --split-input-file --verify-diagnostics | FileCheck %s
// RUN: memplan-opt %s --memplan-arena=alignment=128 --split-input-file 2>/dev/null | FileCheck %s --check-prefix=OPT

// Two 16-byte buffers live together, each aligned to 256: they cannot be closer than 256
// bytes, so the arena is 256 + 16 = 272 bytes and aligned to 256 itself.
// CHECK-LABEL: func.func @attributes
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 256 : i64} : memref<272xi8>
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 256 : index
// The option alignment= only applies to allocs without an attribute.
// OPT-LABEL: func.func @attributes
// OPT: memref.alloc() {alignment = 256 : i64} : memref<272xi8>
// expected-remark @+1 {{planned 2 allocations (32 bytes) into a 272-byte arena (LOAD 32}}
func.func @attributes(%in: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() {alignment = 256 : i64} : memref<4xf32>
  %b = memref.alloc() {alignment = 256 : i64} : memref<4xf32>
  linalg.copy ins(%in : memref<4xf32>) outs(%a : memref<4xf32>)
  linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.copy ins(%b : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// No attributes: the default alignment (16) packs 8 + 8 bytes at 0 and 16; the option
// alignment=128 puts them 128 apart and aligns the arena to 128.
// CHECK-LABEL: func.func @default_alignment
// CHECK: memref.alloc() {alignment = 16 : i64} : memref<24xi8>
// OPT-LABEL: func.func @default_alignment
// OPT: memref.alloc() {alignment = 128 : i64} : memref<136xi8>
// expected-remark @+1 {{planned 2 allocations (16 bytes) into a 24-byte arena}}
func.func @default_alignment(%in: memref<2xf32>, %out: memref<2xf32>) {
  %a = memref.alloc() : memref<2xf32>
  %b = memref.alloc() : memref<2xf32>
  linalg.copy ins(%in : memref<2xf32>) outs(%a : memref<2xf32>)
  linalg.copy ins(%a : memref<2xf32>) outs(%b : memref<2xf32>)
  linalg.copy ins(%b : memref<2xf32>) outs(%out : memref<2xf32>)
  return
}

// -----

// Element sizes: i1 and i4 take a byte each, i24 four, index eight (DataLayout). An alignment
// that is not a power of two is refused.
// CHECK-LABEL: func.func @element_sizes
// CHECK: memref.alloc() {alignment = 16 : i64} : memref<{{[0-9]+}}xi8>
// CHECK: memref.alloc() {alignment = 48 : i64} : memref<4xf32>
// expected-remark @+1 {{planned 4 allocations (69 bytes)}}
func.func @element_sizes(%i: index, %x: i1, %y: i4, %z: i24) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<13xi1>
  %b = memref.alloc() : memref<8xi4>
  %c = memref.alloc() : memref<4xi24>
  %d = memref.alloc() : memref<4xindex>
  // expected-remark @+1 {{not planned: alignment is not a power of two}}
  %e = memref.alloc() {alignment = 48 : i64} : memref<4xf32>
  memref.store %x, %a[%c0] : memref<13xi1>
  memref.store %y, %b[%c0] : memref<8xi4>
  memref.store %z, %c[%c0] : memref<4xi24>
  memref.store %i, %d[%c0] : memref<4xindex>
  return
}
