"""Grouped GEMM (Mixture-of-Experts layers) on torch tensors, one persistent launch for all
groups (the kernel: wsdialects/runtime/grouped_gemm_kernels.py):

    from wsdialects.runtime import grouped_gemm
    c = grouped_gemm(a, b, offs)          # a [sum M_g, K], b [G, N, K], offs int32 [G] -> c [sum M_g, N]
    cs = grouped_gemm([a0, a1, a2], [b0, b1, b2])   # a_g [M_g, K_g], b_g [N_g, K_g] -> [c_g [M_g, N_g]]

The first form is `torch._grouped_mm(a, b.transpose(-2, -1), offs)`: the tokens of all experts
in one tensor, `offs[g]` the cumulative end row of group g (non-decreasing, at most a.shape[0];
empty groups allowed), kept on the device: nothing waits for the host, and no descriptor is made
per group (grouped_gemm_kernels.grouped_mm; a program walks the groups in turn, and a tile
that lies in its group is written by a TMA store, the group's last tile by a masked store). C[rows of g] = A[rows of g] @ B[g]^T, fp32
accumulation, a's dtype out (float16 or bfloat16). The list form takes separate tensors, each
group its own M_g, N_g and K_g (rows of a multiple of 16 bytes): the launch builds one TMA
descriptor per group and operand into an array (`!tile.descs`, grouped_gemm_kernels.grouped_list)
and C_g is written by a TMA store its own descriptor clips; nothing is copied.

The kernel is compiled once per (dtype, pipeline) and launched on the current stream with one
program per SM. Compiling needs no GPU; launching needs torch and cuda-python (runtime/launch.py).
"""

from __future__ import annotations

import threading

PIPELINE = "ws-hopper{cooperative=2 pingpong=true}"  # the GEMM's ping-pong team (bench/grouped_gemm.py)
_compiled: dict = {}
_lock = threading.Lock()


def compiled_kernel(dtype: str, pipeline: str = PIPELINE, form=None):
    """The Compiled grouped GEMM kernel for dtype 'f16' or 'bf16' in `form` (a name of
    grouped_gemm_kernels.FORMS or a Form; None: its DEFAULT), made once and kept."""
    from wsdialects.runtime import grouped_gemm_kernels as kernels

    f = kernels.form(form)
    key = (dtype, pipeline, f)
    with _lock:
        hit = _compiled.get(key)
    if hit is None:
        from wsdialects.runtime.compiler import compile_module

        hit = compile_module(kernels.grouped_mm(dtype, form_=f), pipeline)
        with _lock:
            hit = _compiled.setdefault(key, hit)
    return hit


def compiled_list_kernel(dtype: str, pipeline: str = PIPELINE):
    """The Compiled descriptor-array kernel (`grouped_gemm([a_g], [b_g])`), made once and kept."""
    from wsdialects.runtime import grouped_gemm_kernels as kernels

    key = ("list", dtype, pipeline)
    with _lock:
        hit = _compiled.get(key)
    if hit is None:
        from wsdialects.runtime.compiler import compile_module

        hit = compile_module(kernels.grouped_list(dtype), pipeline)
        with _lock:
            hit = _compiled.setdefault(key, hit)
    return hit


def launches(a, b, offs, c, num_programs: int, form=None) -> list:
    """[(grid, arguments)] of the grouped GEMM in `form` on a [S, K], b [G, N, K], offs [G], c [S, N]
    (torch tensors, or numpy arrays for the interpreter); c is written (rows of no group are not)."""
    from wsdialects.runtime.grouped_gemm_kernels import arguments

    S, K = a.shape
    G, N, _ = b.shape
    if not (S and G and N):
        return []
    return [(max(1, num_programs), arguments(a, b, c, offs, G, S, N, K, form))]


def _dtype_name(torch, t) -> str:
    names = {torch.float16: "f16", torch.bfloat16: "bf16"}
    if t.dtype not in names:
        raise TypeError(f"grouped_gemm takes float16 or bfloat16 tensors, got {t.dtype}")
    return names[t.dtype]


def _check(torch, a, b, offs) -> None:
    if a.dim() != 2:
        raise ValueError(f"a must be [sum M_g, K], got shape {tuple(a.shape)}")
    if b.dim() != 3:
        raise ValueError(f"b must be [G, N, K], got shape {tuple(b.shape)}")
    if b.dtype != a.dtype or b.device != a.device:
        raise ValueError(f"b must have a's dtype and device ({a.dtype}, {a.device}), got ({b.dtype}, {b.device})")
    if b.shape[2] != a.shape[1]:
        raise ValueError(f"a is [{a.shape[0]}, {a.shape[1]}] but b is {list(b.shape)}: K differs")
    if offs.dtype != torch.int32 or offs.dim() != 1 or offs.shape[0] != b.shape[0] or offs.device != a.device:
        raise ValueError(f"offs must be int32 [G] = [{b.shape[0]}] on {a.device}, got {offs.dtype} "
                         f"{list(offs.shape)} on {offs.device}")
    if (a.shape[1] * a.element_size()) % 16:
        raise ValueError(f"K = {a.shape[1]}: rows of a and b must be a multiple of 16 bytes (TMA); "
                         f"pad K to a multiple of {16 // a.element_size()}")
    if a.shape[0] * b.shape[1] >= 2**31 or b.numel() >= 2**31 or a.numel() >= 2**31:
        raise ValueError("grouped_gemm takes tensors of fewer than 2^31 elements (32-bit offsets in the kernel), "
                         f"got a {list(a.shape)}, b {list(b.shape)}")


def grouped_gemm(a, b, offs=None, *, out=None, pipeline: str = PIPELINE, num_programs: int | None = None,
                 form=None):
    """C = the grouped product (module docstring): `grouped_gemm(a, b, offs)` with a [sum M_g, K],
    b [G, N, K], offs int32 [G] gives c [sum M_g, N] (`out=`: a contiguous tensor to write it into;
    rows past offs[-1] are left as they are); `grouped_gemm([a_g], [b_g])` (or b [G, N, K]) gives
    [c_g] (`out=`: a list of tensors [M_g, N_g] to write them into).
    `num_programs` defaults to the number of SMs; `form` picks how the first form's kernel walks
    and stores its tiles (grouped_gemm_kernels.FORMS; None: its DEFAULT)."""
    from wsdialects.runtime.launch import _torch

    torch = _torch()
    if isinstance(a, (list, tuple)):
        return _grouped_list(torch, list(a), b, out, pipeline, num_programs)
    if offs is None:
        raise TypeError("grouped_gemm(a, b, offs): a [sum M_g, K] needs the int32 offsets of the groups")
    if isinstance(b, (list, tuple)):
        b = torch.stack(list(b))
    _check(torch, a, b, offs)
    dt = _dtype_name(torch, a)
    a, b = a.contiguous(), b.contiguous()
    if out is None:
        out = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
    elif tuple(out.shape) != (a.shape[0], b.shape[1]) or out.dtype != a.dtype or not out.is_contiguous():
        raise ValueError(f"out must be a contiguous {a.dtype} [{a.shape[0]}, {b.shape[1]}], got {out.dtype} "
                         f"{list(out.shape)}")
    if num_programs is None:
        num_programs = torch.cuda.get_device_properties(a.device).multi_processor_count
    form = _store_form(form, out)
    kernel = compiled_kernel(dt, pipeline, form)
    for grid, args in launches(a, b, offs, out, num_programs, form):
        kernel[grid](*args)
    return out


def _store_form(form, out):
    """`form`, or its masked-store sibling where TMA cannot take C (rows not a multiple of 16
    bytes, or a base not 16-byte aligned): the TMA store's descriptor could not be built."""
    from dataclasses import replace

    from wsdialects.runtime.grouped_gemm_kernels import form as form_of

    f = form_of(form)
    if f.store == "tma" and ((out.shape[1] * out.element_size()) % 16 or out.data_ptr() % 16):
        return replace(f, store="masked")
    return f


def list_launches(a_list, b_list, c_list, sizes, num_programs: int) -> list:
    """[(grid, arguments)] of the grouped GEMM over separate tensors (a_g [M_g, K_g], b_g [N_g, K_g],
    c_g [M_g, N_g]; `sizes` the int32 [G, 3] of (M_g, N_g, K_g)): torch tensors, or numpy arrays for
    the interpreter."""
    if not a_list:
        return []
    return [(max(1, num_programs), [list(a_list), list(b_list), list(c_list), sizes, len(a_list)])]


_sizes: dict = {}  # (sizes, device) -> the int32 [G, 3] device tensor (a repeated launch reuses it)


def _sizes_tensor(torch, sizes: tuple, device):
    key = (sizes, str(device))
    hit = _sizes.get(key)
    if hit is None:
        if len(_sizes) > 64:
            _sizes.clear()
        hit = _sizes[key] = torch.tensor(sizes, dtype=torch.int32).to(device)
    return hit


def _grouped_list(torch, a_list, b, out, pipeline, num_programs):
    """The list form: one descriptor per group and operand (`!tile.descs`, built at the launch),
    every group its own M_g, N_g and K_g; nothing is copied."""
    if not a_list:
        raise ValueError("grouped_gemm: the list of a's is empty")
    b_list = list(b) if isinstance(b, (list, tuple)) or (hasattr(b, "dim") and b.dim() == 3) else None
    if b_list is None or len(b_list) != len(a_list):
        raise ValueError(f"grouped_gemm: {len(a_list)} a's need {len(a_list)} b's (a list, or a [G, N, K] tensor)")
    dt = _dtype_name(torch, a_list[0])
    es = a_list[0].element_size()
    sizes = []
    for g, (x, w) in enumerate(zip(a_list, b_list)):
        if x.dtype != a_list[0].dtype or w.dtype != a_list[0].dtype or x.device != a_list[0].device \
                or w.device != a_list[0].device:
            raise ValueError(f"grouped_gemm: a[{g}] and b[{g}] must have a[0]'s dtype and device")
        if x.dim() != 2 or w.dim() != 2 or x.shape[1] != w.shape[1]:
            raise ValueError(f"grouped_gemm: group {g}: a [M, K] and b [N, K] with one K, got {list(x.shape)} "
                             f"and {list(w.shape)}")
        (m, k), n = x.shape, w.shape[0]
        if (k * es) % 16 or (n * es) % 16:
            raise ValueError(f"grouped_gemm: group {g}: K = {k} and N = {n} must make rows of a multiple of 16 "
                             f"bytes (TMA): multiples of {16 // es}")
        sizes.append((m, n, k))
    if out is None:
        out = [torch.empty((m, n), dtype=a_list[0].dtype, device=a_list[0].device) for m, n, _ in sizes]
    elif [tuple(c.shape) for c in out] != [(m, n) for m, n, _ in sizes]:
        raise ValueError(f"grouped_gemm: out must be tensors of shapes {[(m, n) for m, n, _ in sizes]}")
    if num_programs is None:
        num_programs = torch.cuda.get_device_properties(a_list[0].device).multi_processor_count
    size_t = _sizes_tensor(torch, tuple(sizes), a_list[0].device)
    kernel = compiled_list_kernel(dt, pipeline)
    a_c = [x if x.stride(-1) == 1 else x.contiguous() for x in a_list]
    b_c = [w if w.stride(-1) == 1 else w.contiguous() for w in b_list]
    for grid, args in list_launches(a_c, b_c, out, size_t, num_programs):
        kernel[grid](*args)
    return out
