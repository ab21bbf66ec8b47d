"""The same @triton.jit source compiled by Triton and by us (`wsdialects.compile(fn)`: Triton's
TTIR imported, ws-hopper), and our hand-written `tile` kernel of the same algorithm (same
pipeline, same inputs), one GPU run: the example kernels of examples/triton/.

- GEMM (gemm_desc, host descriptors; also the pointer GEMM with GROUP_M and the persistent
  GEMM): M = N = 8192, fp16, 128 x 256 x 64 tiles, 8 warps. Hand-written:
  examples/kernels/gemm.mlir (A [M, K] and B [N, K] through descriptors, C = A @ B^T through a
  pointer tile), ws-hopper; for the persistent row ws-hopper{persistent=true}.
- Attention forward (attention_desc, device-side descriptors, the tutorial's algorithm):
  B 4, H 32, d 128, causal and not, fp16 and bf16, 128 x 128 tiles, 8 warps. Hand-written:
  examples/kernels/flash_attention.mlir / flash_attention_bf16.mlir / flash_attention_causal.mlir
  (its bf16 run renames the element type, as bench/attention.py does), 3-D descriptors over the
  same q, k, v viewed as [B*H, L, d].
- Attention forward with block pointers (attention_block_ptr, `tl.make_block_ptr` /
  `tl.advance`, K^T read through a block pointer of order (0, 1)): the same B, H, d, not causal
  (the example has no causal form), fp16 and bf16, 128 x 64 tiles, 8 warps; hand-written
  flash_attention.mlir / flash_attention_bf16.mlir as above. Triton 3.9 removed block pointers:
  with it installed both its compile and ours (which starts from Triton's TTIR) are skipped.

The default sizes are K = 256, 1024, 4096, 16384 and L = 1024, 4096, 16384 (ends and middle of
the issue's ranges), so that the whole default run (12 GEMM rows, 12 attention rows and 6
block-pointer attention rows, each compiled and timed three ways) fits in about eight minutes on
an H200; --ks / --ls take any list.

Correctness first: every result is compared with torch (float32) on the same inputs; a
relative error above 1e-2 prints WRONG and that kernel is not timed. A kernel that we cannot
compile yet is skipped with its reason (the compile error), never a crash. Timing is
wsdialects.runtime.bench.cuda_timer (CUDA events, L2 flushed, median), the same for all three,
in --rounds rounds of rotating order (the median of the rounds);
only the launch is timed (arguments built once). Prints a table of TFLOP/s, ours / Triton and
ours / hand-written, then footnotes saying which hand-written kernel each row compares with.

    python bench/triton_frontend.py [--ks 256,1024] [--ls 1024,4096] [--dtypes fp16,bf16] [--causal 0,1]
                                    [--only gemm_desc,attention_desc,attention_block_ptr] [--no-hand]
                                    [--rounds 3] [--out FILE.md]
    python bench/triton_frontend.py --dry-run    # the cases and their kernels; needs no torch, triton or GPU

Needs a Hopper GPU, torch, cuda-python and triton: pip install -e '.[gpu,triton]'.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402
from wsdialects.diagnostics import WsError  # noqa: E402

EXAMPLES = ROOT / "examples" / "triton"
HAND = ROOT / "examples" / "kernels"
GEMMS = ("gemm_desc", "gemm_pointer", "gemm_persistent")
ATTENTIONS = ("attention_desc", "attention_block_ptr")
BLOCK_POINTERS = ("attention_block_ptr",)  # families Triton compiles only before 3.9
KNOWN = GEMMS + ATTENTIONS
MN = 8192  # M = N of the GEMMs
BM, BN, BK = 128, 256, 64  # the GEMM tiles (gemm.mlir's)
B, H, D, BLOCK = 4, 32, 128, 128  # attention: batch, heads, head dim, the tile of both loops
BLOCK_N_BP = 64  # attention_block_ptr's BLOCK_N (its BLOCK_M is BLOCK)
TOL = 1e-2


@dataclass(frozen=True)
class Hand:
    """Our hand-written `tile` kernel for a case: its file, the pipeline, the element type it runs
    in ('bf16' renames an f16 file's element type), its grid and its arguments. An argument
    that is a str names one of the case's tensors (`materialize` makes them); a number is
    passed as it is."""

    path: Path
    pipeline: str
    dtype: str
    grid: tuple
    args: tuple

    @property
    def key(self) -> tuple:
        return (self.path, self.pipeline, self.dtype)

    def source(self) -> str:
        text = self.path.read_text()
        return text.replace("xf16", "xbf16") if self.dtype == "bf16" else text

    def compile(self):
        """The wsdialects.Compiled of this kernel (diagnostics name its file)."""
        text = self.source()
        renamed = text != self.path.read_text()
        return wsdialects.compile(wsdialects.parse(text, str(self.path)) if renamed else str(self.path),
                                  pipeline=self.pipeline)

    def describe(self) -> str:
        rel = self.path.relative_to(ROOT)
        as_bf16 = " as bf16" if self.dtype == "bf16" and "xbf16" not in self.path.read_text() else ""
        args = ", ".join(a if isinstance(a, str) else repr(a) for a in self.args)
        return f"{rel}{as_bf16} [{self.pipeline}] grid {self.grid} ({args})"


@dataclass(frozen=True)
class Case:
    """One row: the example kernel (examples/triton/<family>.py, function `kernel`), its
    problem (`params`), its FLOPs and the hand-written kernel of the same algorithm (or None)."""

    family: str
    kernel: str
    label: str
    flops: int
    params: dict
    hand: Hand | None

    def describe(self) -> str:
        hand = f"; hand-written {self.hand.describe()}" if self.hand else ""
        return f"{self.family} {self.label}: examples/triton/{self.family}.py:{self.kernel} by Triton and by us{hand}"


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def plan(ks, ls, dtypes, causals, only, hand=True) -> list[Case]:
    """The cases of a run, in order; needs neither torch nor triton."""
    cases = []
    tiles = cdiv(MN, BM) * cdiv(MN, BN)
    for K in ks:
        for fam in GEMMS:
            if fam not in only:
                continue
            h = None
            if hand:  # the persistent row: our ws-persistent on the same kernel; the others: plain ws-hopper
                pipe = "ws-hopper{persistent=true}" if fam == "gemm_persistent" else "ws-hopper"
                h = Hand(HAND / "gemm.mlir", pipe, "fp16", (tiles,), ("a", "bt", "c", MN, MN, K, MN))
            cases.append(Case(fam, f"{fam}_kernel", f"K={K}", 2 * MN * MN * K, {"K": K}, h))
    for fam in ATTENTIONS:
        if fam not in only:
            continue
        for dtype in dtypes:
            for causal in causals:
                if causal and fam in BLOCK_POINTERS:
                    continue  # the block-pointer example is not causal
                for L in ls:
                    h = None
                    if hand:
                        name = "flash_attention_causal" if causal else (
                            "flash_attention_bf16" if dtype == "bf16" else "flash_attention")
                        h = Hand(HAND / f"{name}.mlir", "ws-hopper", dtype, (cdiv(L, BLOCK), B * H),
                                 ("q3", "k3", "v3", "o3", L, D ** -0.5))
                    label = f"{dtype} {'causal' if causal else 'full'} L={L}"
                    flops = 4 * B * H * L * L * D // (2 if causal else 1)
                    cases.append(Case(fam, f"{fam}_kernel", label, flops, {"dtype": dtype, "causal": causal, "L": L},
                                      h))
    return cases


def footnotes(cases: list[Case]) -> list[str]:
    """What each family's hand-written column is, for the families in `cases`."""
    fams = {c.family for c in cases if c.hand}
    notes = []
    if fams & {"gemm_desc", "gemm_persistent"}:
        notes.append("gemm_desc, gemm_persistent: the same product as the hand-written gemm.mlir, C = A @ B^T with "
                     "A [M, K] and B [N, K] through descriptors; the imported kernels store C through a descriptor, "
                     "gemm.mlir through a masked pointer tile.")
    if "gemm_persistent" in fams:
        notes.append("gemm_persistent: its hand-written column is gemm.mlir (not persistent as written) compiled with "
                     "`ws-hopper{persistent=true}`, so our pass makes it persistent; the imported kernel's "
                     "persistent tile loop is the user's (`tl.range(start, tiles, NUM_SMS)`), compiled with ws-hopper.")
    if "gemm_pointer" in fams:
        notes.append("gemm_pointer: not the same layout. The imported kernel reads B as [K, N] row-major "
                     "(b = B^T made contiguous, C = A @ b) through pointer tiles with K masks and the L2-grouped "
                     "tile order (GROUP_M = 8); its hand-written column is gemm.mlir with plain `ws-hopper`, which "
                     "reads the same values as B [N, K] through descriptors, tiles in column-major order.")
    if "attention_desc" in fams:
        notes.append("attention_desc: the imported kernel makes 2-D device-side descriptors over [B*H*L, d]; the "
                     "hand-written flash_attention*.mlir take the same q, k, v, o as [B*H, L, d] 3-D descriptors, "
                     "plain `ws-hopper`; bf16 causal is flash_attention_causal.mlir with its element type renamed.")
    if "attention_block_ptr" in fams:
        notes.append("attention_block_ptr: block pointers over (B, H, L, d) with strides, K^T read through an "
                     f"order-(0, 1) block pointer, {BLOCK} x {BLOCK_N_BP} tiles (ws-tma-load turns its loads into TMA "
                     f"loads of the whole tensors, K's box transposed); the hand-written flash_attention*.mlir take "
                     f"the same q, k, v, o as [B*H, L, d] 3-D descriptors with {BLOCK} x {BLOCK} tiles.")
    return notes


def example(name):
    spec = importlib.util.spec_from_file_location(f"examples_triton_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rel_err(out, ref) -> float:
    out, ref = out.double(), ref.double()
    if out.isnan().any():
        return float("inf")
    return ((out - ref).norm() / ref.norm()).item()


@dataclass
class Run:
    """A case on the GPU: its tensors (by the names Hand.args uses), the launch of the imported
    kernel object (Triton's function or ours), the output all three write, the torch
    reference and the part of the output compared with it."""

    tensors: dict
    launch: object
    output: object
    reference: object
    checked: object


def materialize(case: Case, torch, triton, sms: int) -> Run:
    from triton.tools.tensor_descriptor import TensorDescriptor

    if case.family in GEMMS:
        K = case.params["K"]
        torch.manual_seed(K)
        a = torch.randn(MN, K, device="cuda", dtype=torch.float16)
        bt = torch.randn(MN, K, device="cuda", dtype=torch.float16)
        c = torch.empty(MN, MN, device="cuda", dtype=torch.float16)
        t = {"a": a, "bt": bt, "c": c}
        grid = lambda META: (triton.cdiv(MN, META["BLOCK_M"]) * triton.cdiv(MN, META["BLOCK_N"]),)  # noqa: E731
        meta = dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=8)
        if case.family == "gemm_pointer":
            b = bt.T.contiguous()
            t["b"] = b
            launch = lambda k: k[grid](a, b, c, MN, MN, K, K, 1, MN, 1, MN, 1, GROUP_M=8, **meta)  # noqa: E731
        else:
            d = [TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(bt, [BN, BK]),
                 TensorDescriptor.from_tensor(c, [BM, BN])]
            if case.family == "gemm_desc":
                launch = lambda k: k[grid](*d, MN, MN, K, **meta)  # noqa: E731
            else:
                progs = min(sms, cdiv(MN, BM) * cdiv(MN, BN))
                launch = lambda k: k[(progs,)](*d, MN, MN, K, NUM_SMS=sms, **meta)  # noqa: E731
        return Run(t, launch, c, lambda: a.float() @ bt.float().T, lambda: c)
    p = case.params
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
    L, causal, scale = p["L"], p["causal"], D ** -0.5
    torch.manual_seed(L)
    q, k, v = (torch.randn(B, H, L, D, device="cuda", dtype=dtype) for _ in range(3))
    o = torch.empty_like(q)
    t = {"q3": q.view(B * H, L, D), "k3": k.view(B * H, L, D), "v3": v.view(B * H, L, D), "o3": o.view(B * H, L, D)}

    def ref():  # the first two heads of batch 0, in float32
        return torch.nn.functional.scaled_dot_product_attention(
            q[:1, :2].float(), k[:1, :2].float(), v[:1, :2].float(), is_causal=causal, scale=scale)

    grid = (triton.cdiv(L, BLOCK), B * H)
    if case.family == "attention_block_ptr":
        strides = (*q.stride(), *k.stride(), *v.stride(), *o.stride())
        launch = lambda kern: kern[grid](q, k, v, o, scale, *strides, H, L, HEAD_DIM=D,  # noqa: E731
                                         BLOCK_M=BLOCK, BLOCK_N=BLOCK_N_BP, num_warps=8)
    else:
        launch = lambda kern: kern[grid](q, k, v, o, scale, B, H, N_CTX=L, HEAD_DIM=D,  # noqa: E731
                                         BLOCK_M=BLOCK, BLOCK_N=BLOCK, CAUSAL=causal, num_warps=8)
    return Run(t, launch, o, ref, lambda: o[:1, :2])


def hand_launch(hand: Hand, compiled, run: Run):
    args = [run.tensors[a] if isinstance(a, str) else a for a in hand.args]
    return lambda: compiled[hand.grid](*args)


def csv(kind):
    def parse(text: str) -> list:
        try:
            return [kind(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of {kind.__name__}, got {text!r}")
    return parse


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ks", type=csv(int), default="256,1024,4096,16384")
    ap.add_argument("--ls", type=csv(int), default="1024,4096,16384")
    ap.add_argument("--dtypes", type=csv(str), default="fp16,bf16")
    ap.add_argument("--causal", type=csv(int), default="0,1")
    ap.add_argument("--only", type=csv(str), default=",".join(KNOWN))
    ap.add_argument("--rounds", type=int, default=3, help="timings of each kernel per case, in rotating order; "
                    "the median is reported")
    ap.add_argument("--no-hand", action="store_true", help="leave out the hand-written column")
    ap.add_argument("--dry-run", action="store_true", help="print the cases and their kernels, run nothing")
    ap.add_argument("--out", help="also write the table to this markdown file")
    args = ap.parse_args(argv)
    for name, given, known in (("--only", args.only, KNOWN), ("--dtypes", args.dtypes, ("fp16", "bf16")),
                               ("--causal", args.causal, (0, 1))):
        bad = [x for x in given if x not in known]
        if args.rounds < 1:
            ap.error(f"--rounds: needs at least 1, got {args.rounds}")
        if bad:
            ap.error(f"{name}: unknown {', '.join(map(str, bad))} (known: {', '.join(map(str, known))})")
    return args


def cell(x) -> str:
    return f"{x:.0f}" if isinstance(x, float) else str(x).replace("|", "\\|")


def main(argv=None) -> int:
    args = parse_args(argv)
    cases = plan(args.ks, args.ls, args.dtypes, [bool(c) for c in args.causal], set(args.only), not args.no_hand)
    if args.dry_run:
        for c in cases:
            print(c.describe())
        print(f"{len(cases)} cases")
        return 0
    try:
        import torch
        import triton
    except ImportError as e:
        print(f"triton_frontend: needs torch and triton ({e}): pip install -e '.[gpu,triton]'", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("triton_frontend: no CUDA GPU here", file=sys.stderr)
        return 2
    from wsdialects.runtime.bench import cuda_timer

    started = time.monotonic()
    timer = cuda_timer(warmup=25, rep=max(20, 100 // max(1, args.rounds)))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    hand_col = not args.no_hand
    block_pointers = tuple(int(x) for x in triton.__version__.split(".")[:2]) < (3, 9)
    whos = ("triton", "ours", "hand") if hand_col else ("triton", "ours")
    head = "| kernel | case | Triton TFLOP/s | ours TFLOP/s |" + (" hand-written TFLOP/s |" if hand_col else "")
    head += " ours / Triton |" + (" ours / hand-written |" if hand_col else "")
    lines = [f"# The same @triton.jit source: Triton {triton.__version__} vs wsdialects (ws-hopper)"
             + (" vs our hand-written tile kernel" if hand_col else "") + f", {torch.cuda.get_device_name(0)}", "",
             head, "|---|---|---|---|" + "---|" * (len(whos) - 1 + (1 if hand_col else 0))]
    print("\n".join(lines), flush=True)
    fns: dict = {}
    ours_of: dict = {}
    refused: dict = {}  # imported kernel name -> why ws-hopper does not compile it
    hand_of: dict = {}  # Hand.key -> Compiled, or why it does not compile
    for case in cases:
        if case.kernel not in fns:
            fns[case.kernel] = getattr(example(case.family), case.kernel)  # defined with any Triton; compiled lazily
            ours_of[case.kernel] = wsdialects.compile(fns[case.kernel])
        run = materialize(case, torch, triton, sms)
        kerns = {"triton": lambda run=run: run.launch(fns[case.kernel]),
                 "ours": lambda run=run: run.launch(ours_of[case.kernel])}
        results: dict = {}
        if case.family in BLOCK_POINTERS and not block_pointers:
            gone = f"skipped (block pointers are gone from triton {triton.__version__}; Triton 3.4 to 3.8 has them)"
            results["triton"] = results["ours"] = gone
        if case.kernel in refused:
            results["ours"] = f"skipped (ws-hopper does not compile it yet: {refused[case.kernel]})"
        if hand_col and case.hand is not None:
            if case.hand.key not in hand_of:
                try:
                    hand_of[case.hand.key] = case.hand.compile()
                except Exception as e:  # noqa: BLE001 - a kernel that does not compile is a cell, not the end
                    hand_of[case.hand.key] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            got = hand_of[case.hand.key]
            if isinstance(got, str):
                results["hand"] = f"skipped (does not compile: {got})"
            else:
                kerns["hand"] = hand_launch(case.hand, got, run)
        ref = run.reference()
        for who in whos:
            if who in results or who not in kerns:
                continue
            run.output.fill_(float("nan"))
            try:
                kerns[who]()
                torch.cuda.synchronize()
            except WsError as e:
                if who != "ours":  # only our compile of the imported kernel happens at a launch
                    results[who] = f"FAILED (WsError: {str(e).splitlines()[0]})"
                    continue
                # our compile of the imported kernel, at its first launch: this kernel's later rows skip it
                refused[case.kernel] = str(e).splitlines()[0]
                results[who] = f"skipped (ws-hopper does not compile it yet: {refused[case.kernel]})"
                continue
            except Exception as e:  # noqa: BLE001 - one kernel's failure is a cell, not the end of the run
                results[who] = f"FAILED ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
                traceback.print_exc(file=sys.stderr)
                continue
            err = rel_err(run.checked(), ref)
            results[who] = err if err < TOL else f"WRONG (rel. error {err:.2e})"
        del ref
        # rounds in rotating order (round r starts with the r-th kernel), the median of each kernel's
        # rounds: the same kernel timed twice in one run differs by a few percent with the clocks'
        # state, which a single ordered measurement would put into the ratio
        timed = [who for who in whos if isinstance(results.get(who), float)]
        samples: dict = {who: [] for who in timed}
        for r in range(args.rounds if timed else 0):
            for who in timed[r % len(timed):] + timed[:r % len(timed)]:
                if who not in samples:
                    continue
                try:
                    samples[who].append(case.flops / timer(kerns[who]) / 1e9)
                except Exception as e:  # noqa: BLE001
                    results[who] = f"FAILED timing ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
                    traceback.print_exc(file=sys.stderr)
                    del samples[who]
        tflops = {who: statistics.median(got) for who, got in samples.items()}
        ratio = lambda x, y: f"{tflops[x] / tflops[y]:.3f}" if x in tflops and y in tflops else "-"  # noqa: E731
        cells = [cell(tflops.get(who, results.get(who, "-"))) for who in whos]
        line = f"| {case.family} | {case.label} | " + " | ".join(cells) + f" | {ratio('ours', 'triton')} |"
        if hand_col:
            line += f" {ratio('ours', 'hand')} |"
        lines.append(line)
        print(line, flush=True)
        del run, kerns
    notes = [""] + [f"{i}. {n}" for i, n in enumerate(footnotes(cases), 1)] if hand_col else []
    notes += ["", f"Whole run: {time.monotonic() - started:.0f} s."]
    print("\n".join(notes), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines + notes) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
