// End-to-end network for memplan's MLIR pass (see run.sh):
// a 4-layer MLP on tensors, x[4x8] -> 64 -> 64 -> 64 -> 4, ReLU between layers. Weights and
// biases are computed in the function (so their buffers are temporaries to plan too) from
// a fixed integer pattern, so the printed output checks every buffer's contents.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#vec = affine_map<(i) -> (i)>

// ((7 i + 13 j + 3 seed) mod 17) * 0.0625 - 0.5
func.func @pattern(%i: index, %j: index, %seed: index) -> f32 {
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c17 = arith.constant 17 : index
  %a = arith.muli %i, %c7 : index
  %b = arith.muli %j, %c13 : index
  %c = arith.muli %seed, %c3 : index
  %s0 = arith.addi %a, %b : index
  %s1 = arith.addi %s0, %c : index
  %m = arith.remui %s1, %c17 : index
  %mi = arith.index_cast %m : index to i64
  %f = arith.sitofp %mi : i64 to f32
  %scale = arith.constant 0.0625 : f32
  %half = arith.constant 0.5 : f32
  %g = arith.mulf %f, %scale : f32
  %r = arith.subf %g, %half : f32
  return %r : f32
}

func.func @mlp(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %w0_e = tensor.empty() : tensor<8x64xf32>
    %w0 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%w0_e : tensor<8x64xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %v = func.call @pattern(%i, %j, %c1) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<8x64xf32>
    %b0_e = tensor.empty() : tensor<64xf32>
    %b0 = linalg.generic {indexing_maps = [#vec], iterator_types = ["parallel"]}
        outs(%b0_e : tensor<64xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %v = func.call @pattern(%i, %c0, %c5) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<64xf32>
    %mm0_e = tensor.empty() : tensor<4x64xf32>
    %mm0_z = linalg.fill ins(%zero : f32) outs(%mm0_e : tensor<4x64xf32>) -> tensor<4x64xf32>
    %mm0 = linalg.matmul ins(%x, %w0 : tensor<4x8xf32>, tensor<8x64xf32>) outs(%mm0_z : tensor<4x64xf32>) -> tensor<4x64xf32>
    %h0_e = tensor.empty() : tensor<4x64xf32>
    %h0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%mm0, %b0 : tensor<4x64xf32>, tensor<64xf32>) outs(%h0_e : tensor<4x64xf32>) {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4x64xf32>
    %w1_e = tensor.empty() : tensor<64x64xf32>
    %w1 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%w1_e : tensor<64x64xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %v = func.call @pattern(%i, %j, %c2) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<64x64xf32>
    %b1_e = tensor.empty() : tensor<64xf32>
    %b1 = linalg.generic {indexing_maps = [#vec], iterator_types = ["parallel"]}
        outs(%b1_e : tensor<64xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %v = func.call @pattern(%i, %c0, %c6) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<64xf32>
    %mm1_e = tensor.empty() : tensor<4x64xf32>
    %mm1_z = linalg.fill ins(%zero : f32) outs(%mm1_e : tensor<4x64xf32>) -> tensor<4x64xf32>
    %mm1 = linalg.matmul ins(%h0, %w1 : tensor<4x64xf32>, tensor<64x64xf32>) outs(%mm1_z : tensor<4x64xf32>) -> tensor<4x64xf32>
    %h1_e = tensor.empty() : tensor<4x64xf32>
    %h1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%mm1, %b1 : tensor<4x64xf32>, tensor<64xf32>) outs(%h1_e : tensor<4x64xf32>) {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4x64xf32>
    %w2_e = tensor.empty() : tensor<64x64xf32>
    %w2 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%w2_e : tensor<64x64xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %v = func.call @pattern(%i, %j, %c3) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<64x64xf32>
    %b2_e = tensor.empty() : tensor<64xf32>
    %b2 = linalg.generic {indexing_maps = [#vec], iterator_types = ["parallel"]}
        outs(%b2_e : tensor<64xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %v = func.call @pattern(%i, %c0, %c7) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<64xf32>
    %mm2_e = tensor.empty() : tensor<4x64xf32>
    %mm2_z = linalg.fill ins(%zero : f32) outs(%mm2_e : tensor<4x64xf32>) -> tensor<4x64xf32>
    %mm2 = linalg.matmul ins(%h1, %w2 : tensor<4x64xf32>, tensor<64x64xf32>) outs(%mm2_z : tensor<4x64xf32>) -> tensor<4x64xf32>
    %h2_e = tensor.empty() : tensor<4x64xf32>
    %h2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%mm2, %b2 : tensor<4x64xf32>, tensor<64xf32>) outs(%h2_e : tensor<4x64xf32>) {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4x64xf32>
    %w3_e = tensor.empty() : tensor<64x4xf32>
    %w3 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%w3_e : tensor<64x4xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %v = func.call @pattern(%i, %j, %c4) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<64x4xf32>
    %b3_e = tensor.empty() : tensor<4xf32>
    %b3 = linalg.generic {indexing_maps = [#vec], iterator_types = ["parallel"]}
        outs(%b3_e : tensor<4xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %v = func.call @pattern(%i, %c0, %c8) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<4xf32>
    %mm3_e = tensor.empty() : tensor<4x4xf32>
    %mm3_z = linalg.fill ins(%zero : f32) outs(%mm3_e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %mm3 = linalg.matmul ins(%h2, %w3 : tensor<4x64xf32>, tensor<64x4xf32>) outs(%mm3_z : tensor<4x4xf32>) -> tensor<4x4xf32>
    %h3_e = tensor.empty() : tensor<4x4xf32>
    %h3 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%mm3, %b3 : tensor<4x4xf32>, tensor<4xf32>) outs(%h3_e : tensor<4x4xf32>) {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    return %h3 : tensor<4x4xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
    %x_e = tensor.empty() : tensor<4x8xf32>
    %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%x_e : tensor<4x8xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %v = func.call @pattern(%i, %j, %c9) : (index, index, index) -> f32
      linalg.yield %v : f32
    } -> tensor<4x8xf32>
  %y = func.call @mlp(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %u = tensor.cast %y : tensor<4x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
