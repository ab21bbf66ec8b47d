"""Test doubles for the GPU runtime's two packages (wsdialects/runtime/launch.py), so its
host path runs without a GPU, torch or cuda-python: a `torch` with CUDA tensors that are
only an address, a shape, strides and a dtype, and a cuda-python `driver` whose calls
record what they were given. `install(monkeypatch)` puts both behind launch._torch and
launch._drv; `counts` says how often the costly calls ran (views made, device switches,
descriptors encoded, kernel launches), and `launches` holds each cuLaunchKernel's arguments
with its kernel parameters read back from memory."""

from __future__ import annotations

import ctypes
import itertools
from collections import Counter
from types import SimpleNamespace

_addresses = itertools.count(1 << 20, 1 << 12)


class dtype:
    def __init__(self, name: str, itemsize: int):
        self.name, self.itemsize, self.is_floating_point = name, itemsize, name.startswith(("float", "bfloat"))

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class device:
    def __init__(self, type_: str, index: int | None = None):
        self.type, self.index = type_, index

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


class _Enum:
    """Any member name is a member."""

    def __getattr__(self, name: str) -> str:
        return name


class FakeTorch:
    """The parts of torch the launcher uses."""

    def __init__(self, counts: Counter):
        self.counts = counts
        for name, size in (("float16", 2), ("bfloat16", 2), ("float32", 4), ("float64", 8), ("int8", 1),
                           ("int32", 4), ("int64", 8), ("uint8", 1), ("bool", 1)):
            setattr(self, name, dtype(name, size))
        self.device = device
        torch = self

        class Tensor:
            def __init__(self, shape, dtype_, strides=None, ptr=None, dev=None):
                self.shape = tuple(int(n) for n in shape)
                if strides is None:
                    strides, acc = [], 1
                    for n in reversed(self.shape):
                        strides.insert(0, acc)
                        acc *= max(n, 1)
                self._strides = tuple(int(s) for s in strides)
                self.dtype = dtype_
                self._ptr = next(_addresses) if ptr is None else ptr
                self.device = dev or device("cuda", 0)
                self.is_cuda = self.device.type == "cuda"

            def data_ptr(self) -> int:
                return self._ptr

            def stride(self, d=None):
                return self._strides if d is None else self._strides[d]

            def dim(self) -> int:
                return len(self.shape)

            def element_size(self) -> int:
                return self.dtype.itemsize

            def numel(self) -> int:
                n = 1
                for s in self.shape:
                    n *= s
                return n

            def is_contiguous(self) -> bool:
                return self._strides == Tensor(self.shape, self.dtype, ptr=0)._strides

            def as_strided(self, shape, strides):
                torch.counts["as_strided"] += 1
                return Tensor(shape, self.dtype, strides, self._ptr, self.device)

            def reshape(self, *shape):
                assert shape == (-1,) and self.is_contiguous()
                return self.as_strided((self.numel(),), (1,))

            def to(self, dev):
                return Tensor(self.shape, self.dtype, self._strides, None, dev)

        self.Tensor = Tensor

        class _DeviceGuard:
            def __init__(self, dev):
                self.index = dev.index if isinstance(dev, device) else dev

            def __enter__(self):
                torch.counts["device switch"] += 1
                self.prev, torch.current = torch.current, self.index

            def __exit__(self, *exc):
                torch.current = self.prev

        self.current = 0
        self.cuda = SimpleNamespace(
            device=_DeviceGuard, current_device=lambda: self.current,
            current_stream=lambda index=None: SimpleNamespace(cuda_stream=0x5000),
            ExternalStream=lambda s: s)
        self._C = SimpleNamespace(_cuda_getCurrentRawStream=lambda index: 0x5000)

    def frombuffer(self, buf, dtype):
        return self.Tensor((len(buf),), dtype, dev=device("cpu"))

    def empty(self, shape, dtype, device=None):
        return self.Tensor(shape, dtype, dev=device)


class FakeDriver:
    """The parts of cuda-python's driver module the launcher uses; every call succeeds."""

    def __init__(self, counts: Counter, launches: list, params_of):
        self.counts, self.launches, self.params_of = counts, launches, params_of
        self.record = True  # keep each launch's arguments, its kernel parameters read back (a timing turns it off)
        self.CUresult = SimpleNamespace(CUDA_SUCCESS=0)
        for name in ("CUfunction_attribute", "CUtensorMapDataType", "CUtensorMapInterleave", "CUtensorMapSwizzle",
                     "CUtensorMapL2promotion", "CUtensorMapFloatOOBfill"):
            setattr(self, name, _Enum())
        self.cuuint32_t = self.cuuint64_t = self.CUstream = int

    def cuInit(self, flags):
        return (0,)

    def cuCtxGetCurrent(self):
        return 0, 1

    def cuModuleLoadData(self, image):
        return 0, "module"

    def cuModuleGetFunction(self, module, name):
        return 0, name.decode()

    def cuFuncSetAttribute(self, fn, attr, value):
        return (0,)

    def cuGetErrorName(self, err):
        return 0, b"CUDA_ERROR_FAKE"

    def cuTensorMapEncodeTiled(self, dtype_, rank, address, sizes, strides, box, elem_strides, *modes):
        self.counts["cuTensorMapEncodeTiled"] += 1
        return 0, SimpleNamespace(opaque=[address] + [0] * 15)

    def cuLaunchKernel(self, fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        self.counts["cuLaunchKernel"] += 1
        if self.record:
            self.launches.append(SimpleNamespace(function=fn, grid=(gx, gy, gz), block=(bx, by, bz), smem=smem,
                                                 stream=stream, params=self.params_of(params)))
        return (0,)


_CTYPES = {"i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
           "f32": ctypes.c_float, "f64": ctypes.c_double}


def read_params(info, params) -> list:
    """The kernel parameters cuLaunchKernel was given (an address of a void*[], or cuda-python's
    (values, ctypes) pair), read back as Python numbers by the kernel's parameter types."""
    if isinstance(params, tuple):
        return [int(v) if t is ctypes.c_void_p else v for v, t in zip(*params)]
    slots = (ctypes.c_void_p * len(info.params)).from_address(params)
    out = []
    for p, slot in zip(info.params, slots):
        t = ctypes.c_void_p if p.kind != "scalar" else _CTYPES[p.dtype]
        v = t.from_address(slot).value
        out.append(v or 0 if t is ctypes.c_void_p else v)
    return out


def install(monkeypatch, info_of=lambda: None):
    """Put the doubles behind wsdialects.runtime.launch; (torch, driver, counts, launches).
    `info_of()` gives the KernelInfo to read the launches' parameters with."""
    from wsdialects.runtime import launch

    counts: Counter = Counter()
    launches: list = []
    torch = FakeTorch(counts)
    drv = FakeDriver(counts, launches, lambda params: read_params(info_of(), params))
    monkeypatch.setattr(launch, "_torch", lambda: torch)
    monkeypatch.setattr(launch, "_drv", lambda: drv)
    return torch, drv, counts, launches
