// RUN: not memplan-opt %s --memplan-arena=capacity=384 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOOSMALL
// RUN: memplan-opt %s --memplan-arena=capacity=512 2>/dev/null | FileCheck %s --check-prefix=FITS
// RUN: memplan-opt %s --memplan-arena="capacity=512 algo=greedy time-limit=0.5" 2>/dev/null | FileCheck %s --check-prefix=FITS
// RUN: not memplan-opt %s --memplan-arena=algo=no-such-solver -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALGO
// RUN: not memplan-opt %s --memplan-arena=alignment=24 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not memplan-opt %s --memplan-arena=time-limit=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not memplan-opt %s --memplan-arena=time-limit=nan -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not memplan-opt %s --memplan-arena=capacity=-5 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGCAP

// Two 256-byte buffers live together need 512 bytes: capacity 384 fails with an error that
// names the function, 512 fits.
// TOOSMALL: error: memplan-arena: function '@pair': no plan (infeasible) (2 allocations, LOAD 512 bytes, capacity 384 bytes)
// FITS: memref.alloc() {alignment = 16 : i64} : memref<512xi8>
// ALGO: error: memplan-arena: function '@pair': unknown algorithm 'no-such-solver'
// ALIGN: error: memplan-arena: alignment=24 is not a power of two
// LIMIT: error: memplan-arena: time-limit={{.*}} must be a finite number of seconds >= 0 (0: no limit)
// NEGCAP: error: memplan-arena: capacity=-5 must be >= 0 bytes (0: unlimited)
func.func @pair(%in: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%in : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}
