#!/bin/bash
# Attention backward variants on one Hopper GPU, in at most about 9.5 minutes (every step has a
# timeout; the fp16 / d 64 timing is skipped after 380 s, an ncu step after 520 s), everything
# under $OUT in six files (a device call returns at most eight):
#   device.txt        nvidia-smi's name, driver and clock
#   checks.log        each variant's correctness, checked alone in a process of its own (a kernel
#                     that faults cannot take the others down): bf16 d 128 at (B, H, L) = (1, 2, 1),
#                     (1, 2, 100), (2, 2, 1000), (1, 2, 4096), fp16 d 128 and bf16 d 64 at
#                     (2, 2, 1000), causal and not, against torch autograd of float32 SDPA
#                     (bench/attention_bwd.py VARIANT_CHECKS, VARIANT_CHECKS_OTHER)
#   variants.md       TFLOP/s of the variants that passed and of cuDNN: bf16, B 4, H 32, d 128,
#                     L 4k and 16k, causal and not
#   variants-other.md the same for fp16 d 128 and bf16 d 64 ($OTHER_VARIANTS that passed)
#   ncu.txt           Nsight Compute of the main kernel (SpeedOfLight, WarpStateStats,
#                     SchedulerStats, ComputeWorkloadAnalysis, MemoryWorkloadAnalysis) of each
#                     $NCU_VARIANTS entry (VARIANT or VARIANT:causal) that passed, one after the
#                     other with a header line each, ncu's own messages at the end of each
#   variants.log      the steps' return codes and messages
# Run from the repository root on the GPU machine (torch, triton, cuda-python there; xdsl from
# .devsite or the wheels in .whl, as tools/device_run.sh takes them):
#   OUT=/tmp/out bash bench/attention_bwd_variants.sh
# The Triton peer is left out (--no-triton: its compiles and config search would not fit the
# steps' timeouts); bench/attention_bwd.py's main table and --variants run alone time it.
# VARIANTS, OTHER_VARIANTS and NCU_VARIANTS (space-separated names of bench/attention_bwd.py
# VARIANTS) may be given in the environment instead of the defaults below.
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
VARIANTS=${VARIANTS:-"tma tma-overlap tma-pairs tma-dq-first tma-dq-first-lpt tma-dq-first-lpt-240"}
OTHER_VARIANTS=${OTHER_VARIANTS:-"tma tma-overlap tma-dq-first tma-dq-first-lpt"}
NCU_VARIANTS=${NCU_VARIANTS:-"tma-dq-first tma-dq-first-lpt-240:causal tma-overlap"}
passed=""
for v in $VARIANTS; do
  timeout 55 python3 bench/attention_bwd.py --check-one "$v" > "$OUT/check.tmp" 2>&1
  rc=$?
  { echo "=== check $v: rc $rc"; grep -v "remark:" "$OUT/check.tmp"; } >> "$OUT/checks.log"
  if [ $rc = 0 ]; then passed="$passed,$v"; else echo "check $v: rc $rc (see checks.log)" >> "$OUT/variants.log"; fi
done
passed=${passed#,}
echo "passed: $passed" >> "$OUT/variants.log"
if [ -n "$passed" ]; then
  timeout 120 python3 bench/attention_bwd.py --variants --no-checks --no-triton --variant-names "$passed" --out "$OUT" 2>&1 \
    | grep -v "remark:" >> "$OUT/variants.log"
  echo "variants: rc ${PIPESTATUS[0]}" >> "$OUT/variants.log"
  other=""
  for v in $OTHER_VARIANTS; do case ",$passed," in *",$v,"*) other="$other,$v" ;; esac; done
  other=${other#,}
  if [ -n "$other" ] && [ $SECONDS -gt 380 ]; then
    echo "variants (fp16 d 128, bf16 d 64): skipped, ${SECONDS} s gone" >> "$OUT/variants.log"
  elif [ -n "$other" ]; then
    timeout 110 python3 bench/attention_bwd.py --variants --no-checks --no-triton --variant-names "$other" \
        --variant-configs fp16:128,bf16:64 --table variants-other.md --out "$OUT" 2>&1 \
      | grep -v "remark:" >> "$OUT/variants.log"
    echo "variants (fp16 d 128, bf16 d 64): rc ${PIPESTATUS[0]}" >> "$OUT/variants.log"
  fi
fi
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for entry in $NCU_VARIANTS; do
  v=${entry%%:*}
  case ",$passed," in *",$v,"*) ;; *) continue ;; esac
  if [ $SECONDS -gt 520 ]; then echo "ncu $entry: skipped, ${SECONDS} s gone" >> "$OUT/variants.log"; continue; fi
  causal=""; kernel='^flash_attention_bwd_bf16$'
  if [ "$entry" != "$v" ]; then causal="--profile-causal"; kernel='^flash_attention_bwd_causal_bf16$'; fi
  echo "=== ncu $entry (bf16, d 128, B 4, H 32, L 4096)" >> "$OUT/ncu.txt"
  if [ -z "$NCU" ]; then echo "no ncu on this machine" >> "$OUT/ncu.txt"; continue; fi
  timeout 40 "$NCU" --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      -k regex:"$kernel" --launch-count 1 \
      python3 bench/attention_bwd.py --profile-one "$v" $causal >> "$OUT/ncu.txt" 2> "$OUT/ncu.err"
  rc=$?
  grep -v "remark:" "$OUT/ncu.err" | tail -n 5 >> "$OUT/ncu.txt"
  echo "ncu $entry: rc $rc" | tee -a "$OUT/ncu.txt" >> "$OUT/variants.log"
done
rm -f "$OUT/ncu.err" "$OUT/check.tmp"
grep -v "^|" "$OUT/variants.log" | tail -n 20
tail -n 6 "$OUT/variants.md" "$OUT/variants-other.md" 2>/dev/null
