"""What the Lite runtime's import rules share (import_nn.py, import_array.py): a node's
layout, activation, constant inputs, and the NHWC <-> NCHW transposes.

An import rule is `rule(b, node) -> [output AnfNodes]`, `b` the runtime's GraphBuilder
(graph_build.py): `b.input(i)` the node's i-th input, `b.const(i)` its constant value (numpy)
or None, `b.emit(prim, *args)` one mindlite primitive call, `b.fail(msg)` a LiteBuildError
naming the file, the node and the op. So a Lite op runs as mindlite primitives through
mindlite's kernel registry.

Layouts: MindSpore Lite's converter writes 4-D activations NHWC and convolution weights KHWC
(a node's `format` field, and the input tensor's); mindlite's own files before it wrote them
the same way did NCHW. `nhwc(b, node)` tells which; ops that are layout-free (elementwise,
MatMul, Concat on an axis) need not know.
"""
import numpy as np

from ..ops import operations as P
from . import schema as S

TO_NCHW, TO_NHWC = (0, 3, 1, 2), (0, 2, 3, 1)


def nhwc(b, node, index=0):
    """True when the node's 4-D input `index` is NHWC: the node's `format` field where its
    table has one, else the input tensor's."""
    fmt = node.attrs.get("format")
    if fmt is None:
        fmt = b.model.tensors[node.inputs[index]].format
    if fmt not in (S.FORMAT_NCHW, S.FORMAT_NHWC):
        b.fail(f"format {S.FORMAT_NAME.get(fmt, fmt)} is not supported (NCHW or NHWC)")
    return fmt == S.FORMAT_NHWC


def to_nchw(b, x):
    return b.emit(P.Transpose(), x, TO_NCHW)


def to_nhwc(b, x):
    return b.emit(P.Transpose(), x, TO_NHWC)


def rank(x):
    return len(x.abstract.shape)


# ---- activations ----------------------------------------------------------------------------
def _relu1(b, x):
    return b.emit(P.Minimum(), b.emit(P.Maximum(), x, _like(x, -1.0)), _like(x, 1.0))


def _hard_tanh(b, x, lo, hi):
    return b.emit(P.Minimum(), b.emit(P.Maximum(), x, _like(x, lo)), _like(x, hi))


def gelu_erf(b, x):
    """0.5 x (1 + erf(x / sqrt(2))): Lite's GELU without `approximate` (mindlite's GeLU
    primitive is the tanh form, Lite's GELU with `approximate`)."""
    e = b.emit(P.Erf(), b.emit(P.Mul(), x, _like(x, 0.7071067811865476)))
    return b.emit(P.Mul(), b.emit(P.Mul(), x, _like(x, 0.5)),
                  b.emit(P.Add(), e, _like(x, 1.0)))


def _like(x, v):
    return np.asarray(v, x.abstract.np).item()


ACTIVATIONS = {
    "RELU": lambda b, x, a: b.emit(P.ReLU(), x),
    "RELU6": lambda b, x, a: b.emit(P.ReLU6(), x),
    "SIGMOID": lambda b, x, a: b.emit(P.Sigmoid(), x),
    "TANH": lambda b, x, a: b.emit(P.Tanh(), x),
    "HSWISH": lambda b, x, a: b.emit(P.HSwish(), x),
    "HSIGMOID": lambda b, x, a: b.emit(P.HSigmoid(), x),
    "GELU": lambda b, x, a: b.emit(P.GeLU(), x) if a.get("approximate") else gelu_erf(b, x),
    "ELU": lambda b, x, a: b.emit(P.Elu(float(a.get("alpha", 1.0))), x),
    "LEAKY_RELU": lambda b, x, a: b.emit(P.LeakyReLU(float(a.get("alpha", 0.2))), x),
    "SOFTPLUS": lambda b, x, a: b.emit(P.Softplus(), x),
    "ABS": lambda b, x, a: b.emit(P.Abs(), x),
    "SIGN": lambda b, x, a: b.emit(P.Sign(), x),
    "SOFTSIGN": lambda b, x, a: b.emit(P.Softsign(), x),
    "SELU": lambda b, x, a: b.emit(P.SeLU(), x),
    "SWISH": lambda b, x, a: b.emit(P.Mul(), x, b.emit(P.Sigmoid(), x)),
    "RELU1": lambda b, x, a: _relu1(b, x),
    "HARD_TANH": lambda b, x, a: _hard_tanh(b, x, a.get("min_val", -1.0),
                                            a.get("max_val", 1.0)),
}


def activate(b, node, out, attrs=None):
    """`out` through the node's activation_type (NO_ACTIVATION: unchanged)."""
    attrs = node.attrs if attrs is None else attrs
    code = attrs.get("activation_type", 0)
    act = S.ACT_NAME.get(code)
    if act == "NO_ACTIVATION":
        return out
    rule = ACTIVATIONS.get(act)
    y = rule(b, out, attrs) if rule is not None else None
    if y is None:
        b.fail(f"activation_type {act or code} is not supported")
    return y


# ---- constant inputs ------------------------------------------------------------------------
def const_ints(b, i, what):
    """Input i as a tuple of Python ints; it must be a constant tensor."""
    v = b.const(i)
    if v is None:
        b.fail(f"its {what} (input {i}) must be a constant tensor")
    return tuple(int(x) for x in np.asarray(v).reshape(-1))


def const_floats(b, i, what):
    v = b.const(i)
    if v is None:
        b.fail(f"its {what} (input {i}) must be a constant tensor")
    return tuple(float(x) for x in np.asarray(v).reshape(-1))


def axis_of(b, axis, x):
    """`axis` of tensor input x, made non-negative (a bad one fails naming the node)."""
    r = rank(x)
    if not -r <= axis < r:
        b.fail(f"axis {axis} is out of range for an input of rank {r}")
    return axis % r
