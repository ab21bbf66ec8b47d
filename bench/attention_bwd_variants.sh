#!/bin/bash
# Attention backward variants on one Hopper GPU, in about 4 minutes, everything under $OUT:
#   variants.md            correctness of each variant (bench/attention_bwd.py VARIANTS) against
#                          torch autograd of float32 SDPA, then TFLOP/s of each and of cuDNN
#                          (bf16, B 4, H 32, d 128, L 4k and 16k, causal and not)
#   ncu-<variant>.txt      Nsight Compute of the main kernel (SpeedOfLight, WarpStateStats,
#                          SchedulerStats) for tma-overlap, tma (the wrapper's default) and
#                          atomic (the first GPU run's form)
#   variants.log, ncu-*.log
# Run from the repository root with xdsl, torch, triton and cuda-python importable:
#   OUT=/tmp/out bash bench/attention_bwd_variants.sh
set -u
OUT=${OUT:-/tmp/attention_bwd_variants}
mkdir -p "$OUT"
export WSDIALECTS_PTX_CACHE=${WSDIALECTS_PTX_CACHE:-/tmp/ws-ptx-cache}  # the ncu runs reuse the PTX
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
timeout 200 python bench/attention_bwd.py --variants --out "$OUT" 2>&1 | grep -v "remark:" > "$OUT/variants.log"
echo "variants: rc ${PIPESTATUS[0]}" >> "$OUT/variants.log"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for v in tma-overlap tma atomic; do
  if [ -z "$NCU" ]; then echo "no ncu on this machine" > "$OUT/ncu-$v.txt"; continue; fi
  timeout 60 "$NCU" --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      -k regex:'^flash_attention_bwd$' --launch-count 1 \
      python bench/attention_bwd.py --profile-one "$v" > "$OUT/ncu-$v.txt" 2> "$OUT/ncu-$v.log"
  echo "ncu $v: rc $?" >> "$OUT/ncu-$v.log"
done
tail -n 30 "$OUT/variants.md" 2>/dev/null || tail -n 30 "$OUT/variants.log"
