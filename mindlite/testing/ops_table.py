"""The operations the fuzzer's programs are made of.

Elementwise primitives come from mindlite's own op registry: every class in ops.operations
deriving from UnaryOp or BinaryOp that builds without arguments. Whether one runs for a
dtype (or a pair of dtypes) is asked of mindlite itself, once per process: the primitive is
called eagerly on small sample tensors, and its result type is kept; a primitive that has
no kernel for a dtype is simply never drawn for it. Each type is (dtype name, shape), the
shape holding "B" for the batch dimension (dynamic in the dynamic runs).
"""
import importlib
import inspect
import pkgutil
import threading

import numpy as np

DTYPES = ("float32", "float64", "int32", "int64", "bool")
FLOATS = ("float32", "float64")
# elementwise primitives whose values the fuzzer's comparisons cannot use: random ones, and
# those whose results are defined by the kernel only up to undefined behaviour
_SKIP = frozenset(("_Activation", "FloatUnaryOp", "CompareOp", "LogicalBinaryOp"))

_LOCK = threading.Lock()
_PRIMS = {}                      # "unary" / "binary" -> [class name]
_RESULTS = {}                    # (name, dtypes) -> result dtype name or None


def primitives(kind):
    """Names of the registry's unary or binary elementwise primitives."""
    with _LOCK:
        if not _PRIMS:
            _PRIMS.update(_discover())
    return _PRIMS[kind]


def _discover():
    from ..ops import operations
    from ..ops.operations import _base
    found = {"unary": [], "binary": []}
    for info in pkgutil.iter_modules(operations.__path__):
        mod = importlib.import_module(f"{operations.__name__}.{info.name}")
        for name, cls in sorted(vars(mod).items()):
            if not inspect.isclass(cls) or cls.__module__ != mod.__name__ or name in _SKIP \
                    or name.startswith("_") or not hasattr(__import__("mindlite").ops, name):
                continue
            kind = "unary" if issubclass(cls, _base.UnaryOp) else \
                "binary" if issubclass(cls, _base.BinaryOp) else None
            if kind is None:
                continue
            try:
                cls()
            except TypeError:
                continue
            found[kind].append(name)
    return found


def result_dtype(name, dtypes):
    """The dtype name `ops.<name>()` gives for operands of `dtypes` (names; "int"/"float"
    for Python scalars), or None when mindlite does not run it for them."""
    key = (name, dtypes)
    hit = _RESULTS.get(key, False)
    if hit is not False:
        return hit
    import warnings

    import mindlite
    from ..common.tensor import Tensor
    args = []
    for d in dtypes:
        if d == "int":
            args.append(2)
        elif d == "float":
            args.append(0.5)
        else:
            args.append(Tensor(np.array([1, 0, 3], dtype=np.dtype(d))))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(mindlite.ops, name)()(*args)
        result = str(out.dtype).lower() if isinstance(out, Tensor) else None
        result = {"bool_": "bool"}.get(result, result)
        if result not in DTYPES:
            result = None
    except Exception:
        result = None
    with _LOCK:
        _RESULTS[key] = result
    return result


def broadcast(a, b):
    """The broadcast of two shapes ("B" broadcasts with itself and with 1), or None."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


# structured ops: (name, allowed dtypes); the generator (program.py) writes their calls
REDUCTIONS = {"ReduceSum": DTYPES[:4], "ReduceMean": FLOATS, "ReduceMax": DTYPES[:4],
              "ReduceMin": DTYPES[:4], "ReduceProd": FLOATS}
DIFFERENTIABLE = frozenset(("Abs", "Exp", "Neg", "ReLU", "Sigmoid", "Tanh", "Square", "Sin",
                            "Cos", "Softplus", "Add", "Sub", "Mul", "Maximum", "Minimum",
                            "ReduceSum", "ReduceMean", "ReduceMax", "matmul", "cast",
                            "select", "concat", "getitem", "transpose", "reshape", "softmax",
                            "ELU", "Elu", "SiLU", "GeLU", "Mish", "Softsign", "LeakyReLU",
                            "HSwish", "HSigmoid", "ReLU6", "Erf", "SeLU", "CeLU"))
