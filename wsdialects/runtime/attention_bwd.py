"""Attention training on torch tensors: the forward that also returns LSE, and the backward
as one call that runs its three kernels (wsdialects/runtime/attention_bwd_kernels.py):

    from wsdialects.runtime import attention, attention_backward, attention_forward
    o, lse = attention_forward(q, k, v, causal=True)                 # q, k, v: [B, H, L, d]
    dq, dk, dv = attention_backward(q, k, v, o, lse, do, causal=True)
    attention(q, k, v, causal=True).sum().backward()                 # the same as a torch autograd op

q, k, v, o, do are CUDA tensors of one dtype (float16 or bfloat16), [B, H, L, d] or [B*H, L, d]
(made contiguous where they are not), d 64 or 128; lse is float32, [B, H, L] or [B*H, L], the
row log-sum-exp in log2 units of the scaled scores, as `attention_forward` returns it
(log2(e) times the natural-log LSE that torch's flash kernels keep). sm_scale defaults to
1/sqrt(d). The backward launches

    flash_attention_bwd_preprocess  Delta = rowsum(dO * O), LSE padded  grid (cdiv(L, 128), B*H)
    flash_attention_bwd             dK, dV; dQ^T added into f32 zeros   grid (cdiv(L, 128), B*H)
    flash_attention_bwd_dq          dQ = sm_scale * dQacc^T as q.dtype   grid (cdiv(L, 128), B*H)

on the current stream, each compiled once per (kernel, dtype, d, causal, pipeline, form) and kept
(FORMS: form="atomic" is the first form, dQ by red.global.add, LSE / Delta by pointer loads).
Compiling needs no GPU; launching needs torch and cuda-python (runtime/launch.py).
"""

from __future__ import annotations

import math
import threading

_BLOCK = 128  # the bundled kernels' query and key blocks
_compiled: dict = {}
_lock = threading.Lock()

# The main kernel's organisation, explicit (not the cost model's choice): one consumer partition
# of two warp groups (64 keys each) and a producer, rings of depth 2, one wgmma group in flight,
# one key block per CTA. The model's ping-pong team of two groups does not build on this kernel
# (a 64-query tile is not a two-group accumulator) and its persistent form spills more.
BACKWARD_PIPELINE = "ws-hopper{depth=2 mma-depth=1 cooperative=1 pingpong=false persistent=false ctas-per-sm=1}"
# The backward's forms (attention_bwd_kernels.backward's dq and stats): "tma" adds dQ^T with TMA
# reduce-adds and reads LSE / Delta as TMA boxes of padded rows; "atomic" (the first form) adds dQ
# with red.global.add through pointer tiles and reads LSE / Delta with masked pointer loads.
# "tma-overlap" is "tma" with the five dots issued as FlashAttention-3 orders them, each waited
# for where first needed, "tma-dq-first" is "tma-overlap" with dQ's dot issued before dK's and
# its reduce-add run while dK's dot is in flight ("tma-dq-first-lpt": and the programs of the causal
# kernel in longest-first order, attention_bwd_fragments.lpt_order, heads per group from
# lpt_group), "tma-pairs" with S^T and dP^T, dK and dQ issued in pairs
# (attention_bwd_kernels.backward's overlap); "tma-dq" adds dQ^T by TMA but reads LSE / Delta with
# pointer loads (LSE and Delta need no 1 x 64 TMA boxes, whose second 128-byte block sits inside
# the swizzle pattern).
FORMS = {"tma": {"dq": "tma", "stats": "tma"}, "atomic": {"dq": "atomic", "stats": "ptr"},
         "tma-overlap": {"dq": "tma", "stats": "tma", "overlap": "fa3"},
         "tma-dq-first": {"dq": "tma", "stats": "tma", "overlap": "dq-first"},
         "tma-dq-first-lpt": {"dq": "tma", "stats": "tma", "overlap": "dq-first", "order": "lpt"},
         "tma-pairs": {"dq": "tma", "stats": "tma", "overlap": "pairs"},
         "tma-dq": {"dq": "tma", "stats": "ptr"}}
# the default: FA3's order of the five dots, each waited for where first needed
DEFAULT_FORM = "tma-overlap"


def compiled_kernel(kind: str, dtype: str, d: int, causal: bool = False, pipeline: str = "ws-hopper",
                    form: str = DEFAULT_FORM):
    """The Compiled of kernel `kind` (a key of attention_bwd_kernels.KINDS) in backward form
    `form` (a key of FORMS), made once and kept."""
    from wsdialects.runtime import attention_bwd_kernels as kernels

    causal = causal and kind in ("forward_lse", "backward")
    key = (kind, dtype, d, causal, pipeline, form)
    with _lock:
        hit = _compiled.get(key)
    if hit is None:
        from wsdialects.runtime.compiler import compile_module

        text = kernels.kernel_text(kind, dtype, d, causal, **kernels.form_options(kind, d, **FORMS[form]))
        hit = compile_module(text, pipeline)
        with _lock:
            hit = _compiled.setdefault(key, hit)
    return hit


def forward_launches(q, k, v, o, lse, scale: float) -> list:
    """[(kernel kind, grid, arguments)] of the forward on [B*H, L, d] arrays (torch tensors, or
    numpy arrays for the interpreter): O and LSE ([B*H, L] f32) are written."""
    bh, L, _ = q.shape
    if not (bh and L):
        return []
    return [("forward_lse", (math.ceil(L / _BLOCK), bh), [q, k, v, o, lse, L, scale])]


def scratch_shapes(bh: int, L: int, d: int, form: str = DEFAULT_FORM) -> dict:
    """The shapes of the backward's f32 scratch in form `form`: the padded LSE copy (None where
    the form reads the forward's LSE), Delta, and the dQ accumulator (zeros), which is dQ^T,
    [B*H, d, Lp], where the main kernel reduce-adds dQ^T (Lp: L rounded up to 4)."""
    from wsdialects.runtime.attention_bwd_kernels import dq_is_transposed, padded_length

    f = FORMS[form]
    Lp = padded_length(L)
    rows = (bh, Lp) if f["stats"] == "tma" else (bh, L)
    acc = (bh, d, Lp) if f["dq"] == "tma" and dq_is_transposed(d) else (bh, L, d)
    return {"lsep": rows if f["stats"] == "tma" else None, "delta": rows, "dq_acc": acc}


def backward_launches(q, k, v, do, lse, delta, dq_acc, dq, dk, dv, scale: float, *, o, lsep=None,
                      form: str = DEFAULT_FORM, causal: bool = False, sms: int = 132) -> list:
    """[(kernel kind, grid, arguments)] of the backward on [B*H, L, d] arrays (torch tensors, or
    numpy arrays for the interpreter) in form `form`: lsep, Delta and dQacc (zeros) are the
    kernels' scratch of `scratch_shapes`, dQ, dK, dV are written. A form with the longest-first
    order gets its heads per group for `sms` SMs (causal; 1, the plain order, otherwise)."""
    from wsdialects.runtime.attention_bwd_fragments import lpt_group
    from wsdialects.runtime.attention_bwd_kernels import padded_length

    bh, L, d = q.shape
    if not (bh and L):
        return []
    grid = (math.ceil(L / _BLOCK), bh)
    if FORMS[form]["stats"] == "tma":
        pre = [o, do, lse, lsep, delta, L, padded_length(L)]
        stats = [lsep, delta]
    else:
        pre, stats = [o, do, delta, L], [lse, delta]
    return [("preprocess", grid, pre),
            ("backward", grid, [q, k, v, do, dk, dv, *stats, dq_acc, L, scale] + (
                [lpt_group(bh, L, d, sms) if causal else 1] if FORMS[form].get("order") == "lpt" else [])),
            ("dq_convert", grid, [dq_acc, dq, scale])]


def _check_size(x) -> None:
    """The kernels address [B*H, L, d] (dQacc, LSE, Delta) with 32-bit element offsets."""
    if x.numel() >= 2**31:
        raise ValueError(f"attention kernels take tensors of fewer than 2^31 elements, got {tuple(x.shape)}")


def _dtype_name(torch, t) -> str:
    names = {torch.float16: "f16", torch.bfloat16: "bf16"}
    if t.dtype not in names:
        raise TypeError(f"attention kernels take float16 or bfloat16 tensors, got {t.dtype}")
    return names[t.dtype]


def _heads(x, what: str):
    """x as a contiguous [B*H, L, d] tensor, and the shape to give results back in."""
    if x.dim() == 4:
        return x.contiguous().view(-1, x.shape[2], x.shape[3]), tuple(x.shape)
    if x.dim() == 3:
        return x.contiguous(), tuple(x.shape)
    raise ValueError(f"{what} must be [B, H, L, d] or [B*H, L, d], got shape {tuple(x.shape)}")


def _check_like(ref, x, what: str) -> None:
    if tuple(x.shape) != tuple(ref.shape) or x.dtype != ref.dtype or x.device != ref.device:
        raise ValueError(f"{what} must match q ({tuple(ref.shape)}, {ref.dtype}, {ref.device}), got "
                         f"({tuple(x.shape)}, {x.dtype}, {x.device})")


FORWARD_PIPELINE = "ws-hopper{cooperative=2 pingpong=true}"  # the forward's ping-pong team (bench/attention.py)


def attention_forward(q, k, v, causal: bool = False, sm_scale: float | None = None,
                      pipeline: str = FORWARD_PIPELINE):
    """(O, LSE): softmax(q k^T * sm_scale) v, and the row log-sum-exp in log2 units (float32,
    q's shape without d) that `attention_backward` takes."""
    from wsdialects.runtime.launch import _torch

    torch = _torch()
    dt = _dtype_name(torch, q)
    for x, w in ((k, "k"), (v, "v")):
        _check_like(q, x, w)
    _check_size(q)
    q3, shape = _heads(q, "q")
    k3, _ = _heads(k, "k")
    v3, _ = _heads(v, "v")
    bh, L, d = q3.shape
    scale = 1.0 / math.sqrt(d) if sm_scale is None else float(sm_scale)
    o = torch.empty_like(q3)
    lse = torch.empty((bh, L), dtype=torch.float32, device=q.device)
    for kind, grid, args in forward_launches(q3, k3, v3, o, lse, scale):
        compiled_kernel(kind, dt, d, causal, pipeline)[grid](*args)
    return o.view(shape), lse.view(shape[:-1])


def attention_backward(q, k, v, o, lse, do, causal: bool = False, sm_scale: float | None = None,
                       pipeline: str = BACKWARD_PIPELINE, out=None, form: str = DEFAULT_FORM, main=None):
    """(dQ, dK, dV) of attention at (q, k, v) with output o, LSE `lse` (attention_forward's) and
    output gradient do; `pipeline` compiles the main kernel (the two small ones take ws-hopper),
    `form` (a key of FORMS) chooses how it adds dQ and reads LSE / Delta.
    `out=(dq, dk, dv)`: contiguous tensors like q to write the gradients into (returned).
    `main`: a Compiled launched as the main kernel instead of the generator's compiled with
    `pipeline` (a kernel of the same form and arguments compiled otherwise, e.g. from
    `ws-schedule`'s output: `wsdialects.compile(scheduled_path, "ws-hopper")`)."""
    from wsdialects.runtime.launch import _torch

    torch = _torch()
    dt = _dtype_name(torch, q)
    if form not in FORMS:
        raise ValueError(f"form must be one of {sorted(FORMS)}, got {form!r}")
    for x, w in ((k, "k"), (v, "v"), (o, "o"), (do, "do")):
        _check_like(q, x, w)
    _check_size(q)
    if lse.dtype != torch.float32 or tuple(lse.shape) != tuple(q.shape[:-1]):
        raise ValueError(f"lse must be float32 of shape {tuple(q.shape[:-1])} (attention_forward's), got "
                         f"{lse.dtype} {tuple(lse.shape)}")
    q3, shape = _heads(q, "q")
    k3, _ = _heads(k, "k")
    v3, _ = _heads(v, "v")
    o3, _ = _heads(o, "o")
    do3, _ = _heads(do, "do")
    bh, L, d = q3.shape
    lse2 = lse.contiguous().view(bh, L)
    scale = 1.0 / math.sqrt(d) if sm_scale is None else float(sm_scale)
    if out is None:
        dq, dk, dv = torch.empty_like(q3), torch.empty_like(k3), torch.empty_like(v3)
    else:
        for x, w in zip(out, ("dq", "dk", "dv")):
            _check_like(q, x, f"out's {w}")
            if not x.is_contiguous():
                raise ValueError(f"out's {w} must be contiguous")
        dq, dk, dv = (x.view(bh, L, d) for x in out)
    shapes = scratch_shapes(bh, L, d, form)
    f32 = dict(dtype=torch.float32, device=q.device)
    lsep = torch.empty(shapes["lsep"], **f32) if shapes["lsep"] else None
    delta = torch.empty(shapes["delta"], **f32)
    dq_acc = torch.zeros(shapes["dq_acc"], **f32)
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    for kind, grid, args in backward_launches(q3, k3, v3, do3, lse2, delta, dq_acc, dq, dk, dv, scale, o=o3,
                                              lsep=lsep, form=form, causal=causal, sms=sms):
        if kind == "backward" and main is not None:
            kernel = main
        else:
            kernel = compiled_kernel(kind, dt, d, causal, pipeline if kind == "backward" else "ws-hopper", form)
        kernel[grid](*args)
    return dq.view(shape), dk.view(shape), dv.view(shape)


_function = None


def attention(q, k, v, causal: bool = False, sm_scale: float | None = None):
    """softmax(q k^T * sm_scale) v as a torch autograd op: `attention_forward`, and
    `attention_backward` when a gradient flows back (q, k, v as attention_forward takes them)."""
    global _function
    if _function is None:
        from wsdialects.runtime.launch import _torch

        class Attention(_torch().autograd.Function):
            @staticmethod
            def forward(ctx, q, k, v, causal, sm_scale):
                o, lse = attention_forward(q, k, v, causal=causal, sm_scale=sm_scale)
                ctx.save_for_backward(q, k, v, o, lse)
                ctx.causal, ctx.sm_scale = causal, sm_scale
                return o

            @staticmethod
            def backward(ctx, do):
                q, k, v, o, lse = ctx.saved_tensors
                dq, dk, dv = attention_backward(q, k, v, o, lse, do.contiguous(), causal=ctx.causal,
                                                sm_scale=ctx.sm_scale)
                return dq, dk, dv, None, None

        _function = Attention
    return _function.apply(q, k, v, causal, sm_scale)


backward = attention_backward
forward = attention_forward
