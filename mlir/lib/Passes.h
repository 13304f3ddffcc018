// memplan-mlir: MLIR passes backed by memplan.
#pragma once

#include <memory>

namespace mlir {
class Pass;
}

namespace memplan_mlir {

// --memplan-arena: packs a function's statically shaped memref.alloc ops into one i8 arena
// (memref.view at offsets planned by memplan). See mlir/README section in the repo README.
std::unique_ptr<mlir::Pass> createArenaPass();

// Registers every memplan pass with the global pass registry (for memplan-opt).
void registerMemplanPasses();

}  // namespace memplan_mlir
