#!/bin/bash
# One GPU session: GPU tests, compute-sanitizer on a small GEMM, the GEMM benchmark.
# Run from the repo root on the GPU machine; needs torch, triton, cuda-python there.
# PYTHONPATH: the repo, plus a folder with xdsl (+ immutabledict, ordered_set) if not installed.
# WSDIALECTS_PTX_CACHE: PTX keyed by LLVM IR hash (so a machine whose llvmlite lacks sm_90a works).
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD:$PWD/.devsite${PYTHONPATH:+:$PYTHONPATH}
export WSDIALECTS_PTX_CACHE=${WSDIALECTS_PTX_CACHE:-$PWD/.ptxcache}
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi -L
python3 -c "import torch, triton, llvmlite, cuda.bindings as cb; print('torch', torch.__version__, 'triton', triton.__version__, 'llvmlite', llvmlite.__version__, 'cuda.bindings', cb.__version__, torch.cuda.get_device_name())"
STEPS=${STEPS:-tests,sanitize,bench}
if [[ $STEPS == *tests* ]]; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider test/gpu 2>&1 | tee $OUT/gpu_tests.log | tail -40
fi
if [[ $STEPS == *sanitize* ]]; then
  for tool in racecheck synccheck "memcheck --report-api-errors no"; do
    echo "== compute-sanitizer --tool $tool"
    timeout 240 compute-sanitizer --tool $tool python3 test/gpu/small_gemm.py 2>&1 | tee "$OUT/sanitizer_${tool%% *}.log" | tail -6
  done
fi
if [[ $STEPS == *bench* ]]; then
  timeout 400 python3 bench/gemm.py --out $OUT ${BENCH_ARGS} 2>&1 | tee $OUT/bench.log | tail -30
fi
