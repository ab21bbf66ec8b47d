// A softmax step on a score tile in the wgmma accumulator fragment (after ws-hopper's
// layouts): the input of the ws-exp2-split example in docs/passes.md. The row slice's
// exp2 (the rescale) stays on the SFU.
// docs: ws-exp2-split{fma-fraction=0.25}
#acc = #layout.wgmma<warp_groups = 1>
#row = #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>
func.func @softmax_step(%s: tensor<64x128xf32, #acc>, %m_b: tensor<64x128xf32, #acc>, %m_diff: tensor<64xf32, #row>)
    -> (tensor<64x128xf32, #acc>, tensor<64xf32, #row>) {
  %x = arith.subf %s, %m_b : tensor<64x128xf32, #acc>
  %p = math.exp2 %x : tensor<64x128xf32, #acc>
  %alpha = math.exp2 %m_diff : tensor<64xf32, #row>
  func.return %p, %alpha : tensor<64x128xf32, #acc>, tensor<64xf32, #row>
}
