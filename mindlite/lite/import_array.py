"""The Lite runtime's import rules for the layout-free ops: elementwise arithmetic (the
ArithmeticFusion family with its activation, comparisons, logic), unary math, reductions,
shapes and views (Reshape, Transpose, Flatten, ExpandDims / Unsqueeze / Squeeze, Shape,
BroadcastTo, TileFusion, ConstantOfShape), slicing and joining (SliceFusion, StridedSlice,
Gather, Split, Concat, Stack, Unstack), selection (Where / Select, ArgMaxFusion / ArgMinFusion,
OneHot), Cast, Range, AddN, Custom. Rule interface: import_common.py; IMPORT is read by
ops_map.py.
"""
import numpy as np

from ..common import dtype as mstype
from ..ops import operations as P
from . import schema as S
from .import_common import activate, axis_of, const_floats, const_ints, rank

ARITHMETIC = {"AddFusion": P.Add, "SubFusion": P.Sub, "MulFusion": P.Mul, "DivFusion": P.Div}
BINARY = {"RealDiv": P.RealDiv, "Maximum": P.Maximum, "Minimum": P.Minimum, "Greater": P.Greater,
          "GreaterEqual": P.GreaterEqual, "Less": P.Less, "LessEqual": P.LessEqual,
          "Equal": P.Equal, "NotEqual": P.NotEqual, "FloorDiv": P.FloorDiv,
          "FloorMod": P.FloorMod, "Mod": P.Mod, "LogicalAnd": P.LogicalAnd,
          "LogicalOr": P.LogicalOr}
UNARY = {"Abs": P.Abs, "Neg": P.Neg, "Log": P.Log, "Sqrt": P.Sqrt, "Rsqrt": P.Rsqrt,
         "Square": P.Square, "Floor": P.Floor, "Ceil": P.Ceil, "Round": P.Round, "Sin": P.Sin,
         "Cos": P.Cos, "Erf": P.Erf, "Reciprocal": P.Reciprocal, "LogicalNot": P.LogicalNot}


def _arithmetic(cls):
    def rule(b, node):
        return [activate(b, node, b.emit(cls(), b.input(0), b.input(1)))]
    return rule


def _pow(b, node):
    """PowFusion: (scale * x + shift) ** y."""
    a = node.attrs
    x = b.input(0)
    if (a["scale"], a["shift"]) != (1.0, 0.0):
        x = b.emit(P.Add(), b.emit(P.Mul(), x, float(a["scale"])), float(a["shift"]))
    return [b.emit(P.Pow(), x, b.input(1))]


def _exp(b, node):
    """ExpFusion: base ** (scale * x + shift), base -1 meaning e."""
    a = node.attrs
    x = b.input(0)
    if a["scale"] != 1.0 or a["shift"] != 0.0:
        x = b.emit(P.Add(), b.emit(P.Mul(), x, float(a["scale"])), float(a["shift"]))
    if a["base"] not in (-1.0,):
        if a["base"] <= 0:
            b.fail(f"base {a['base']} is not supported (-1 for e, or a positive base)")
        x = b.emit(P.Mul(), x, float(np.log(a["base"])))
    return [b.emit(P.Exp(), x)]


_REDUCE = {"ReduceMean": P.ReduceMean, "ReduceMax": P.ReduceMax, "ReduceMin": P.ReduceMin,
           "ReduceProd": P.ReduceProd, "ReduceSum": P.ReduceSum, "ReduceAll": P.ReduceAll}


def _reduce(b, node):
    a = node.attrs
    mode = S.REDUCE_NAME.get(a["mode"])
    x = b.input(0)
    if a["coeff"] not in (0.0, 1.0):
        b.fail(f"coeff {a['coeff']} is not supported")
    axes = const_ints(b, 1, "axes") if len(node.inputs) > 1 else ()
    axes = tuple(axis_of(b, v, x) for v in axes)
    if a["reduce_to_end"]:
        if len(axes) != 1:
            b.fail("reduce_to_end needs one axis")
        axes = tuple(range(axes[0], rank(x)))
    if not axes:
        axes = tuple(range(rank(x)))
    keep = bool(a["keep_dims"])
    if mode in _REDUCE:
        return [b.emit(_REDUCE[mode](keep_dims=keep), x, axes)]
    if mode == "ReduceSumSquare":
        return [b.emit(P.ReduceSum(keep_dims=keep), b.emit(P.Square(), x), axes)]
    if mode == "ReduceASum":
        return [b.emit(P.ReduceSum(keep_dims=keep), b.emit(P.Abs(), x), axes)]
    if mode == "ReduceL2":
        return [b.emit(P.Sqrt(), b.emit(P.ReduceSum(keep_dims=keep), b.emit(P.Square(), x),
                                        axes))]
    b.fail(f"reduce mode {a['mode']} is not supported")


# ---- shapes and views -----------------------------------------------------------------------
def _reshape(b, node):
    """Reshape to input 1 (or the folded Shape chain feeding it); 0 keeps the input's dim."""
    x = b.input(0)
    shape = const_ints(b, 1, "shape") if len(node.inputs) > 1 else b.fail("no shape input")
    src = x.abstract.shape
    shape = tuple(src[i] if d == 0 and i < len(src) else d for i, d in enumerate(shape))
    return [b.emit(P.Reshape(), x, shape)]


def _flatten(b, node):
    x = b.input(0)
    shape = tuple(x.abstract.shape)
    axis = axis_of(b, node.attrs["axis"], x) if shape else 0
    lead = int(np.prod(shape[:axis], dtype=np.int64))
    return [b.emit(P.Reshape(), x, (lead, -1))]


def _squeeze(b, node):
    x = b.input(0)
    axes = tuple(axis_of(b, v, x) for v in node.attrs["axis"] or ())
    return [b.emit(P.Squeeze(axes), x)]


def _unsqueeze(b, node):
    x = b.input(0)
    out = rank(x) + len(node.attrs["axis"] or ())
    shape = list(x.abstract.shape)
    for ax in sorted(v % out for v in node.attrs["axis"] or ()):
        shape.insert(ax, 1)
    return [b.emit(P.Reshape(), x, tuple(shape))]


def _shape(b, node):
    shape = b.input(0).abstract.shape
    if any(d is None or d < 0 for d in shape):
        b.fail(f"the input's shape {list(shape)} is not static")
    return [b.new_const(np.asarray(shape, np.int32), f"{node.name}_shape")]


def _broadcast_to(b, node):
    x = b.input(0)
    shape = const_ints(b, 1, "shape") if len(node.inputs) > 1 else \
        tuple(node.attrs["shape"] or ())
    try:
        out = np.broadcast_shapes(tuple(x.abstract.shape), shape)
    except ValueError:
        b.fail(f"shape {list(shape)} does not broadcast with {list(x.abstract.shape)}")
    return [b.emit(P.BroadcastTo(tuple(out)), x)]


def _tile(b, node):
    x = b.input(0)
    mult = const_ints(b, 1, "multiples")
    dims = node.attrs["dims"]
    if dims and len(dims) != len(mult):
        full = [1] * rank(x)
        for d, m in zip(dims, mult):
            full[axis_of(b, d, x)] = m
        mult = tuple(full)
    return [b.emit(P.Tile(), x, mult)]


def _constant_of_shape(b, node):
    shape = const_ints(b, 0, "shape")
    value = node.attrs["value"] or [0.0]
    dtype = S.DTYPE_OF.get(node.attrs["data_type"], np.dtype(np.float32))
    return [b.new_const(np.full(shape, value[0], dtype), f"{node.name}_value")]


# ---- slicing and joining --------------------------------------------------------------------
def _slice(b, node):
    """SliceFusion: x[begin : begin + size] on `axes` (all axes when absent)."""
    x = b.input(0)
    begin, size = const_ints(b, 1, "begin"), const_ints(b, 2, "size")
    axes = node.attrs["axes"] or list(range(len(begin)))
    full_b, full_s = [0] * rank(x), [-1] * rank(x)
    for ax, v, n in zip(axes, begin, size):
        full_b[axis_of(b, ax, x)], full_s[axis_of(b, ax, x)] = v, n
    return [b.emit(P.Slice(), x, tuple(full_b), tuple(full_s))]


def _strided_slice(b, node):
    """StridedSlice: (x, begin, end, strides) with TensorFlow's masks, or ONNX's form
    (x, starts, ends, axes, steps) that Lite's converter writes for Slice."""
    a = node.attrs
    x = b.input(0)
    n = len(node.inputs)
    if n == 5:
        starts, ends = const_ints(b, 1, "begin"), const_ints(b, 2, "end")
        axes, steps = const_ints(b, 3, "axes"), const_ints(b, 4, "strides")
        r = rank(x)
        begin, end, strides = [0] * r, [0] * r, [1] * r
        mask = (1 << r) - 1
        for ax, s, e, st in zip(axes, starts, ends, steps):
            ax = axis_of(b, ax, x)
            dim = x.abstract.shape[ax]
            begin[ax], strides[ax] = max(min(s, dim), -dim - 1), st
            end[ax] = max(min(e, dim), -dim - 1)
            mask &= ~(1 << ax)
        prim = P.StridedSlice(mask, mask, 0, 0, 0)
        return [b.emit(prim, x, tuple(begin), tuple(end), tuple(strides))]
    if n != 4:
        b.fail(f"StridedSlice takes 4 or 5 inputs, got {n}")
    prim = P.StridedSlice(a["begin_mask"], a["end_mask"], a["ellipsis_mask"],
                          a["new_axis_mask"], a["shrink_axis_mask"])
    return [b.emit(prim, x, const_ints(b, 1, "begin"), const_ints(b, 2, "end"),
                   const_ints(b, 3, "strides"))]


def _gather(b, node):
    x = b.input(0)
    axis = axis_of(b, const_ints(b, 2, "axis")[0], x) if len(node.inputs) > 2 else 0
    idx = b.input(1)
    v = b.const(1)
    if v is not None and np.asarray(v).size and np.asarray(v).min() < 0:
        idx = b.new_const(np.asarray(v) % x.abstract.shape[axis], f"{node.name}_indices")
    return [b.emit(P.Gather(), x, idx, axis)]


def _split(b, node):
    a = node.attrs
    x = b.input(0)
    axis = axis_of(b, a["axis"], x)
    n = len(node.outputs)
    sizes = list(a["size_splits"] or ())
    if len(node.inputs) > 1:
        sizes = list(const_ints(b, 1, "size_splits"))
    dim = x.abstract.shape[axis]
    if not sizes:
        if dim % n:
            b.fail(f"axis {axis} of size {dim} does not split into {n} equal parts")
        sizes = [dim // n] * n
    if -1 in sizes:
        sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
    if len(sizes) != n or sum(sizes) != dim:
        b.fail(f"size_splits {sizes} do not split axis {axis} of size {dim} into {n} outputs")
    outs, start = [], 0
    for s in sizes:
        begin, size = [0] * rank(x), [-1] * rank(x)
        begin[axis], size[axis] = start, s
        outs.append(b.emit(P.Slice(), x, tuple(begin), tuple(size)))
        start += s
    return outs


def _concat(b, node):
    ins = tuple(b.input(i) for i in range(len(node.inputs)))
    axis = axis_of(b, node.attrs["axis"], ins[0])
    return [b.emit(P.Concat(axis), ins)]


def _stack(b, node):
    ins = tuple(b.input(i) for i in range(len(node.inputs)))
    axis = node.attrs["axis"] % (rank(ins[0]) + 1)
    return [b.emit(P.Stack(axis), ins)]


def _unstack(b, node):
    x = b.input(0)
    axis = axis_of(b, node.attrs["axis"], x)
    out = b.emit(P.Unstack(axis), x)
    return [b.item(out, i) for i in range(x.abstract.shape[axis])]


# ---- selection, types -----------------------------------------------------------------------
def _where(b, node):
    if len(node.inputs) != 3:
        b.fail("Where with one input (the indices of true elements) is not supported")
    cond, x, y = b.input(0), b.input(1), b.input(2)
    shape = np.broadcast_shapes(*(tuple(v.abstract.shape) for v in (cond, x, y)))
    cond, x, y = (v if tuple(v.abstract.shape) == shape else
                  b.emit(P.BroadcastTo(shape), v) for v in (cond, x, y))
    return [b.emit(P.Select(), cond, x, y)]


def _arg(is_max):
    def rule(b, node):
        a = node.attrs
        x = b.input(0)
        if a["top_k"] != 1:
            b.fail(f"top_k {a['top_k']} is not supported (1)")
        axis = axis_of(b, a["axis"], x)
        prim = P.ArgMaxWithValue if is_max else P.ArgMinWithValue
        both = b.emit(prim(axis, bool(a["keep_dims"])), x)
        index = b.item(both, 0)
        if len(node.outputs) == 2:
            return [index, b.item(both, 1)]
        return [b.item(both, 1) if a["out_max_value"] else index]
    return rule


def _one_hot(b, node):
    depth = const_ints(b, 1, "depth")[0]
    return [b.emit(P.OneHot(node.attrs["axis"]), b.input(0), depth, b.input(2), b.input(3))]


def _cast(b, node):
    code = const_ints(b, 1, "destination type")[0]
    dt = S.DTYPE_OF.get(code)
    if dt is None:
        b.fail(f"destination TypeId {code} is not supported")
    return [b.emit(P.Cast(), b.input(0), mstype.to_type(dt))]


def _range(b, node):
    if len(node.inputs) == 3:
        start, limit, delta = (const_floats(b, i, "range bound")[0] for i in range(3))
        dtype = b.input(0).abstract.np
    else:
        a = node.attrs
        start, limit, delta, dtype = a["start"], a["limit"], a["delta"], np.int32
    return [b.new_const(np.arange(start, limit, delta).astype(dtype), f"{node.name}_range")]


def _custom(b, node):
    from ..ops.operations.custom_ops import Custom
    prim = Custom(None, type=node.attrs["type"], attrs=dict(node.attrs["attr"] or []))
    out = b.emit(prim, *[b.input(i) for i in range(len(node.inputs))])
    if len(node.outputs) == 1:
        return [out]
    return [b.item(out, i) for i in range(len(node.outputs))]


IMPORT = {
    "PowFusion": _pow, "ExpFusion": _exp, "ReduceFusion": _reduce,
    "SquaredDifference": lambda b, n: [b.emit(P.Square(), b.emit(P.Sub(), b.input(0),
                                                                   b.input(1)))],
    "Reshape": _reshape, "Flatten": _flatten, "Squeeze": _squeeze, "Unsqueeze": _unsqueeze,
    "ExpandDims": lambda b, n: [b.emit(P.ExpandDims(), b.input(0),
                                       const_ints(b, 1, "axis")[0])],
    "Transpose": lambda b, n: [b.emit(P.Transpose(), b.input(0), const_ints(b, 1, "perm"))],
    "Shape": _shape, "BroadcastTo": _broadcast_to, "TileFusion": _tile,
    "ConstantOfShape": _constant_of_shape,
    "SliceFusion": _slice, "StridedSlice": _strided_slice, "Gather": _gather, "Split": _split,
    "Concat": _concat, "Stack": _stack, "Unstack": _unstack,
    "Where": _where, "Select": _where, "ArgMaxFusion": _arg(True), "ArgMinFusion": _arg(False),
    "OneHot": _one_hot, "Cast": _cast, "Range": _range,
    "AddN": lambda b, n: [b.emit(P.AddN(), tuple(b.input(i) for i in range(len(n.inputs))))],
    "Custom": _custom,
}
IMPORT.update({k: _arithmetic(v) for k, v in ARITHMETIC.items()})
IMPORT.update({k: (lambda cls: lambda b, n: [b.emit(cls(), b.input(0), b.input(1))])(v)
               for k, v in BINARY.items()})
IMPORT.update({k: (lambda cls: lambda b, n: [b.emit(cls(), b.input(0))])(v)
               for k, v in UNARY.items()})
