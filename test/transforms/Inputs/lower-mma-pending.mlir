// wgmma.wait_group leaves at most 7 groups in flight.
func.func @f() {
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %r = mma.wait %acc {pending = 8} : tensor<64x64xf32>
    }
  }
  func.return
}
