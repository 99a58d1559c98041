"""The calls tools/api_agreement.py runs in MindSpore 2.10 and in mindlite: the shared inputs,
the generator that turns a MindSpore signature into calls, and the hand-written templates for
names whose arguments a parameter name cannot tell.

A call is a string evaluated in a namespace holding the framework (`ms`, `ops`, `mint`, `nn`,
`F` = mint.nn.functional, `Tensor`, `np`) and the inputs of ENV as Tensors of that framework,
built afresh for every call from the same numpy arrays (a call that writes into its input
cannot leak into the next). A Tensor method `Tensor.name` is called on the input `x` unless
its template says otherwise. Both frameworks import this module (Python 3.11, numpy 1 or 2).
"""
import inspect
import re

import numpy as np

_RNG = np.random.default_rng(20240610)


def _normal(*shape, dtype=np.float32):
    return _RNG.standard_normal(shape).astype(dtype)


def _uniform(lo, hi, *shape, dtype=np.float32):
    return _RNG.uniform(lo, hi, shape).astype(dtype)


def _spd(n):
    a = _RNG.standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


# name -> numpy array; a call sees each as a Tensor of its framework
ENV = {
    "x": _normal(3, 4), "y": _normal(3, 4), "z": _normal(3, 4),
    "p": _uniform(0.5, 2.0, 3, 4), "u": _uniform(-0.9, 0.9, 3, 4),
    "q": _uniform(1.2, 3.0, 3, 4),
    "d": _normal(3, 4, dtype=np.float64), "h": _normal(3, 4, dtype=np.float16),
    "i": _RNG.integers(-5, 6, (3, 4)).astype(np.int64),
    "j": _RNG.integers(1, 6, (3, 4)).astype(np.int64),
    "i32": _RNG.integers(-5, 6, (3, 4)).astype(np.int32),
    "n": _RNG.integers(0, 3, (3, 4)).astype(np.int64),
    "b": _RNG.integers(0, 2, (3, 4)).astype(bool),
    "c": _RNG.integers(0, 2, (3, 4)).astype(bool),
    "v": _normal(4), "w": _normal(4), "vp": _uniform(0.5, 2.0, 4),
    "r": _normal(3), "s": np.array(1.5, np.float32), "e": np.zeros((0, 4), np.float32),
    "m": _spd(4), "m3": _normal(3, 3), "mb": _normal(2, 3, 3),
    "x3": _normal(2, 3, 4), "y3": _normal(2, 4, 5), "x4": _normal(1, 2, 5, 5),
    "img": _normal(2, 3, 6, 6), "seq": _normal(2, 3, 8), "vol": _normal(1, 2, 4, 4, 4),
    "w4": _normal(4, 3, 3, 3), "w3": _normal(4, 3, 3), "w5": _normal(3, 2, 2, 2, 2),
    "wl": _normal(5, 4), "bl": _normal(5),
    "k": np.array([0, 2], np.int64), "k1": np.array([2, 0, 1], np.int64),
    "k4": np.array([3, 0, 1, 1], np.int64),
    "lab": np.array([1, 0, 3], np.int64), "prob": _uniform(0.05, 0.95, 3, 4),
    "tgt": _uniform(0.0, 1.0, 3, 4), "sgn": np.sign(_normal(3, 4)).astype(np.float32),
    "srt": np.sort(_normal(3, 4), axis=-1), "sv": np.sort(_normal(6)),
    "dup": np.array([3, 1, 3, 2, 1, 1], np.int64), "pos": np.array([1, 3, 0, 2], np.int64),
    "g": np.array([[0, 3], [1, 1], [2, 0]], np.int64),
    "gs": np.array([[0, 3], [1, 2], [2, 0]], np.int64), "src": _normal(3, 2),
    "nd": np.array([[0, 1], [2, 3]], np.int64), "upd": _normal(2),
    "rows": np.array([[0], [2]], np.int64), "rupd": _normal(2, 4), "ri": np.array([0, 2]),
    "ri32": np.array([0, 2], np.int32), "seg": np.array([0, 1, 0], np.int64),
    "runs": np.array([1, 1, 2, 2, 2, 3, 1, 1], np.int64), "tri": np.triu(_spd(4)),
    "bb1": _normal(2, 3, 4), "bb2": _normal(2, 4, 5), "m34": _normal(3, 4), "m45": _normal(4, 5),
    "boxes": np.array([[0, 0, 2, 3], [1, 2, 4, 6], [2, 1, 7, 5], [0, 0, 1, 1]], np.float32),
    "v3": _normal(2, 4),
    "grid": _uniform(-1.2, 1.2, 2, 4, 5, 2), "theta": _normal(2, 2, 3),
    "lp": np.log(_uniform(0.05, 0.95, 3, 4)), "mask": _RNG.integers(0, 2, (3, 4)).astype(bool),
}
INT_NAMES = {"i", "j", "i32", "n", "k", "k1", "k4", "lab", "dup", "pos", "g", "gs", "nd",
             "rows", "ri", "ri32", "seg", "runs"}

# ---- parameter name -> the argument a generated call passes -----------------------------------
TENSOR_PARAMS = {"input": "x", "x": "x", "input_x": "x", "self": "x", "a": "x", "x1": "x",
                 "input1": "x", "tensor": "x", "other": "y", "y": "y", "x2": "y",
                 "input2": "y", "b": "y", "end": "y", "tensor1": "y", "tensor2": "z",
                 "exponent": "y", "vec1": "v", "vec2": "w", "divisor": "p",
                 "dividend": "x", "weight": "z", "logits": "x", "labels": "tgt",
                 "target": "tgt", "condition": "b", "mask": "b"}
# domain of the first input by op name (names not listed take `x`)
DOMAINS = {
    "p": "log log2 log10 log1p sqrt rsqrt lgamma digamma polygamma reciprocal mvlgamma "
         "acosh arccosh pow float_power xlogy logit i0 bessel_i0 bessel_i0e bessel_i1 "
         "bessel_i1e bessel_k0 bessel_k0e bessel_k1 bessel_k1e bessel_y0 bessel_y1 "
         "igamma igammac logdet zeta",
    "u": "asin acos atanh arcsin arccos arctanh erfinv",
    "q": "",
}
_DOMAIN = {name: arg for arg, names in DOMAINS.items() for name in names.split()}


def input_for(name):
    """The first tensor argument of a generated call of `name`."""
    return _DOMAIN.get(name.rsplit(".", 1)[-1].rstrip("_"), "x")


OPTIONAL_VARIANTS = {  # optional parameter -> values a variant passes by keyword
    "dim": ("0", "-1"), "axis": ("0", "-1"), "keepdim": ("True",), "keepdims": ("True",),
    "keep_dims": ("True",),
}


def parse_params(sig_text):
    """[(name, has_default, kind)] of a signature text "(a, b=1, *, c=None)"; kind is 'pos',
    'kw' (after *) or 'var' (*args / **kwargs)."""
    body = sig_text.strip()
    if body.startswith("("):
        body = body[1:body.rfind(")")]
    params, kind, depth, cur = [], "pos", 0, ""
    for ch in body + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            p = cur.strip()
            cur = ""
            if not p or p == "/":
                continue
            if p == "*":
                kind = "kw"
                continue
            if p.startswith("*"):
                params.append((p.lstrip("*"), True, "var"))
                continue
            name = p.split("=")[0].split(":")[0].strip()
            params.append((name, "=" in p, kind))
        else:
            cur += ch
    return params


def doc_signature(name, doc):
    """The signature text of `name` from the first line of its docstring ("name(a, b) -> T")."""
    for line in (doc or "").strip().splitlines()[:3]:
        m = re.match(rf"\s*{re.escape(name)}(\(.*\))", line.strip())
        if m:
            return m.group(1).split("->")[0].strip()
    return None


def signature_text(name, fn):
    try:
        text = str(inspect.signature(fn))
    except (TypeError, ValueError):
        text = None
    if text is None or text.startswith("(*args"):
        text = doc_signature(name, getattr(fn, "__doc__", "")) or text
    return text


def generate(qualname, sig_text, method=False):
    """Calls of `qualname` ("ops.abs", "Tensor.sum") made from its signature, or [] when a
    required parameter has no known argument."""
    if not sig_text:
        return []
    params = parse_params(sig_text)
    if method and params and params[0][0] == "self":
        params = params[1:]
    short = qualname.rsplit(".", 1)[-1]
    first = input_for(short)
    args = []
    for pname, has_default, kind in params:
        if kind == "var" or has_default:
            continue
        if kind == "kw":
            return []
        arg = TENSOR_PARAMS.get(pname)
        if arg is None:
            if pname in ("dim", "axis"):
                arg = "1"
            else:
                return []
        if not args and not method and arg == "x":
            arg = first
        args.append(arg)
    calls = [", ".join(args)]
    names = {p[0] for p in params}
    for opt, values in OPTIONAL_VARIANTS.items():
        if opt in names and not any(opt == p[0] and not p[1] for p in params):
            for val in values:
                calls.append(", ".join(args + [f"{opt}={val}"]))
    if "keepdim" in names and "dim" in names:
        calls.append(", ".join(args + ["dim=1", "keepdim=True"]))
    return [_render(qualname, c, method, first) for c in calls]


def _render(qualname, argtext, method, first):
    if method:
        return f"{first}.{qualname.split('.', 1)[1]}({argtext})"
    return f"{qualname}({argtext})"


def dtype_variants(call, first):
    """The call again on float64, float16, int64 and bool inputs (single-input elementwise)."""
    out = []
    for alt in ("d", "h", "i", "b"):
        out.append(re.sub(rf"\b{first}\b", alt, call, count=1))
    return out
