// Groups of four warps meet at named barrier 3, which counts only 128 threads.
func.func @named(%n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  nvgpu.wg.dispatch threads 256 {
    nvgpu.wg.branch warps 0 to 4 "consumer0" {
      nvvm.barrier 3 threads 256
    }
    nvgpu.wg.branch warps 4 to 8 "consumer1" {
      nvvm.barrier_arrive 3 threads 384
    }
  }
  func.return
}
