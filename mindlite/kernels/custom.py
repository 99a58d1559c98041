"""Kernels of ops.Custom: "pyfunc", "numba" and "aot" (MindSpore's C ABI through ctypes).

As MindSpore's PyFunc / CustomAOT CPU kernel mods, one generic kernel per func_type is
registered for the op "Custom" (provider = func_type, priority 0: a provider kernel
registered for the Custom's type outranks it). Its bind() builds the launch of one Custom
primitive (its `func` and `label`) and signature; the kernel params are the Custom's attrs
as Python values.
Every launch writes preallocated outputs (alloc="runtime"), so every Custom goes through the
same cached runners as built-in ops, and any failure is a KernelError naming the op.

pyfunc  func(*inputs) -> array(s), checked against inference (count, shape, dtype) and
        copied into the outputs; or func(*inputs, *outputs) -> None writing them (chosen by
        the number of positional parameters). attrs are passed as keyword arguments.
numba   func(*inputs, *outputs) compiled with numba.njit(cache=True) at the first launch
        (numba is imported only then); attrs as keyword arguments.
aot     "path:function", `extern "C" int f(int nparam, void **params, int *ndims,
        int64_t **shapes, const char **dtypes, void *stream, void *extra)`, inputs then
        outputs; dtype names "float32", "int64", "bool", ...; stream and extra are NULL;
        non-zero return = failure. A .cc/.cpp path is compiled with g++ -O2 -shared -fPIC
        on first use into a cache dir keyed by the source hash; when MS_CUSTOM_AOT_WHITE_LIST
        or MINDLITE_CUSTOM_AOT_WHITE_LIST (directories, os.pathsep-separated) is set, only
        paths under them load. Inputs are made C-contiguous and checked before the call.
"""
import inspect
import os

import numpy as np

from .registry import KERNELS, KernelDef, KernelError, _add, guard

ABI_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64")
WHITE_LIST_VARS = ("MS_CUSTOM_AOT_WHITE_LIST", "MINDLITE_CUSTOM_AOT_WHITE_LIST")
CXX_FLAGS = ("-O2", "-shared", "-fPIC", "-std=c++17")
_JITTED = {}          # python function -> numba dispatcher
_LIBS = {}            # real path -> ctypes.CDLL


class CustomKernelDef(KernelDef):
    """The generic kernel of one func_type; bind() specialises it to a Custom and signature."""
    __slots__ = ()

    def bind(self, params, info=None):
        ins = [a for kind, a in zip(info.kinds, info.input_abstracts) if kind != "const"]
        out = info.output_abstract
        outs = list(out) if isinstance(out, tuple) else [out]
        prim = info.prim
        return _BUILDERS[self.provider](self, prim.func, prim.label, params, ins, outs)


def _pyfunc(kdef, func, label, attrs, ins, outs):
    n_in, n_out = len(ins), len(outs)
    writes = _writes_outputs(func, label, n_in, n_out, attrs)
    name = getattr(func, "__name__", "pyfunc")

    def launch(*arrays):
        try:
            res = func(*(arrays if writes else arrays[:n_in]), **attrs)
        except Exception as e:
            raise kdef.error(e, label, name) from e
        if writes:
            return
        res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        if len(res) != n_out:
            raise KernelError(f"For '{label}', the pyfunc kernel '{name}' returned {len(res)} "
                              f"outputs, but out_shape/out_dtype describe {n_out}")
        for i, (r, o) in enumerate(zip(res, arrays[n_in:])):
            r = np.asarray(r)
            if r.shape != o.shape or r.dtype != o.dtype:
                raise KernelError(f"For '{label}', the pyfunc kernel '{name}' returned output "
                                  f"{i} of shape {list(r.shape)} and dtype {r.dtype}, but "
                                  f"inference expected {list(o.shape)} and {o.dtype}")
            np.copyto(o, r)
    return launch


def _writes_outputs(func, label, n_in, n_out, attrs):
    """True when func takes inputs + outputs (required positional parameters) and writes."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):          # some builtins: they return
        return False
    params = [p for p in sig.parameters.values() if p.name not in attrs]
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return False
    positional = [p for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    required = sum(p.default is inspect.Parameter.empty for p in positional)
    if n_out and required == n_in + n_out:
        return True
    if required <= n_in <= len(positional):
        return False
    raise KernelError(f"For '{label}', the pyfunc kernel takes {required} positional "
                      f"arguments, but it is called with {n_in} inputs (returning its outputs) "
                      f"or {n_in + n_out} (inputs, then the outputs to write)")


def _numba(kdef, func, label, attrs, ins, outs):
    return guard(jitted(func, label), kdef, attrs, len(ins) + len(outs), label,
                 getattr(func, "__name__", "numba"))


def jitted(func, label="Custom"):
    """The numba dispatcher of a "numba" Custom's func (njit(cache=True), made once)."""
    dispatcher = _JITTED.get(func)
    if dispatcher is None:
        dispatcher = _JITTED[func] = _jit(func, label)
    return dispatcher


def _jit(func, label):
    try:
        import numba
    except ImportError as e:
        raise KernelError(f"For '{label}', func_type 'numba' needs numba installed: {e}") from e
    if isinstance(func, numba.core.dispatcher.Dispatcher):
        return func
    from ._numba_jit import cached
    return cached(func)           # in memory where no cache can be written (or no source file)


# ---- aot: MindSpore's C ABI -----------------------------------------------------------------
def _aot(kdef, func, label, attrs, ins, outs):
    import ctypes        # NOTE: ctypes and hashlib load lazily (20 ms of `import mindlite`)
    path, symbol = func.rsplit(":", 1)
    cfunc = load_aot(path, symbol, label)
    abstracts = ins + outs
    n, n_in = len(abstracts), len(ins)
    for a in abstracts:
        if a.dtype.name not in ABI_DTYPES:
            raise KernelError(f"For '{label}', dtype {a.dtype} has no name in the aot ABI")
    ndims = (ctypes.c_int * n)(*[len(a.shape) for a in abstracts])
    dims = [(ctypes.c_int64 * max(1, len(a.shape)))(*a.shape) for a in abstracts]
    shapes = (ctypes.POINTER(ctypes.c_int64) * n)(
        *[ctypes.cast(d, ctypes.POINTER(ctypes.c_int64)) for d in dims])
    dtypes = (ctypes.c_char_p * n)(*[a.dtype.name.encode() for a in abstracts])
    ptrs = (ctypes.c_void_p * n)()
    expect = [(a.shape, a.np) for a in abstracts]

    def launch(*arrays):
        if len(arrays) != n:
            raise KernelError(f"For '{label}', the aot kernel got {len(arrays)} buffers, "
                              f"expected {n}")
        keep = []
        for i, a in enumerate(arrays):
            if a.shape != expect[i][0] or a.dtype != expect[i][1]:
                raise KernelError(f"For '{label}', aot argument {i} has shape {list(a.shape)} "
                                  f"{a.dtype}, expected {list(expect[i][0])} {expect[i][1]}")
            if not a.flags.c_contiguous or (i >= n_in and not a.flags.writeable):
                if i >= n_in:
                    raise KernelError(f"For '{label}', aot output {i - n_in} is not a "
                                      "contiguous writable buffer")
                a = np.ascontiguousarray(a)
                keep.append(a)            # alive until the call returned
            ptrs[i] = a.ctypes.data
        ret = cfunc(n, ptrs, ndims, shapes, dtypes, None, None)
        if ret != 0:
            raise KernelError(f"For '{label}', the aot kernel '{func}' returned {ret} "
                              "(non-zero means failure)")
    launch.__name__ = symbol
    launch.keepalive = (dims, shapes, dtypes, ndims, ptrs)
    return launch


def white_list():
    """The directories aot libraries may load from (empty: no restriction)."""
    dirs = []
    for var in WHITE_LIST_VARS:
        dirs += [d for d in os.environ.get(var, "").split(os.pathsep) if d]
    return dirs


def _check_white_list(path, label):
    dirs = white_list()
    if not dirs:
        return
    real = os.path.realpath(path)
    for d in dirs:
        root = os.path.realpath(d)
        if os.path.commonpath([real, root]) == root:
            return
    raise KernelError(f"For '{label}', the aot library '{path}' is outside the white list "
                      f"{dirs} ({' / '.join(WHITE_LIST_VARS)})")


def load_aot(path, symbol, label):
    """The C function `symbol` of the library (or .cc/.cpp source, compiled) at `path`."""
    import ctypes
    if not os.path.isfile(path):
        raise KernelError(f"For '{label}', the aot file '{path}' does not exist")
    _check_white_list(path, label)
    real = os.path.realpath(path)
    if real.endswith((".cc", ".cpp", ".cxx")):
        real = compile_source(real, label)
    lib = _LIBS.get(real)
    if lib is None:
        try:
            lib = _LIBS[real] = ctypes.CDLL(real)
        except OSError as e:
            raise KernelError(f"For '{label}', the aot library '{path}' cannot be loaded: "
                              f"{e}") from None
    try:
        cfunc = getattr(lib, symbol)
    except AttributeError:
        raise KernelError(f"For '{label}', the aot library '{path}' has no symbol '{symbol}' "
                          "(declare it extern \"C\")") from None
    ptr = ctypes.POINTER
    cfunc.argtypes = (ctypes.c_int, ptr(ctypes.c_void_p), ptr(ctypes.c_int),
                      ptr(ptr(ctypes.c_int64)), ptr(ctypes.c_char_p), ctypes.c_void_p,
                      ctypes.c_void_p)
    cfunc.restype = ctypes.c_int
    return cfunc


def cache_dir():
    return os.environ.get("MINDLITE_CUSTOM_AOT_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "mindlite", "custom_aot")


def compile_source(src, label):
    """Compile a .cc/.cpp once (cached by the hash of source, compiler and flags)."""
    import hashlib
    import subprocess
    cxx = os.environ.get("CXX", "g++")
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read() + " ".join((cxx,) + CXX_FLAGS).encode()).hexdigest()
    stem = os.path.splitext(os.path.basename(src))[0]
    out = os.path.join(cache_dir(), f"{stem}_{digest[:16]}.so")
    if os.path.isfile(out):
        return out
    os.makedirs(cache_dir(), exist_ok=True)
    tmp = f"{out}.{os.getpid()}.tmp"
    try:
        proc = subprocess.run([cxx, *CXX_FLAGS, src, "-o", tmp], capture_output=True, text=True,
                              timeout=600, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        raise KernelError(f"For '{label}', compiling '{src}' with {cxx} failed: {e}") from None
    if proc.returncode != 0:
        raise KernelError(f"For '{label}', compiling '{src}' with {cxx} failed:\n"
                          f"{proc.stderr[-2000:]}")
    os.replace(tmp, out)
    return out


_BUILDERS = {"pyfunc": _pyfunc, "numba": _numba, "aot": _aot}
FUNC_TYPES = tuple(_BUILDERS)
for _provider in FUNC_TYPES:
    if not any(k.provider == _provider for k in KERNELS.get("Custom", ())):
        _add(CustomKernelDef("Custom", "CPU", None, _provider, 0, "runtime", None, None), False)
