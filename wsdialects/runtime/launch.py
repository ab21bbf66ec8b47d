"""Loading PTX and launching kernels through cuda-python's driver API on torch tensors.

Compiling needs neither package; launching without one of them raises `MissingDependency`
(an ImportError) that names what to install, e.g.

    wsdialects.runtime.launch.MissingDependency: launching a kernel needs torch (with CUDA),
    which is not installed here: pip install 'wsdialects[gpu]' (compiling needs neither)
"""

from __future__ import annotations

import ctypes
import importlib
import struct
import sys

from wsdialects.lower.to_llvm import KernelInfo


class _Built:
    """A kernel argument the launch built itself (a descriptor's device address)."""

    __slots__ = ("address",)

    def __init__(self, address: int):
        self.address = address


class StridedView:
    """A tensor argument given as a torch tensor `base` and the shape and strides (in elements)
    of the view of it that the kernel takes: `base.as_strided(shape, strides)`, made by the
    launcher only when it checks a launch it has not seen (a launch seen before needs only the
    base's address, dtype and device). The Triton launcher passes a host TensorDescriptor's
    tensor this way:

        launcher[grid](StridedView(a, (M, K), (K, 1)), M, K, K, 1, ...)
    """

    __slots__ = ("base", "shape", "strides")

    def __init__(self, base, shape: tuple, strides: tuple):
        self.base, self.shape, self.strides = base, tuple(shape), tuple(strides)

    def __repr__(self) -> str:
        return f"StridedView(shape={self.shape}, strides={self.strides})"

    def view(self, torch):
        """The torch view (the base itself where it is not a torch tensor: the checks then say why)."""
        if isinstance(self.base, torch.Tensor):
            return self.base.as_strided(self.shape, self.strides)
        return self.base


def _identity(torch, grid, args):
    """A hashable identity of a launch's grid and arguments (tensors by address, shape, strides,
    dtype and device, a StridedView as the view it stands for; numbers by type and value), or
    None where an argument has none."""
    key = [grid]
    for x in args:
        if isinstance(x, torch.Tensor):
            key.append((x.data_ptr(), x.shape, x.stride(), x.dtype, x.device))
        elif type(x) is StridedView and isinstance(x.base, torch.Tensor):
            b = x.base  # as_strided keeps the base's storage offset: the view's address is the base's
            key.append((b.data_ptr(), x.shape, x.strides, b.dtype, b.device))
        elif isinstance(x, (int, float)):
            key.append((type(x), x))
        elif isinstance(x, (list, tuple)) and all(isinstance(t, torch.Tensor) for t in x):  # a !tile.descs list
            key.append(tuple((t.data_ptr(), t.shape, t.stride(), t.dtype, t.device) for t in x))
        else:
            return None
    return tuple(key)


def _params_block(vals: tuple, types: tuple):
    """(the address of a `void*[]` of pointers to each value stored as its ctypes type, what keeps
    that memory alive): cuLaunchKernel's kernelParams, built once per prepared launch instead of
    by cuda-python at every call (the driver copies the values at the launch)."""
    if not vals:
        return None, None
    cells = tuple(t(v) for v, t in zip(vals, types))
    ptrs = (ctypes.c_void_p * len(cells))(*(ctypes.addressof(c) for c in cells))
    return ctypes.addressof(ptrs), (cells, ptrs)


class LaunchError(RuntimeError):
    pass


_INT_CTYPES = {8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32, 64: ctypes.c_int64}
_FLOAT_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double}


def pack_scalar(dtype: str, x) -> tuple[int | float, type]:
    """(value, ctypes type) of the Python number `x` for a scalar parameter of type `dtype`
    (i8 ... i64, f32, f64); ValueError saying why not: the wrong kind of value
    (`scalar_args`: a float for i32 is refused, not truncated), a value that does not fit, or a
    type the launcher does not pass."""
    from wsdialects.scalar_args import scalar_problem

    problem = scalar_problem(dtype, x)
    if problem is not None:
        raise ValueError(problem)
    bits = int(dtype[1:]) if dtype[:1] == "i" and dtype[1:].isdigit() else None
    if bits in _INT_CTYPES:
        x = int(x)
        if not -(1 << (bits - 1)) <= x < (1 << bits):
            raise ValueError(f"{x} does not fit {dtype}")
        return x, _INT_CTYPES[bits]
    if dtype in _FLOAT_CTYPES:
        return float(x), _FLOAT_CTYPES[dtype]
    raise ValueError(f"scalar arguments of type {dtype} are not supported by the launcher")


class MissingDependency(LaunchError, ImportError):
    """A package the GPU runtime needs (torch, cuda-python) is not installed."""


def install_hint(package: str) -> str:
    """The command that installs `package` for the runtime: the `gpu` extra where the
    installed wsdialects has one, else the package itself."""
    try:
        from importlib.metadata import metadata

        extras = metadata("wsdialects").get_all("Provides-Extra") or []
    except Exception:  # noqa: BLE001 - not installed as a distribution
        extras = []
    return "pip install 'wsdialects[gpu]'" if "gpu" in extras else f"pip install {package}"


def _require(modules: tuple[str, ...], package: str):
    """The first of `modules` that imports; MissingDependency naming `package` if none does."""
    for name in modules:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    what = "torch (with CUDA)" if package == "torch" else package
    raise MissingDependency(f"launching a kernel needs {what}, which is not installed here: "
                            f"{install_hint(package)} (compiling needs neither torch nor cuda-python)")


def _torch():
    # sys.modules first: a launch asks at every call, and an imported module is there (a test's
    # None there, standing for a missing package, goes on to _require, which names it)
    return sys.modules.get("torch") or _require(("torch",), "torch")


def _drv():
    # cuda-python 12.6+ has cuda.bindings.driver; older releases cuda.cuda
    return (sys.modules.get("cuda.bindings.driver") or sys.modules.get("cuda.cuda")
            or _require(("cuda.bindings.driver", "cuda.cuda"), "cuda-python"))


def _check(res, what: str):
    err = res[0] if isinstance(res, tuple) else res
    drv = _drv()
    if err != drv.CUresult.CUDA_SUCCESS:
        _, name = drv.cuGetErrorName(err)
        raise LaunchError(f"{what} failed: {name.decode() if isinstance(name, bytes) else name}")
    if isinstance(res, tuple):
        return res[1] if len(res) == 2 else res[1:]
    return None


def tma_stride_problem(strides_bytes: list[int]) -> str | None:
    """Why TMA cannot address an array with these outer strides (in bytes), or None: each
    must be a multiple of 16 (an fp16 matrix needs a row length that is a multiple of 8)."""
    for d, s in enumerate(strides_bytes):
        if s % 16:
            return f"stride of dim {d} is {s} bytes; TMA needs a multiple of 16"
    return None


_TORCH_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "i1": "bool",
}


def _tma_dtype(name: str):
    drv = _drv()
    E = drv.CUtensorMapDataType
    return {
        "f16": E.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "bf16": E.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        "f32": E.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "f64": E.CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        "f8E4M3FN": E.CU_TENSOR_MAP_DATA_TYPE_UINT8, "f8E5M2": E.CU_TENSOR_MAP_DATA_TYPE_UINT8,
        "i8": E.CU_TENSOR_MAP_DATA_TYPE_UINT8, "i32": E.CU_TENSOR_MAP_DATA_TYPE_INT32,
        "i64": E.CU_TENSOR_MAP_DATA_TYPE_INT64,
    }[name]


class Launcher:
    """One kernel of a PTX module; `launcher[grid](*args)` checks and launches."""

    def __init__(self, ptx: str, info: KernelInfo):
        self.ptx = ptx
        self.info = info
        self._func = {}
        self._descs: dict = {}
        self._ready: dict = {}  # argument identity -> what `_prepare` made of them
        self._used: list = []  # the descriptor buffers the launch being prepared points to
        self._staged: list = []  # aligned copies of pointer arguments (ws-tma-load) the launch reads

    def __getitem__(self, grid):
        _torch(), _drv()  # a missing package is named now, not as a bare ModuleNotFoundError later
        if isinstance(grid, int):
            grid = (grid,)
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
        if len(grid) != 3 or any(g < 1 for g in grid):
            raise LaunchError(f"{self.info.name}: grid must be 1 to 3 positive numbers, got {', '.join(map(str, grid))}")
        return lambda *args, stream=None: self.launch(grid, args, stream)

    # ---- module / function
    def _function(self, device_index: int):
        if device_index in self._func:
            return self._func[device_index]
        drv = _drv()
        _check(drv.cuInit(0), "cuInit")
        ctx = _check(drv.cuCtxGetCurrent(), "cuCtxGetCurrent")
        if ctx is None or int(ctx) == 0:
            dev = _check(drv.cuDeviceGet(device_index), "cuDeviceGet")
            ctx = _check(drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
            _check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        mod = _check(drv.cuModuleLoadData(self.ptx.encode() + b"\0"), "cuModuleLoadData")
        fn = _check(drv.cuModuleGetFunction(mod, self.info.name.encode()), "cuModuleGetFunction")
        _check(drv.cuFuncSetAttribute(fn, drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      self.info.smem_bytes), "cuFuncSetAttribute(max dynamic shared memory)")
        if self.info.ctas_per_sm > 1:  # ws-occupancy: the SM's whole carve-out as shared memory, so C CTAs fit
            _check(drv.cuFuncSetAttribute(fn, drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                          100), "cuFuncSetAttribute(shared memory carve-out)")
        self._func[device_index] = (mod, fn)
        return mod, fn

    # ---- arguments
    def _err(self, i: int, msg: str) -> LaunchError:
        p = self.info.params[i]
        return LaunchError(f"{self.info.name}: argument {i} ({p.name}): {msg}")

    def _tensor(self, i, x, dtype_name, device):
        torch = _torch()

        if not isinstance(x, torch.Tensor):
            raise self._err(i, f"expected a torch CUDA tensor, got {type(x).__name__}")
        if not x.is_cuda:
            raise self._err(i, "the tensor is not on a CUDA device")
        want = getattr(torch, _TORCH_DTYPES[dtype_name])
        if x.dtype != want:
            raise self._err(i, f"expected dtype {want}, got {x.dtype}")
        if device is not None and x.device != device:
            raise self._err(i, f"tensor on {x.device}, other tensors on {device}")
        return x

    def _desc(self, i, x, p):
        key, raw = self._desc_bytes(i, x, p)
        hit = self._descs.get(key)
        if hit is None:
            hit = self._upload(key, raw, x.device)
        self._used.append(hit)
        return hit.data_ptr()

    def _upload(self, key, raw: bytes, device):
        buf = _torch().frombuffer(bytearray(raw), dtype=_torch().uint8).to(device)
        if len(self._descs) > 256:
            self._descs.clear()
        self._descs[key] = buf
        return buf

    def _descs_array(self, i, xs, p, device):
        """A `!tile.descs` argument: a list of tensors, one descriptor each (a tensor with no
        elements, an empty group, gets 128 zero bytes the kernel does not use), in one buffer."""
        if not isinstance(xs, (list, tuple)) or not xs:
            raise self._err(i, f"a !tile.descs argument takes a non-empty list of tensors, got {type(xs).__name__}")

        def each(encode: bool):
            out = []
            for k, x in enumerate(xs):
                try:
                    self._tensor(i, x, p.dtype, device)
                    if x.numel() == 0:
                        out.append((("empty", x.dim()), bytes(128)))
                        continue
                    out.append(self._desc_bytes(i, x, p, cached=False if encode else None))
                except LaunchError as e:
                    raise LaunchError(str(e).replace(f"({p.name}):", f"({p.name}[{k}]):", 1)) from None
            return out

        key = ("array", tuple(k for k, _ in each(encode=False)))  # the checks and keys only
        hit = self._descs.get(key)
        if hit is None:  # encoded only for a list of tensors not seen before
            hit = self._upload(key, b"".join(raw for _, raw in each(encode=True)), device)
        self._used.append(hit)
        return hit.data_ptr()

    def _desc_bytes(self, i, x, p, cached: bool | None = True) -> tuple:
        """(the cache key, the 128 bytes) of the TMA descriptor of tensor `x` for parameter `p`,
        after the checks of what TMA takes (the bytes None where `cached` and the key has a
        buffer, and always where `cached` is None: the checks and the key only)."""
        rank = len(p.block)
        if x.dim() != rank:
            raise self._err(i, f"a !tile.desc with a {'x'.join(map(str, p.block))} box needs a {rank}-D tensor, "
                               f"got {x.dim()}-D {tuple(x.shape)}")
        es = x.element_size()
        if x.stride(-1) != 1:
            raise self._err(i, "the innermost dimension must be contiguous (stride 1)")
        if x.data_ptr() % 16:
            raise self._err(i, "the data must be 16-byte aligned for TMA")
        problem = tma_stride_problem([x.stride(d) * es for d in range(rank - 1)])
        if problem:
            raise self._err(i, problem)
        if p.stored and (x.shape[-1] * es) % 16 and rank > 1 and x.stride(-2) != x.shape[-1]:
            raise self._err(i, f"the kernel stores through this descriptor, and a TMA store writes whole 16-byte "
                               f"chunks: rows of {x.shape[-1] * es} bytes inside a larger row stride would be "
                               "overwritten past their end (pass a tensor whose rows end on 16 bytes)")
        key = (x.data_ptr(), tuple(x.shape), tuple(x.stride()), p.dtype, p.block, p.swizzle, x.device.index)
        if cached is None or (cached and key in self._descs):
            return key, None
        drv = _drv()
        sw = {0: "NONE", 32: "32B", 64: "64B", 128: "128B"}[p.swizzle]
        tmap = _check(drv.cuTensorMapEncodeTiled(
            _tma_dtype(p.dtype), drv.cuuint32_t(rank), x.data_ptr(),
            [drv.cuuint64_t(int(s)) for s in reversed(x.shape)],
            [drv.cuuint64_t(int(x.stride(d) * es)) for d in reversed(range(rank - 1))],
            [drv.cuuint32_t(int(b)) for b in reversed(p.block)], [drv.cuuint32_t(1)] * rank,
            drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            getattr(drv.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{sw}"),
            drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), f"cuTensorMapEncodeTiled (argument {i})")
        return key, struct.pack("<16Q", *[int(v) for v in tmap.opaque])

    def _tma_store_args(self, args) -> list:
        """ws-tma-store's trailing arguments: per converted store, the descriptor of the pointer
        argument's M x N view with row stride S and 1, where TMA can take it; else a placeholder
        descriptor and 0 (the kernel then takes its pointer store)."""
        from wsdialects.transforms.tma_common import view_problem

        torch = _torch()
        out: list = []
        for e in self.info.tma_stores:
            x = args[e["ptr"]]
            try:
                m, n, s = (int(args[e[k]]) for k in ("rows", "cols", "stride"))
                if not (isinstance(x, torch.Tensor) and x.is_cuda and x.is_contiguous()) \
                        or view_problem(m, n, s, x.element_size(), x.data_ptr(), x.numel()) is not None:
                    raise LaunchError("no view")  # the pointer argument's own checks report a wrong tensor
                view = x.reshape(-1).as_strided((m, n), (s, 1))
                out += [_Built(self._desc(e["desc"], view, self.info.params[e["desc"]])), 1]
            except (LaunchError, TypeError, ValueError):
                out += [_Built(self._placeholder(x)), 0]
        return out

    def _tma_load_args(self, args) -> dict:
        """ws-tma-load's trailing arguments by index (`_contract_descs`). A launch that made a copy
        is not kept for reuse: the copy holds the argument's values of that launch."""
        return self._contract_descs(self.info.tma_loads, args)

    def _host_desc_args(self, args) -> dict:
        """ws-host-descriptors' trailing arguments by index: per `tile.make_desc` the kernel made
        (`_contract_descs`)."""
        return self._contract_descs(self.info.host_descs, args)

    def _contract_descs(self, entries: list[dict], args) -> dict:
        """By descriptor argument: the descriptor of the view of its pointer argument that each
        contract entry gives at this launch (`tma_common.launch_view`, the check the interpreter
        makes too): over the view where TMA can take it; over an aligned copy with rows padded to
        16 bytes, kept in `_staged` for this launch, where it cannot and the kernel only reads the
        argument; over a zero buffer for an empty view; else an error saying why."""
        from wsdialects.transforms.tma_common import launch_view, padded_cols

        torch = _torch()
        out: dict = {}
        for e in entries:
            i, d, x = e["ptr"], e["desc"], args[e["ptr"]]
            if not (isinstance(x, torch.Tensor) and x.is_cuda and x.is_contiguous()):
                out[d] = _Built(self._placeholder(x))  # the pointer argument's own check says why
                continue
            flat = x.reshape(-1)
            es = flat.element_size()
            v = launch_view(e, args, flat.numel(), es, flat.data_ptr(), lambda k: self.info.params[k].name)
            if v.problem is not None:
                raise self._err(i, v.problem)
            if v.empty:  # TMA encodes no 0-extent dimension: a zero buffer, which reads as the empty view does
                view = self._zeros(flat, len(v.shape), padded_cols(1, es))
            else:
                view = flat.as_strided(v.shape, v.strides)
                if v.copy:
                    copy = torch.zeros((*v.shape[:-1], padded_cols(v.shape[-1], es)), dtype=flat.dtype,
                                       device=flat.device)
                    copy[..., :v.shape[-1]] = view
                    view = copy[..., :v.shape[-1]]
                    self._staged.append(copy)
            out[d] = _Built(self._desc(d, view, self.info.params[d]))
        return out

    def _zeros(self, x, rank: int, cols: int):
        """A rank-D 1 x ... x 1 x `cols` tensor of zeros of x's dtype on x's device, kept with the
        launch that points to it: what the descriptor of an empty view covers."""
        torch = _torch()
        key = ("zeros", x.device, x.dtype, rank, cols)
        buf = self._descs.get(key)
        if buf is None:
            buf = self._descs[key] = torch.zeros((1,) * (rank - 1) + (cols,), dtype=x.dtype, device=x.device)
        self._used.append(buf)
        return buf

    def _placeholder(self, x) -> int:
        """A 128-byte descriptor of zeros on the device of `x` (a kernel never reads it: its flag is 0)."""
        torch = _torch()
        dev = x.device if isinstance(x, torch.Tensor) else torch.device("cuda")
        buf = self._descs.get(("placeholder", dev))
        if buf is None:
            buf = self._descs[("placeholder", dev)] = torch.zeros(128, dtype=torch.uint8, device=dev)
        self._used.append(buf)
        return buf.data_ptr()

    def launch(self, grid, args, stream=None):
        """Check and launch. What the checks make of the arguments (the device, the launch grid,
        the packed kernel parameters with the descriptors they point to) is kept per argument
        identity (addresses, shapes, strides, dtypes, scalar values): a launch with arguments seen
        before goes straight to cuLaunchKernel, which is what keeps back-to-back launches of a
        short kernel from being bound by the host."""
        torch = _torch()
        key = _identity(torch, grid, args)
        ready = self._ready.get(key) if key is not None else None
        if ready is None:
            self._staged = []
            args = tuple(x.view(torch) if type(x) is StridedView else x for x in args)
            ready = self._prepare(torch, grid, args)
            if stream is not None:
                for copy in self._staged:  # freed after this launch: not before the stream reads it
                    copy.record_stream(torch.cuda.ExternalStream(stream))
            if key is not None and not self._staged:
                if len(self._ready) >= 64:
                    self._ready.pop(next(iter(self._ready)))
                self._ready[key] = ready
        device, grid, params, _keep = ready
        index = device.index or 0
        if index in self._func and torch.cuda.current_device() == index:
            # the device is current already: torch.cuda.device(device) would change nothing
            self._launch(torch, index, grid, params, stream)
        else:
            with torch.cuda.device(device):
                self._launch(torch, index, grid, params, stream)

    def _launch(self, torch, index: int, grid, params, stream):
        info = self.info
        drv = _drv()
        _, fn = self._function(index)
        if stream is None:
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what torch's own generated code calls
            stream = raw(index) if raw is not None else torch.cuda.current_stream(index).cuda_stream
        res = drv.cuLaunchKernel(fn, grid[0], grid[1], grid[2], info.num_threads, 1, 1, info.smem_bytes,
                                 drv.CUstream(stream), params, 0)
        if (res[0] if isinstance(res, tuple) else res) != drv.CUresult.CUDA_SUCCESS:
            _check(res, f"cuLaunchKernel({info.name})")

    def _prepare(self, torch, grid, args) -> tuple:
        """(device, launch grid, cuLaunchKernel's kernelParams, what keeps the memory they point to
        alive: the descriptor buffers and the packed values) after every check of the arguments."""
        from wsdialects.transforms.tma_common import built_argument_count

        info = self.info
        self._used = []
        hidden = built_argument_count(len(info.tma_stores), len(info.tma_loads), len(info.host_descs))
        grid_args = 3 if info.persistent_programs else 0
        user = len(info.params) - hidden - grid_args  # the kernel's own parameters, as the user wrote them
        if len(args) not in (user, user + hidden):
            names = ", ".join(p.name for p in info.params[:user])
            raise LaunchError(f"{info.name}: expected {user} arguments ({names}), got {len(args)}")
        if hidden and len(args) == user:
            # trailing arguments before ws-persistent's grid: ws-host-descriptors' contract (a descriptor
            # per tile.make_desc), ws-tma-load's (a descriptor per view), ws-tma-store's (a descriptor
            # and a flag per converted store)
            extra = self._host_desc_args(args)
            extra.update(self._tma_load_args(args))
            built = self._tma_store_args(args)
            for k, e in enumerate(info.tma_stores):
                extra[e["desc"]], extra[e["desc"] + 1] = built[2 * k], built[2 * k + 1]
            args = tuple(args) + tuple(extra[i] for i in range(user, user + hidden))
        if grid_args:  # ws-persistent contract: the user's grid travels as 3 trailing i32
            args = tuple(args) + tuple(grid)
            grid = (min(info.persistent_programs, grid[0] * grid[1] * grid[2]), 1, 1)
        if len(args) != len(info.params):
            names = ", ".join(p.name for p in info.params)
            raise LaunchError(f"{info.name}: expected {len(info.params)} arguments ({names}), got {len(args)}")
        device = None
        for x in args:
            for t in (x if isinstance(x, (list, tuple)) else (x,)):  # a !tile.descs list too
                if isinstance(t, torch.Tensor) and t.is_cuda:
                    device = t.device
                    break
            if device is not None:
                break
        if device is None:
            raise LaunchError(f"{info.name}: no CUDA tensor among the arguments")
        vals, types = [], []
        for i, (p, x) in enumerate(zip(info.params, args)):
            if isinstance(x, _Built):  # a descriptor the launch built itself (ws-tma-store)
                vals.append(x.address)
                types.append(ctypes.c_void_p)
            elif p.kind == "desc":
                self._tensor(i, x, p.dtype, device)
                vals.append(self._desc(i, x, p))
                types.append(ctypes.c_void_p)
            elif p.kind == "descs":
                vals.append(self._descs_array(i, x, p, device))
                types.append(ctypes.c_void_p)
            elif p.kind == "ptr":
                self._tensor(i, x, p.dtype, device)
                if not x.is_contiguous():
                    raise self._err(i, "a !tile.ptr argument must be a contiguous tensor (addressed flat)")
                vals.append(x.data_ptr())
                types.append(ctypes.c_void_p)
            else:
                if isinstance(x, torch.Tensor):
                    raise self._err(i, f"expected a Python number for {p.dtype}, got a tensor")
                try:
                    val, ctype = pack_scalar(p.dtype, x)
                except ValueError as e:
                    raise self._err(i, str(e)) from None
                vals.append(val)
                types.append(ctype)
        keep, self._used = self._used, []  # the descriptor buffers `vals` points to outlive a cache clear
        params, block = _params_block(tuple(vals), tuple(types))
        return device, grid, params, (keep, block)
