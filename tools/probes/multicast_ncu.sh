#!/bin/bash
# ncu of a kernel and of its multicast patch (tools/probes/multicast_ab.py), same metrics.
# Run on the GPU machine after `. tools/device_run.sh` (STEPS=none).
# Usage: tools/probes/multicast_ncu.sh OUT_DIR KERNEL K VARIANT NAME   (KERNEL: gemm or a kind a..f;
#   NAME: the kernel function's name, e.g. matmul or f32out_gemm)
set -u
out=$1; kernel=$2; K=$3; variant=$4; name=$5
mkdir -p "$out"
metrics="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio"
sections="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats"
for side in ours multicast; do
  timeout 150 ncu --kernel-name "$name" --launch-skip 1 --launch-count 1 $sections --metrics $metrics \
    python3 tools/probes/multicast_ab.py --kernels "$kernel" --ks "$K" --variant "$variant" --profile $side \
    > "$out/ncu-$side-$kernel-K$K.txt" 2>&1
  echo "== $side $kernel K $K"
  grep -E "Duration|hmma_cycles|sector_hit|dram__bytes|lts__t_bytes|lts__t_sectors|Memory Throughput|L2 Cache Throughput|Compute \(SM\)|Cluster Size|Grid Size|Stall|stalled|Warp Cycles Per Issued" \
    "$out/ncu-$side-$kernel-K$K.txt" | head -30
done
