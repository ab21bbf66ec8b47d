#!/bin/bash
# One GPU session: GPU tests, compute-sanitizer on a small GEMM and a small attention, the
# GEMM and attention benchmarks, ncu profiles of attention (STEPS picks: calibrate, tests, sanitize, bench,
# attn-bench, kinds, profile, timeline, fuzz, probes).
# Run from the repo root on the GPU machine; needs torch, triton, cuda-python there.
# PYTHONPATH: the repo, plus a folder with xdsl (+ immutabledict, ordered_set) if not installed.
# WSDIALECTS_PTX_CACHE: PTX keyed by LLVM IR hash (so a machine whose llvmlite lacks sm_90a works).
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD:$PWD/.devsite${PYTHONPATH:+:$PYTHONPATH}
export WSDIALECTS_PTX_CACHE=${WSDIALECTS_PTX_CACHE:-$PWD/.ptxcache}
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi -L
# Wheels carried in .whl (fa3-fwd: FlashAttention-3's forward, the bf16 peer of bench/attention.py).
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
python3 -c "import torch, triton, llvmlite, cuda.bindings as cb; print('torch', torch.__version__, 'triton', triton.__version__, 'llvmlite', llvmlite.__version__, 'cuda.bindings', cb.__version__, torch.cuda.get_device_name())"
STEPS=${STEPS:-tests,sanitize,bench}
if [[ $STEPS == *calibrate* ]]; then
  # the machine model's rates and the wgmma latency (tools/calibrate.py), written to $OUT
  timeout 240 python3 tools/calibrate.py --out $OUT 2>&1 | tee $OUT/calibrate.log | tail -30
fi
if [[ $STEPS == *tests* ]]; then
  timeout ${TESTS_TIMEOUT:-300} python3 -m pytest -q -p no:cacheprovider ${GPU_TESTS:-test/gpu} 2>&1 | tee $OUT/gpu_tests.log | tail -40
fi
if [[ $STEPS == *probes* ]]; then
  # which synchronization patterns compute-sanitizer models (tools/probes/sanitizer_probes.cu)
  nvcc -arch=sm_90a -o /tmp/probes tools/probes/sanitizer_probes.cu 2>&1 | tail -5
  for tool in synccheck racecheck; do
    for pat in gather_sym gather_asym put_warp put_thread; do
      echo "== compute-sanitizer --tool $tool probes $pat"
      timeout 60 compute-sanitizer --tool $tool --print-limit 4 /tmp/probes $pat 2>&1 | grep -v "Host Frame" \
        | tee -a "$OUT/probes.log" | tail -4
    done
  done
fi
if [[ $STEPS == *sanitize* ]]; then
  for tool in racecheck synccheck "memcheck --report-api-errors no"; do
    echo "== compute-sanitizer --tool $tool"
    for script in ${SANITIZE_SCRIPTS:-small_gemm small_attention}; do
      echo "== compute-sanitizer --tool $tool $script" >> "$OUT/sanitizer.log"
      timeout 240 compute-sanitizer --tool $tool python3 test/gpu/$script.py 2>&1 | grep -v "Host Frame" \
        | tee -a "$OUT/sanitizer.log" | tail -6
    done
  done
fi
if [[ $STEPS == *attn-bench* ]]; then
  # ATTN_VARIANTS: the ws-hopper pipelines to time, ';'-separated (may hold spaces)
  timeout ${ATTN_TIMEOUT:-400} python3 bench/attention.py --out $OUT ${ATTN_VARIANTS:+--variants "$ATTN_VARIANTS"} ${ATTN_ARGS} 2>&1 | tee $OUT/attn_bench.log | tail -60
fi
if [[ $STEPS == *profile* ]]; then
  # ncu + SASS: PROFILE_SPECS, ';'-separated commands (shell words, quoted as needed) of
  # tools/profile_attention.py or tools/profile_gemm.py, e.g.
  # "tools/profile_attention.py --pipeline 'ws-hopper{cooperative=2 pingpong=true}';tools/profile_attention.py --fa3";
  # or PROFILE_PIPELINES, ';'-separated attention pipelines (each with PROFILE_ARGS);
  # PROFILE_SOURCE=1 also writes sass-counts-N.csv.gz: the kernel's SASS with per-instruction counts
  if [[ -n $PROFILE_SPECS ]]; then IFS=';' read -ra specs <<< "$PROFILE_SPECS"
  else IFS=';' read -ra pipes <<< "${PROFILE_PIPELINES:-ws-hopper}"; specs=()
    for p in "${pipes[@]}"; do specs+=("tools/profile_attention.py --pipeline '$p' ${PROFILE_ARGS}"); done; fi
  for i in "${!specs[@]}"; do
    spec=${specs[$i]}; echo "== ncu [$i] $spec"
    # ours: flash_attention* / matmul; FlashAttention-3: CUTLASS's device_kernel
    eval "timeout 200 ncu --kernel-name 'regex:flash|matmul|device_kernel' --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
      --section InstructionStats ${PROFILE_SOURCE:+--section SourceCounters --export $OUT/ncu-$i --force-overwrite} \
      python3 $spec --sass $OUT/sass-$i" > $OUT/ncu-$i.txt 2>&1
    if [[ -n $PROFILE_SOURCE && -f $OUT/ncu-$i.ncu-rep ]]; then
      # the profiled kernel's SASS with per-instruction execution counts (FlashAttention-3's too)
      ncu --import $OUT/ncu-$i.ncu-rep --page source --print-source sass --csv 2>&1 | gzip > $OUT/sass-counts-$i.csv.gz
      rm -f $OUT/ncu-$i.ncu-rep
    fi
    grep -E "Duration|Issue Slots Busy|Eligible Warps|No Eligible|Executed Instructions  |Registers Per" $OUT/ncu-$i.txt | head -8
    if ls $OUT/sass-$i/*.ptx >/dev/null 2>&1; then
      ptxas -arch=sm_90a $OUT/sass-$i/*.ptx -o /tmp/prof-$i.cubin && cuobjdump --dump-sass /tmp/prof-$i.cubin > $OUT/sass-$i/kernel.sass
    fi
  done
fi
if [[ $STEPS == *timeline* ]]; then
  # clock stamps of one CTA at every turn, wgmma commit and wait (tools/probes/attention_timeline.py);
  # TIMELINE_SPECS: ';'-separated argument lists, e.g. "--pipeline 'ws-hopper{cooperative=2 pingpong=true}' --L 16384"
  IFS=';' read -ra specs <<< "${TIMELINE_SPECS:---L 4096}"
  for i in "${!specs[@]}"; do
    echo "== timeline [$i] ${specs[$i]}"
    eval "timeout 120 python3 tools/probes/attention_timeline.py ${specs[$i]} --out $OUT/timeline-$i" 2>&1 | tail -40
  done
fi
if [[ $STEPS == *fuzz* ]]; then
  # the long fuzz campaign on this machine's cores: FUZZ_RUNS, ';'-separated "MODE CASES SEED"
  IFS=';' read -ra runs <<< "${FUZZ_RUNS:-syntax 2000 1}"
  for r in "${runs[@]}"; do
    read -r mode cases seed <<< "$r"; echo "== fuzz $mode $cases cases, seed $seed"
    timeout ${FUZZ_TIMEOUT:-300} python3 -m wsdialects.fuzz --mode $mode --cases $cases --seed $seed --jobs $(nproc) -q \
      --out $OUT/fuzz-$mode-$seed 2>&1 | head -14
  done
fi
if [[ $STEPS == *kinds* ]]; then
  # one table per kind of GEMM kernel against the torch op a user would call and Triton on the same tile
  # (bench/gemm_kinds.py, issue 13);
  # KINDS_ARGS e.g. "--kinds a,c --ks 4096"; KINDS_VARIANTS: ';'-separated ws-hopper pipelines (may hold spaces)
  timeout 420 python3 bench/gemm_kinds.py --out $OUT ${KINDS_VARIANTS:+--variants "$KINDS_VARIANTS"} ${KINDS_ARGS} 2>&1 | tee $OUT/kinds.log | tail -100
fi
if [[ $STEPS == *,bench* || $STEPS == bench* ]]; then
  timeout 400 python3 bench/gemm.py --out $OUT ${BENCH_ARGS} 2>&1 | tee $OUT/bench.log | tail -30
fi
