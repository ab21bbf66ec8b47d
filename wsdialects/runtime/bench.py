"""Timing a launch on the GPU, the way Triton's `do_bench` does: CUDA events around each
run, the L2 cache flushed in between, warm-up and repeat budgets in milliseconds, the
median. `wsdialects.autotune` uses `cuda_timer()` unless it is given another timer (any
callable `timer(fn) -> milliseconds`; the tests give a fake one).

    from wsdialects.runtime.bench import cuda_timer
    ms = cuda_timer(warmup=25, rep=100)(lambda: k[grid](a, b, c, M, N, K, N))
"""

from __future__ import annotations

from statistics import median

_L2_FLUSH_BYTES = 256 << 20  # larger than any Hopper L2 (50 MiB on the H100)


def cuda_timer(warmup: float = 25.0, rep: float = 100.0, flush_l2: bool = True, max_runs: int = 1000):
    """A timer: `timer(fn)` runs `fn` (a kernel launch) about `warmup` ms untimed, then
    about `rep` ms timed one run at a time with CUDA events on the current stream (at
    least one run each, at most `max_runs`), and returns the median in milliseconds.
    `flush_l2` writes a 256 MiB buffer before each run so no run finds its inputs in L2."""
    if warmup < 0 or rep <= 0 or max_runs < 1:
        raise ValueError(f"cuda_timer: needs warmup >= 0, rep > 0, max_runs >= 1; got {warmup}, {rep}, {max_runs}")

    def timer(fn) -> float:
        from wsdialects.runtime.launch import _torch

        torch = _torch()
        flush = torch.empty(_L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda") if flush_l2 else None

        def run():
            if flush is not None:
                flush.zero_()
            fn()

        fn()  # the first launch loads the module; not timed
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            run()
        end.record()
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(end) / 5, 1e-4)
        for _ in range(min(max_runs, int(warmup / estimate))):
            run()
        n = max(1, min(max_runs, int(rep / estimate)))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        for s, e in zip(starts, ends):
            if flush is not None:
                flush.zero_()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        return float(median(s.elapsed_time(e) for s, e in zip(starts, ends)))

    return timer
