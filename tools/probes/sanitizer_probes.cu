// Probes for compute-sanitizer: which synchronization patterns of our generated kernels do
// racecheck and synccheck model? Each kernel is one pattern, launched with 384 threads
// (3 warp groups, as the attention kernels); run under each tool:
//   nvcc -arch=sm_90a -o probes sanitizer_probes.cu
//   compute-sanitizer --tool synccheck ./probes gather_sym   (and the other pattern names)
// Patterns:
//   gather_sym   groups 1 and 2 both `bar.sync 6, 256` from their own code, twice a tile (our
//                in-loop warp_group.gather of the persistent kernels before 2026-11-25d)
//   gather_asym  group 2 `bar.arrive 6`, group 1 `bar.sync 6`; then group 1 `bar.arrive 7`,
//                group 2 `bar.sync 7` (full / free handshake)
//   put_warp     register tile through shared memory: each thread st.shared, bar.warp.sync,
//                lane 0 of each warp mbarrier.arrive (count 4: our `per_warp` arrive); the
//                reader try_wait.parity, ld.shared, per-warp arrive on the empty barrier
//   put_thread   the same with every thread arriving (count 128)
//   put_quad     as our 1-D row vectors (a wgmma row slice): the 4 lanes of a quad store the same
//                value to one address, fence.proxy.async, per-warp FULL, per-thread EMPTY arrival
//   put_warp_fence, put_quad_nofence, put_quad_thread: put_quad with distinct addresses, without
//                the fence, with per-thread FULL arrivals
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bar_sync(int id, int n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void mb_init(unsigned long long* b, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void mb_arrive(unsigned long long* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(b)) : "memory");
}
__device__ __forceinline__ void mb_wait(unsigned long long* b, unsigned parity) {
  asm volatile("{ .reg .pred P1; WAIT: mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1; @P1 bra DONE; bra WAIT; DONE: }"
               ::"r"(smem_addr(b)), "r"(parity) : "memory");
}

constexpr int TILES = 8;

__global__ void gather(float* out, bool sym) {
  __shared__ float stage[256];
  int g = threadIdx.x / 128, t = threadIdx.x % 128;
  if (g == 0) return;  // the producer group: nothing to do here
  for (int tile = 0; tile < TILES; ++tile) {
    if (g == 1) {
      if (sym) bar_sync(6, 256);  // the last tile's store has read the buffer
      stage[t] = tile + t;
      bar_sync(6, 256);           // both halves written
      out[tile * 256 + t] = stage[t] + stage[128 + t];  // "the store"
      if (!sym) bar_arrive(7, 256);  // buffer free
    } else {
      if (sym) bar_sync(6, 256);
      stage[128 + t] = tile * t;
      if (sym) bar_sync(6, 256); else { bar_arrive(6, 256); bar_sync(7, 256); }
    }
  }
}

// full_warp / empty_warp: lane 0 arrives for its warp (else every thread); quad: the 4 lanes
// of a quad store one value to one address; fence: fence.proxy.async after the stores
__global__ void put(float* out, bool full_warp, bool empty_warp, bool quad, bool fence) {
  __shared__ float slot[2][128];
  __shared__ unsigned long long full[2], empty[2];
  int g = threadIdx.x / 128, t = threadIdx.x % 128, lane = t % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) { mb_init(&full[s], full_warp ? 4 : 128); mb_init(&empty[s], empty_warp ? 4 : 128); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (int i = 0; i < TILES; ++i) {
    int s = i % 2; unsigned ph = (i / 2) & 1;
    if (g == 1) {  // writer
      mb_wait(&empty[s], ph ^ 1);
      if (quad) slot[s][t / 4] = i * 1000 + t / 4; else slot[s][t] = i * 1000 + t;
      if (fence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      if (full_warp) { __syncwarp(); if (lane == 0) mb_arrive(&full[s]); } else mb_arrive(&full[s]);
    } else if (g == 2) {  // reader
      mb_wait(&full[s], ph);
      out[i * 128 + t] = slot[s][quad ? 31 - t / 4 : 127 - t];
      if (empty_warp) { __syncwarp(); if (lane == 0) mb_arrive(&empty[s]); } else mb_arrive(&empty[s]);
    }
  }
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "gather_sym";
  float* out; cudaMalloc(&out, TILES * 256 * sizeof(float));
  if (!strcmp(which, "gather_sym")) gather<<<1, 384>>>(out, true);
  else if (!strcmp(which, "gather_asym")) gather<<<1, 384>>>(out, false);
  else if (!strcmp(which, "put_warp")) put<<<1, 384>>>(out, true, true, false, false);
  else if (!strcmp(which, "put_thread")) put<<<1, 384>>>(out, false, false, false, false);
  else if (!strcmp(which, "put_quad")) put<<<1, 384>>>(out, true, false, true, true);
  else if (!strcmp(which, "put_warp_fence")) put<<<1, 384>>>(out, true, false, false, true);
  else if (!strcmp(which, "put_quad_nofence")) put<<<1, 384>>>(out, true, false, true, false);
  else if (!strcmp(which, "put_quad_thread")) put<<<1, 384>>>(out, false, false, true, true);
  else { fprintf(stderr, "unknown pattern %s\n", which); return 2; }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: %s\n", which, cudaGetErrorString(e));
  return e != cudaSuccess;
}
