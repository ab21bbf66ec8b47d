#!/bin/bash
# Attention backward variants on one Hopper GPU, in about 4 minutes, everything under $OUT:
#   check-<variant>.log    each variant's correctness alone, in a process of its own (a kernel
#                          that faults cannot take the others down): bf16, d 128, causal and not,
#                          (B, H, L) = (1, 2, 1), (1, 2, 100), (2, 2, 1000), (1, 2, 4096), against
#                          torch autograd of float32 SDPA (bench/attention_bwd.py VARIANT_CHECKS)
#   variants.md            TFLOP/s of the variants that passed and of cuDNN (bf16, B 4, H 32,
#                          d 128, L 4k and 16k, causal and not)
#   ncu-<variant>.txt      Nsight Compute of the main kernel (SpeedOfLight, WarpStateStats,
#                          SchedulerStats) for tma-overlap, tma (the wrapper's default) and
#                          atomic (the first GPU run's form), where they passed
#   device.txt, variants.log, ncu-*.log
# Run from the repository root on the GPU machine (torch, triton, cuda-python there; xdsl from
# .devsite or the wheels in .whl, as tools/device_run.sh takes them):
#   OUT=/tmp/out bash bench/attention_bwd_variants.sh
set -u
OUT=${OUT:-/tmp/attention_bwd_variants}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD:$PWD/.devsite${PYTHONPATH:+:$PYTHONPATH}
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
export WSDIALECTS_PTX_CACHE=${WSDIALECTS_PTX_CACHE:-/tmp/ws-ptx-cache}  # later runs reuse the PTX
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
VARIANTS="atomic tma tma-overlap tma-pairs tma-dq tma-persistent tma-overlap-persistent"
passed=""
for v in $VARIANTS; do
  if timeout 45 python3 bench/attention_bwd.py --check-one "$v" > "$OUT/check-$v.log" 2>&1; then
    passed="$passed,$v"
  else
    echo "check $v: rc $? (see check-$v.log)" >> "$OUT/variants.log"
  fi
done
passed=${passed#,}
echo "passed: $passed" >> "$OUT/variants.log"
if [ -n "$passed" ]; then
  timeout 150 python3 bench/attention_bwd.py --variants --no-checks --variant-names "$passed" --out "$OUT" 2>&1 \
    | grep -v "remark:" >> "$OUT/variants.log"
  echo "variants: rc ${PIPESTATUS[0]}" >> "$OUT/variants.log"
fi
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for v in tma-overlap tma atomic; do
  case ",$passed," in *",$v,"*) ;; *) continue ;; esac
  if [ -z "$NCU" ]; then echo "no ncu on this machine" > "$OUT/ncu-$v.txt"; continue; fi
  timeout 40 "$NCU" --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      -k regex:'^flash_attention_bwd(_causal)?_bf16$' --launch-count 1 \
      python3 bench/attention_bwd.py --profile-one "$v" > "$OUT/ncu-$v.txt" 2> "$OUT/ncu-$v.log"
  echo "ncu $v: rc $?" >> "$OUT/ncu-$v.log"
done
cat "$OUT/variants.log" | grep -v "^|" | tail -n 20
tail -n 14 "$OUT/variants.md" 2>/dev/null
