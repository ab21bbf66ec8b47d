#!/bin/bash
# ncu of one of our GEMM kernels beside the torch op a user would call instead, same metrics
# (tensor pipe, L2 / DRAM traffic and hit rate, occupancy, warp stalls; the peer's kernel name
# tells cuBLAS's tile and cluster). Run on the GPU machine after `. tools/device_run.sh`
# (STEPS=none). Usage: tools/probes/gemm_ncu_pair.sh OUT_DIR K KIND VARIANT
#   KIND: a..f (bench/gemm_kinds.py) or gemm (examples/kernels/gemm.mlir, bench/gemm.py's variants)
set -u
out=$1; K=$2; kind=$3; variant=$4
mkdir -p "$out"
metrics="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum"
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats"
if [[ $kind == gemm ]]; then
  ours=(python3 tools/profile_gemm.py --variant "$variant" --K "$K")
  peer=(python3 -c "import torch; a=torch.randn(8192,$K,device='cuda',dtype=torch.float16); b=torch.randn(8192,$K,device='cuda',dtype=torch.float16); [a@b.T for _ in range(2)]; torch.cuda.synchronize()")
else
  ours=(python3 tools/profile_gemm_kind.py --kind "$kind" --variant "$variant" --K "$K")
  peer=(python3 tools/profile_gemm_kind.py --kind "$kind" --K "$K" --peer)
fi
tag="$kind-K$K"
timeout 150 ncu --kernel-name regex:'matmul|gemm' --launch-skip 1 --launch-count 1 $sections \
  --metrics $metrics "${ours[@]}" > "$out/ncu-ours-$tag.txt" 2>&1
timeout 150 ncu --kernel-name regex:'nvjet|gemm|sm90|cutlass' --launch-skip 1 --launch-count 1 $sections \
  --metrics $metrics "${peer[@]}" > "$out/ncu-peer-$tag.txt" 2>&1
for side in ours peer; do
  echo "== $side $tag"
  grep -E "^  [a-zA-Z_].*\(|Duration|hmma_cycles|sector_hit|dram__bytes|lts__t_bytes|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Cluster Size|Grid Size|Block Size" \
    "$out/ncu-$side-$tag.txt" | head -24
done
