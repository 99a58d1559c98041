"""More ONNX converters (registered with export.converter like export_ops*.py): HSwish, Mish,
Softsign, LogSigmoid, Hardtanh, SeLU, CeLU, PReLU, ReduceAll/Any, ReduceStd, Einsum,
ReverseV2 (flip), Roll, GatherD, OneHot, Triu/Tril, IsNan/IsInf, Square, MaskedFill (Where;
graph mode's item assignment of a number).

Custom ops: a node of domain "ai.mindlite.custom" whose op_type is the Custom's type and
whose attributes are its byte-string attrs (MindSpore Lite's Custom {type, attr}), the
output shapes and dtypes in value_info. onnxruntime has no kernel for such a node;
load_onnx reads it back as a Custom running the kernels registered for the type.
"""
import numpy as np

from ..common import dtype as mstype
from ._lib import CUSTOM_DOMAIN, onnx_dtype
from .export_op import converter
from .export_ops import _axes

INT64_MAX = np.iinfo(np.int64).max


@converter("HSwish")
def _hswish(op):
    x = op.input(0)
    if op.em.opset >= 14:
        return op.node("HardSwish", [x])
    return op.node("Mul", [x, op.node("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)])


@converter("Mish")
def _mish(op):
    x = op.input(0)
    return op.node("Mul", [x, op.node("Tanh", [op.node("Softplus", [x])])])


@converter("Softsign")
def _softsign(op):
    return op.node("Softsign", [op.input(0)])


@converter("LogSigmoid")
def _log_sigmoid(op):
    """-softplus(-x), stable for large |x|."""
    return op.node("Neg", [op.node("Softplus", [op.node("Neg", [op.input(0)])])])


@converter("Hardtanh")
def _hardtanh(op):
    t = op.out.dtype.np
    lo, hi = op.attrs.get("min_val", -1.0), op.attrs.get("max_val", 1.0)
    return op.node("Clip", [op.input(0), op.em.const(lo, t), op.em.const(hi, t)])


@converter("SeLU")
def _selu(op):
    return op.node("Selu", [op.input(0)])       # MindSpore's alpha / scale are ONNX's defaults


@converter("CeLU")
def _celu(op):
    if op.out.dtype is not mstype.float32:
        op.fail("ONNX Celu is defined for float32 only")
    return op.node("Celu", [op.input(0)], alpha=float(op.attrs.get("alpha", 1.0)))


@converter("PReLU")
def _prelu(op):
    """MindSpore's weight is per channel (axis 1); ONNX broadcasts the slope from the
    trailing axes, so a (C,) slope of an N-D input becomes (C, 1, ..., 1)."""
    x, w = op.input(0), op.input(1)
    rank = op.rank(0)
    if rank > 2 and op.shape(1) != (1,):
        w = op.node("Unsqueeze", [w, op.em.ints(list(range(1, rank - 1)))])
    return op.node("PRelu", [x, w])


@converter("IsNan", "IsInf", "Square")
def _unary_more(op):
    x = op.input(0)
    if op.name == "Square":
        return op.node("Mul", [x, x])
    return op.node("IsNaN" if op.name == "IsNan" else "IsInf", [x])


@converter("ReduceAll", "ReduceAny")
def _all_any(op):
    """On bools: Min / Max of the values as int32."""
    axes = _axes(op, 1) or list(range(op.rank(0)))
    keep = int(bool(op.attrs.get("keep_dims", False)))
    x = op.node("Cast", [op.input(0)], to=onnx_dtype(mstype.int32))
    red = "ReduceMin" if op.name == "ReduceAll" else "ReduceMax"
    if op.em.opset >= 18:
        y = op.node(red, [x, op.em.ints(axes)], keepdims=keep)
    else:
        y = op.node(red, [x], axes=axes, keepdims=keep)
    return op.node("Cast", [y], to=onnx_dtype(mstype.bool_))


@converter("ReduceStd")
def _reduce_std(op):
    """(std, mean) over `axis` (all when empty), dividing by n - 1 when unbiased."""
    a = op.attrs
    rank = op.rank(0)
    axis = a.get("axis", ())
    axes = [axis] if isinstance(axis, int) else list(axis)
    axes = sorted({ax % rank for ax in axes}) or list(range(rank))
    keep = int(bool(a.get("keep_dims", False)))
    n = int(np.prod([op.shape(0)[ax] for ax in axes]))
    t = op.out[0].dtype.np
    x = op.input(0)

    def reduce(kind, v, keepdims):
        if op.em.opset >= 18 or kind == "ReduceSum":
            return op.node(kind, [v, op.em.ints(axes)], keepdims=keepdims)
        return op.node(kind, [v], axes=axes, keepdims=keepdims)
    mean = reduce("ReduceMean", x, 1)
    d = op.node("Sub", [x, mean])
    var = op.node("Div", [reduce("ReduceSum", op.node("Mul", [d, d]), keep),
                          op.em.const(max(n - int(bool(a.get("unbiased", True))), 1), t)])
    std = op.node("Sqrt", [var])
    if not keep:
        mean = op.node("Squeeze", [mean, op.em.ints(axes)])
    return (std, mean)


@converter("Einsum")
def _einsum(op):
    parts = op.em.value(op.args[0])
    parts = parts if isinstance(parts, tuple) else (parts,)
    return op.node("Einsum", list(parts), equation=op.attrs["equation"])


@converter("ReverseV2")
def _flip(op):
    rank = op.rank(0)
    axes = sorted({a % rank for a in op.attrs.get("axis", ())})
    if not axes:
        return op.node("Identity", [op.input(0)])
    n = len(axes)
    return op.node("Slice", [op.input(0), op.em.ints([-1] * n), op.em.ints([-INT64_MAX] * n),
                             op.em.ints(axes), op.em.ints([-1] * n)])


@converter("Roll")
def _roll(op):
    a = op.attrs
    shifts, dims = a.get("shifts"), a.get("dims")
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims or ())
    x = op.input(0)
    shape = op.shape(0)
    if not dims:                                 # over the flattened tensor
        flat = op.node("Reshape", [x, op.em.ints([-1])])
        rolled = _roll_axis(op, flat, shifts[0], 0, int(np.prod(shape)))
        return op.node("Reshape", [rolled, op.em.ints(list(shape))])
    for s, d in zip(shifts, dims):
        x = _roll_axis(op, x, s, d % len(shape), shape[d])
    return x


def _roll_axis(op, x, shift, axis, size):
    shift %= size
    if shift == 0:
        return x
    axes = op.em.ints([axis])
    tail = op.node("Slice", [x, op.em.ints([size - shift]), op.em.ints([size]), axes])
    head = op.node("Slice", [x, op.em.ints([0]), op.em.ints([size - shift]), axes])
    return op.node("Concat", [tail, head], axis=axis)


@converter("GatherD")
def _gather_d(op):
    dim = int(op.const(1)) % op.rank(0)
    return op.node("GatherElements", [op.input(0), op.input(2)], axis=dim)


@converter("OneHot")
def _one_hot(op):
    t = op.out.dtype
    depth = op.em.const(np.array([int(op.const(1))], np.int64))
    on = op.node("Reshape", [op.input(2, t), op.em.ints([1])])
    off = op.node("Reshape", [op.input(3, t), op.em.ints([1])])
    values = op.node("Concat", [off, on], axis=0)
    idx = op.input(0, mstype.int64)              # onnxruntime's OneHot takes int64 indices
    return op.node("OneHot", [idx, depth, values], axis=int(op.attrs.get("axis", -1)))


@converter("MaskedFill")
def _masked_fill(op):
    t = op.out.dtype
    return op.node("Where", [op.input(1, mstype.bool_), op.input(2, t), op.input(0, t)])


@converter("Triu", "Tril")
def _trilu(op):
    """Trilu from opset 14; at 13 the mask is a constant (the shape is static)."""
    k = int(op.attrs.get("diagonal", 0))
    upper = op.name == "Triu"
    if op.em.opset >= 14:
        return op.node("Trilu", [op.input(0), op.em.const(np.array(k, np.int64))],
                       upper=int(upper))
    rows, cols = op.shape(0)[-2:]
    if rows < 0 or cols < 0:
        op.fail("needs a static shape below opset 14")
    mask = np.triu(np.ones((rows, cols), bool), k) if upper else \
        np.tril(np.ones((rows, cols), bool), k)
    zero = op.em.const(np.zeros((), op.out.dtype.np))
    return op.node("Where", [op.em.const(mask), op.input(0), zero])


def export_custom(op):
    """Custom ops (not in CONVERTERS, the set onnxruntime runs: export.py calls this)."""
    prim = op.prim
    ctype = getattr(prim, "custom_type", None)
    if not ctype or not ctype.isidentifier():
        op.fail(f"the Custom type {ctype!r} must be an identifier to name an ONNX op")
    outs = op.out if isinstance(op.out, tuple) else (op.out,)
    ins = [op.input(i) for i in range(len(op.args))]
    attrs = {k: bytes(v) for k, v in getattr(prim, "custom_attrs", {}).items()}
    clash = sorted(set(attrs) & {"name", "domain", "doc_string", "overload", "inputs",
                                 "outputs", "op_type"})
    if clash:
        op.fail(f"attrs {clash} clash with ONNX node fields")
    names = op.node(ctype, ins, n_out=len(outs), hint=f"custom_{ctype}", domain=CUSTOM_DOMAIN,
                    **attrs)
    names = names if isinstance(names, tuple) else (names,)
    for name, ab in zip(names, outs):
        op.em.declare(name, ab)
    op.em.model.domains.add(CUSTOM_DOMAIN)
    return names if isinstance(op.out, tuple) else names[0]
