"""Smoke calls shared by both sides of tools/api_coverage.py (MindSpore's venv and mindlite's).

Imports only numpy and the standard library, so MindSpore's interpreter (numpy<2) and
mindlite's can both load it. A call is a pattern of named inputs (small float/int/bool
tensors, scalars, shapes) applied to a function or a Tensor method; MindSpore's side tries
the patterns in order and keeps the first one MindSpore accepts, mindlite's side replays that
pattern, and the two results are compared after `encode`.
"""
import base64
import signal

import numpy as np

# Input names -> numpy values (wrapped in the library's Tensor unless a plain Python value).
_X = np.linspace(0.1, 0.9, 6, dtype=np.float32).reshape(2, 3)
INPUTS = {
    "x": _X,
    "y": (np.linspace(1.1, 0.2, 6, dtype=np.float32)).reshape(2, 3),
    "z": (np.linspace(0.3, 0.5, 6, dtype=np.float32)).reshape(2, 3),
    "v": np.array([0.5, -1.5, 2.0, 0.25], np.float32),
    "m": np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32),
    "i": np.arange(6, dtype=np.int32).reshape(2, 3),
    "iv": np.array([2, 0, 1], np.int32),
    "b": np.array([[True, False, True], [False, True, True]]),
    "img": np.linspace(0.0, 1.0, 2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4),
}
# Compared by dtype and shape only, as the results that change between two calls: functions
# whose values are whatever memory held (MindSpore documents them as uninitialized), and
# samplers whose MindSpore 2.10 results vary call to call (seen over 8 calls) where two calls
# can coincide (a row of 3 categories, a shuffle of 2 rows).
UNINITIALIZED = frozenset({"empty", "empty_like", "new_empty", "empty_strided"})
SAMPLERS = frozenset({"multinomial", "random_categorical", "shuffle"})


def values_undefined(name):
    return name in UNINITIALIZED or name in SAMPLERS
SCALARS = {"1": 1, "0": 0, "2": 2, "-1": -1, "0.5": 0.5, "s23": (2, 3), "s3": 3, "s32": (3, 2)}

# Patterns tried for a function, in order: the first MindSpore accepts is the one compared.
FUNCTION_PATTERNS = [
    ("x",), ("x", "y"), ("x", "1"), ("x", "0"), ("v",), ("v", "v"), ("m",), ("m", "m"),
    ("i",), ("i", "i"), ("b",), ("b", "b"), ("x", "y", "z"), ("x", "2"), ("x", "0.5"),
    ("x", "iv"), ("x", "1", "iv"), ("x", "s32"), ("img",), ("x", "0", "1"), ("s23",),
    ("s3",), ("0", "s3"), ("1", "s23"), ("x", "x", "x", "x"), (),
]
# Tensor methods: the receiver is `x` (`i` / `b` for the int / bool patterns).
METHOD_PATTERNS = [
    ("x",), ("x", "y"), ("x", "1"), ("x", "0"), ("m",), ("m", "m"), ("i",), ("b",),
    ("b", "b"), ("x", "y", "z"), ("x", "2"), ("x", "0.5"), ("x", "s32"), ("x", "0", "1"),
    ("x", "iv"), ("x", "1", "iv"),
]


def build_args(pattern, tensor):
    """The arguments of a pattern: tensors through `tensor` (the library's constructor)."""
    out = []
    for name in pattern:
        if name in INPUTS:
            out.append(tensor(INPUTS[name].copy()))
        else:
            out.append(SCALARS[name])
    return out


def encode(value, depth=0):
    """A JSON-able description of a result: tensors and arrays by dtype, shape and bytes."""
    if depth > 4:
        return {"k": "obj", "type": type(value).__name__}
    if hasattr(value, "asnumpy"):
        arr = np.asarray(value.asnumpy())
        return _array(arr)
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, (bool, np.bool_)):
        return {"k": "bool", "v": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"k": "num", "v": int(value)}
    if isinstance(value, (float, np.floating)):
        return {"k": "num", "v": float(value)}
    if isinstance(value, (tuple, list)):
        return {"k": "seq", "v": [encode(v, depth + 1) for v in value]}
    if value is None:
        return {"k": "none"}
    return {"k": "obj", "type": type(value).__name__}


def _array(arr):
    name = str(arr.dtype)
    if name in ("bfloat16",) or arr.dtype.kind not in "biufc":
        return {"k": "arr", "dtype": name, "shape": list(arr.shape), "data": None}
    data = base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode() if arr.size < 4096 \
        else None
    return {"k": "arr", "dtype": name, "shape": list(arr.shape), "data": data}


def decode_array(enc):
    if enc.get("data") is None:
        return None
    raw = base64.b64decode(enc["data"])
    return np.frombuffer(raw, dtype=np.dtype(enc["dtype"])).reshape(enc["shape"])


def agree(ms, ml, values=True):
    """'' when two encoded results agree (dtype, shape, values within float32 tolerance),
    else a short reason. `values=False` compares structure, dtypes and shapes only."""
    if ms["k"] != ml["k"]:
        if ms["k"] == "num" and ml["k"] == "arr" and ml["shape"] == []:
            return "" if not values else _num_vs_arr(ms["v"], ml)
        return f"kind {ms['k']} vs {ml['k']}"
    k = ms["k"]
    if k == "seq":
        if len(ms["v"]) != len(ml["v"]):
            return f"length {len(ms['v'])} vs {len(ml['v'])}"
        for a, b in zip(ms["v"], ml["v"]):
            why = agree(a, b, values)
            if why:
                return why
        return ""
    if k in ("num", "bool"):
        if not values:
            return ""
        same = ms["v"] == ml["v"] or (isinstance(ms["v"], float) and
                                      np.isclose(ms["v"], ml["v"], rtol=1e-4, equal_nan=True))
        return "" if same else f"value {ms['v']} vs {ml['v']}"
    if k == "arr":
        if ms["dtype"] != ml["dtype"]:
            return f"dtype {ms['dtype']} vs {ml['dtype']}"
        if ms["shape"] != ml["shape"]:
            return f"shape {ms['shape']} vs {ml['shape']}"
        a, b = decode_array(ms), decode_array(ml)
        if not values or a is None or b is None:
            return ""
        if a.dtype.kind in "fc":
            ok = np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = np.array_equal(a, b)
        return "" if ok else "values differ"
    return ""


def _num_vs_arr(v, enc):
    arr = decode_array(enc)
    return "" if arr is not None and np.isclose(arr.item(), v, rtol=1e-4) else "value differs"


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout("call took over 10 s")


def call_with_timeout(fn, args, seconds=10):
    """fn(*args), interrupted (between bytecodes) after `seconds`."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
