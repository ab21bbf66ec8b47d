"""From a `@triton.jit` function to a verified `tile` module: Triton compiles the function
to TTIR (no GPU needed), `import_ttir` reads it.

    import wsdialects
    module = wsdialects.from_triton(gemm_kernel, a_desc, b_desc, c_desc, M, N, K, BLOCK_M=128,
                                    BLOCK_N=256, BLOCK_K=64, num_warps=8)          # example arguments
    module = wsdialects.from_triton(gemm_kernel, signature={"a_desc": "tensordesc<fp16[128,64]>", ...},
                                    constexprs={"BLOCK_M": 128, ...}, num_warps=8)  # Triton's strings

The signature says what each non-constexpr argument is, as Triton's own launcher does:
a tensor is a pointer to its dtype (`*fp16`), a host `TensorDescriptor` is
`tensordesc<fp16[128,64]>` (its block shape; the kernel then takes the tensor, its shape and
its strides), an int is `i32` (`i64` when it does not fit), a float `fp32`. Arguments are
specialized as Triton's own launcher specializes them, so the TTIR is the one Triton would
compile: an int equal to 1 becomes a constant (a unit stride then makes a contiguous tile), and
ints that are multiples of 16 and pointers to 16-byte aligned data are marked
`tt.divisibility = 16`; a parameter named in `@triton.jit(do_not_specialize=...)` /
`do_not_specialize_on_alignment=...` is left alone. Each specialization is its own compile.

Triton is optional (`pip install -e '.[triton]'`): this module imports it only when a
function is compiled; `import wsdialects` never does.
"""

from __future__ import annotations

import importlib

from xdsl.dialects.builtin import ModuleOp

__all__ = ["MissingTriton", "arg_spec", "bind", "binding", "from_triton", "infer_signature", "is_jit_function",
           "jit_function", "param_rules", "ttir", "type_of"]


class MissingTriton(ImportError):
    """`from_triton` (or a Triton function given to compile / autotune) without triton installed."""


def require_triton():
    """The triton package; MissingTriton saying how to install it if it is not there."""
    try:
        return importlib.import_module("triton")
    except ImportError as e:
        raise MissingTriton("compiling a @triton.jit function needs triton (3.4 to 3.9), which is not installed "
                            f"here ({e}): pip install -e '.[triton]' (or pip install 'wsdialects[triton]')") from None


def is_jit_function(obj) -> bool:
    """Whether `obj` is a `@triton.jit` function (or a Triton autotuner / heuristics wrapper of
    one), without importing triton."""
    return type(obj).__module__.startswith("triton.") and hasattr(obj, "fn") and (
        hasattr(obj, "arg_names") or is_jit_function(getattr(obj, "fn", None)))


def jit_function(obj):
    """The JITFunction of `obj`; a TypeError for Triton's own autotuner, whose configs are ours to try."""
    if type(obj).__name__ == "Autotuner":
        raise TypeError("a @triton.autotune kernel: give wsdialects.autotune the @triton.jit function and the "
                        "configs (wsdialects.autotune(fn, configs=[triton.Config(...)], key=[...]))")
    while not hasattr(obj, "arg_names") and hasattr(obj, "fn"):  # @triton.heuristics and the like
        obj = obj.fn
    if not hasattr(obj, "arg_names"):
        raise TypeError(f"expected a @triton.jit function, got {type(obj).__name__}")
    return obj


# ---- arguments
_DTYPES = {
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "int8": "i8", "int16": "i16", "int32": "i32",
    "int64": "i64", "uint8": "u8", "bool": "i1",
}
OPTIONS = ("num_warps", "num_stages", "num_ctas")


_NAMES: dict = {}  # dtype object -> its Triton name (dtypes are few; looked up at every launch)


def dtype_name(dtype) -> str:
    """Triton's name (fp16, bf16, fp8e4nv, ...) of a torch or numpy dtype."""
    try:
        return _NAMES[dtype]
    except (KeyError, TypeError):
        pass
    name = str(dtype).rsplit(".", 1)[-1]
    if name not in _DTYPES:
        raise TypeError(f"no Triton type for dtype {dtype}")
    try:
        _NAMES[dtype] = _DTYPES[name]
    except TypeError:  # an unhashable dtype: named each time
        pass
    return _DTYPES[name]


def is_descriptor(x) -> bool:
    """A host-side tensor descriptor (triton.tools.tensor_descriptor.TensorDescriptor)."""
    return type(x).__name__ == "TensorDescriptor" and hasattr(x, "base") and hasattr(x, "block_shape")


def is_tensor(x) -> bool:
    """A torch tensor or a numpy array (the interpreter's stand-in)."""
    return hasattr(x, "dtype") and hasattr(x, "shape") and (hasattr(x, "data_ptr") or hasattr(x, "ctypes"))


def address(x) -> int:
    return x.data_ptr() if hasattr(x, "data_ptr") else x.ctypes.data


_DESC_TYPES: dict = {}  # (dtype, block shape) -> "tensordesc<fp16[128,64]>"


def _int_type(x: int) -> str:
    if -(1 << 31) <= x < (1 << 31):
        return "i32"
    return "i64" if -(1 << 63) <= x < (1 << 63) else "u64"


def type_of(x) -> str:
    """Triton's signature string for a launch argument (see the module docstring)."""
    if is_descriptor(x):
        if getattr(x, "padding", "zero") != "zero":
            raise TypeError(f"a TensorDescriptor with padding='{x.padding}': only 'zero' is supported")
        key = (x.base.dtype, tuple(x.block_shape))
        try:
            return _DESC_TYPES[key]
        except (KeyError, TypeError):
            pass
        ty = f"tensordesc<{dtype_name(x.base.dtype)}[{','.join(str(int(b)) for b in x.block_shape)}]>"
        try:
            _DESC_TYPES[key] = ty
        except TypeError:
            pass
        return ty
    if is_tensor(x):
        return f"*{dtype_name(x.dtype)}"
    if isinstance(x, bool):
        return "i1"
    if isinstance(x, int):
        return _int_type(x)
    if isinstance(x, float):
        return "fp32"
    raise TypeError(f"cannot pass a {type(x).__name__} to a Triton kernel (tensors, TensorDescriptors, ints, "
                    "floats and bools can be)")


def arg_spec(x, specialize: bool = True, align: bool = True) -> tuple[str, int | None]:
    """(Triton's type of the launch argument `x`, how it is specialized): the whole of what a
    specialization takes from a non-constexpr argument, as Triton's launcher takes it. The
    specialization is 1 for an int equal to 1 (compiled in as a constant; not with
    `specialize=False`, i.e. do_not_specialize), 16 for an int that is a multiple of 16 or a
    pointer to 16-byte aligned data (`tt.divisibility = 16`; not with `align=False`, i.e.
    do_not_specialize_on_alignment), else None:

        arg_spec(1) == ("i32", 1); arg_spec(48) == ("i32", 16); arg_spec(7) == ("i32", None)
        arg_spec(aligned_fp16_tensor) == ("*fp16", 16); arg_spec(desc) == ("tensordesc<fp16[128,64]>", None)

    `infer_signature` builds a signature from it, and the launch's cache keys a compiled
    specialization by it, so the two cannot disagree."""
    ty = _int_type(x) if type(x) is int else type_of(x)  # a plain int is nothing else: skip the other tests
    if ty == "i32" or ty == "i64":
        if specialize and x == 1:
            return ty, 1
        if align and x % 16 == 0:
            return ty, 16
    elif ty[0] == "*" and align and address(x) % 16 == 0:
        return ty, 16
    return ty, None


def param_rules(fn) -> list[tuple[str, bool, bool, bool]]:
    """Per parameter of `fn` in order: (name, is a constexpr, may be specialized on its value,
    may be specialized on its alignment / divisibility), from `tl.constexpr` annotations and
    `@triton.jit(do_not_specialize=..., do_not_specialize_on_alignment=...)`."""
    fn = jit_function(fn)
    params = {p.name: p for p in fn.params}
    out = []
    for name in fn.arg_names:
        p = params.get(name)
        out.append((name, bool(getattr(p, "is_constexpr", False)), not getattr(p, "do_not_specialize", False),
                    not getattr(p, "do_not_specialize_on_alignment", False)))
    return out


class Default:
    """A parameter's default value, as `binding` gives it."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def binding(fn, nargs: int, keywords) -> list:
    """Where each parameter of `fn` (in order) takes its value from in a call `fn[grid](*args,
    **kwargs)` with `nargs` positional arguments and keyword names `keywords` (launch options
    among them are left out): its position in `args` (an int), its keyword (a str), or a
    `Default`, filled in as Triton fills it. A TypeError names what is wrong with the call."""
    fn = jit_function(fn)
    names = list(fn.arg_names)
    if nargs > len(names):
        raise TypeError(f"{fn.__name__} takes {len(names)} arguments ({', '.join(names)}), got {nargs}")
    source: dict = {n: i for i, n in enumerate(names[:nargs])}
    for k in keywords:
        if k in OPTIONS:
            continue
        if k not in names:
            raise TypeError(f"{fn.__name__} has no argument '{k}' (its arguments: {', '.join(names)}; launch "
                            f"options: {', '.join(OPTIONS)})")
        if k in source:
            raise TypeError(f"{fn.__name__}: argument '{k}' given twice")
        source[k] = k
    for p in fn.params:
        if p.name not in source and p.has_default:
            source[p.name] = Default(p.default)
    missing = [n for n in names if n not in source]
    if missing:
        raise TypeError(f"{fn.__name__}: missing argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return [source[n] for n in names]


def bound_values(sources: list, args, kwargs) -> list:
    """The parameters' values in order for a call, from `binding`'s sources."""
    return [args[s] if type(s) is int else s.value if type(s) is Default else kwargs[s] for s in sources]


def bind(fn, args, kwargs) -> tuple[dict, dict]:
    """(every parameter's value by name, in order; the launch options in kwargs) for a call
    `fn[grid](*args, **kwargs)`, defaults filled in as Triton fills them."""
    fn = jit_function(fn)
    sources = binding(fn, len(args), kwargs)
    options = {k: kwargs[k] for k in OPTIONS if k in kwargs}
    return dict(zip(fn.arg_names, bound_values(sources, args, kwargs))), options


def constexpr_names(fn) -> list[str]:
    return [p.name for p in jit_function(fn).params if p.is_constexpr]


def infer_signature(fn, bound: dict) -> tuple[dict, dict, dict]:
    """(signature, constexprs, attrs) for ASTSource from bound argument values (every
    parameter by name, in order); each argument as `arg_spec` specializes it."""
    fn = jit_function(fn)
    rules = {name: rule for name, *rule in param_rules(fn)}
    signature, constexprs, attrs = {}, {}, {}
    for i, (name, value) in enumerate(bound.items()):
        const, specialize, align = rules.get(name, (False, True, True))
        if const or value is None:
            signature[name] = "constexpr"
            constexprs[name] = value
            continue
        try:
            ty, special = arg_spec(value, specialize, align)
        except TypeError as e:
            raise TypeError(f"{fn.__name__}: argument '{name}': {e}") from None
        if special == 1:
            signature[name] = "constexpr"  # Triton's launcher: an int 1 is compiled in
            constexprs[name] = 1
        else:
            signature[name] = ty
            if special == 16:
                attrs[(i,)] = [["tt.divisibility", 16]]
    return signature, constexprs, attrs


def complete_signature(fn, signature, constexprs: dict | None) -> tuple[dict, dict]:
    """A user's signature (a dict by name, or a list in the order of the non-constexpr
    parameters) with every constexpr parameter added; a TypeError names what is missing."""
    fn = jit_function(fn)
    const = constexpr_names(fn)
    constexprs = dict(constexprs or {})
    for p in fn.params:
        if p.is_constexpr and p.name not in constexprs and p.has_default:
            constexprs[p.name] = p.default
    if not isinstance(signature, dict):
        plain = [n for n in fn.arg_names if n not in const and n not in constexprs]
        signature = list(signature)
        if len(signature) != len(plain):
            raise TypeError(f"{fn.__name__}: the signature lists {len(signature)} types for {len(plain)} arguments "
                            f"({', '.join(plain)})")
        signature = dict(zip(plain, signature))
    unknown = sorted((set(signature) | set(constexprs)) - set(fn.arg_names))
    if unknown:
        raise TypeError(f"{fn.__name__} has no argument {', '.join(unknown)} (its arguments: "
                        f"{', '.join(fn.arg_names)})")
    full = {}
    for name in fn.arg_names:
        if name in constexprs:
            full[name] = "constexpr"
        elif name in signature:
            full[name] = signature[name]
        else:
            what = "constexpr value" if name in const else "type"
            raise TypeError(f"{fn.__name__}: no {what} for argument '{name}'")
    return full, constexprs


def ttir(fn, signature: dict, constexprs: dict, num_warps: int = 4, attrs: dict | None = None) -> str:
    """Triton's TTIR of `fn` for a complete signature (every argument, constexprs as
    "constexpr") for Hopper (sm_90): what `triton.compile` prints as `asm["ttir"]`, made by
    Triton's own stages up to TTIR only (`_ttir_stage`), so neither Triton's later passes
    nor ptxas run (nor fail: Triton 3.6's TTGIR coalescing aborts on some kernels whose TTIR
    is fine)."""
    triton = require_triton()
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = jit_function(fn)
    src = ASTSource(fn, signature, constexprs, attrs)
    target, options = GPUTarget("cuda", 90, 32), {"num_warps": int(num_warps)}
    try:
        try:
            return _ttir_stage(src, target, options)
        except (AttributeError, ImportError, KeyError):  # a Triton whose compile driver is laid out otherwise
            return triton.compile(src, target=target, options=options).asm["ttir"]
    except Exception as e:  # noqa: BLE001 - Triton's own compile error, reported as such
        from wsdialects.diagnostics import WsError

        raise WsError(f"Triton could not compile {fn.__name__}: {type(e).__name__}: {e}",
                      fn.fn.__code__.co_filename) from None


def _ttir_stage(src, target, options: dict) -> str:
    """`triton.compile`'s first steps (Triton 3.4 to 3.9): the backend's options and stages, the
    source's IR, then the "ttir" stage alone, printed as Triton caches it (`str(module)`)."""
    import inspect

    from triton._C.libtriton import ir
    from triton.compiler.compiler import make_backend

    backend = make_backend(target)
    opts = backend.parse_options(dict(options, **src.parse_options()))
    stages: dict = {}
    backend.add_stages(stages, opts, src.language)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    args = (opts, backend.get_codegen_implementation(opts), backend.get_module_map(), context)
    takes_target = len(inspect.signature(src.make_ir).parameters) == 5  # Triton 3.5 on: make_ir(target, ...)
    module = src.make_ir(target, *args) if takes_target else src.make_ir(*args)
    return str(stages["ttir"](module, {"target": target, **opts.__dict__}))


def import_module(text: str, filename: str, num_warps: int) -> ModuleOp:
    """`import_ttir` (the TTIR of `triton.compile` does not record num_warps; the kernel gets ours)."""
    from wsdialects.triton import import_ttir

    return import_ttir(text, filename, num_warps)


def spec_of(fn, args=(), kwargs=None, *, signature=None, constexprs=None, num_warps=None) -> tuple:
    """(signature, constexprs, attrs, num_warps) from example arguments or a given signature."""
    fn = jit_function(fn)
    kwargs = dict(kwargs or {})
    if signature is not None:
        if args:
            raise TypeError("from_triton: give example arguments or signature=, not both")
        options = {k: kwargs.pop(k) for k in OPTIONS if k in kwargs}
        sig, consts = complete_signature(fn, signature, {**(constexprs or {}), **kwargs})
        attrs: dict = {}
    else:
        bound, options = bind(fn, args, {**(constexprs or {}), **kwargs})
        sig, consts, attrs = infer_signature(fn, bound)
    if num_warps is None:
        num_warps = options.get("num_warps", 4)
    return sig, consts, attrs, int(num_warps)


def from_triton(fn, *args, signature=None, constexprs=None, num_warps=None, **kwargs) -> ModuleOp:
    """The verified `tile` module of a `@triton.jit` function. Either example arguments as the
    kernel is launched with (tensors, TensorDescriptors, numbers; constexprs by keyword,
    `num_warps=` too) or `signature=` (Triton's strings: {"a": "*fp16", "d":
    "tensordesc<fp16[128,64]>", "n": "i32"} or a list in argument order) and `constexprs=`."""
    require_triton()
    fn = jit_function(fn)
    sig, consts, attrs, warps = spec_of(fn, args, kwargs, signature=signature, constexprs=constexprs,
                                        num_warps=num_warps)
    text = ttir(fn, sig, consts, warps, attrs)
    return import_module(text, fn.fn.__code__.co_filename, warps)
