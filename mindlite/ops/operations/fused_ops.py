"""Fused primitives, made by graph mode's fusion passes (mindlite/jit/passes/fuse_*.py) and
usable directly like any primitive.

FusedElemwise(program, n_inputs)
    A DAG of elementwise primitives evaluated in one pass over the output. `program` is a
    tuple of steps (op name, argument refs, Cast's target dtype name or None); a ref is an
    int k (input k), ("t", j) (the value of step j) or ("c", v) (a Python int/float constant,
    converted to the step's dtype as eager's signature promotion does). The last step is the
    result. Inference runs each component primitive's own `infer` in order (ir/infer.py's
    infer_call, the casting eager does), so there is no second copy of shape rules; every
    step must take float32/float64 tensors of its own dtype (no promotion left for the
    kernel to do) and at least one tensor argument. Kernels: kernels/cpu/fused_numpy.py (the
    component reference kernels in sequence) and fused_numba.py (one generated loop).
    Gradient: the steps are replayed eagerly and each component's bprop runs in reverse.

FusedMatMulBiasAdd(transpose_a, transpose_b, activation)
    relu?(op(x1) @ op(x2) + bias): MatMul, then BiasAdd (bias 1-D, one value per output
    column), then ReLU when activation is 'relu', as nn.Dense computes them; the kernel runs
    the MatMul kernel eager would select and the bias (+ReLU) epilogue in place on its output.

FusedConv2DBiasAdd(out_channel, kernel_size, pad_mode, pad, stride, dilation, group,
                   has_bias, activation, pool_stride)
    pool?(relu?(Conv2D(x, w) + bias)): the Conv2D of those attributes (NCHW), then BiasAdd
    (bias 1-D, one value per output channel; inputs (x, w, bias), or (x, w) when has_bias is
    False), then ReLU when activation is 'relu', then, when pool_stride is a pair (sh, sw),
    MaxPool(kernel_size=2, strides=pool_stride, pad_mode='valid'), as nn.Conv2d, nn.ReLU and
    nn.MaxPool2d(2, s) compute them; the C++ kernel runs the small-convolution loop, the bias
    (+ReLU) epilogue in place on its still-hot output and the 2 x 2 max pooling loop
    (kernels/cpu/conv_fused_cpp.py).
"""
from ...common import dtype as mstype
from ...common.api import PYNATIVE
from ...ir.rules import BPROPS, bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_same_dtype, check_tensor, tensor
from ._base import cached_prim, needs_grad
from ._grad_ops import BiasAddGrad, ReluGrad
from .conv_ops import Conv2D, _family
from .math_ops import MatMul, _matmul_grads
from .pool_ops import MaxPool

__all__ = ["FusedElemwise", "FusedMatMulBiasAdd", "FusedConv2DBiasAdd", "ELEMWISE_OPS"]

# name -> number of tensor-position arguments (Cast's second argument is its dtype)
ELEMWISE_OPS = {
    "Add": 2, "Sub": 2, "Mul": 2, "Div": 2, "RealDiv": 2, "Maximum": 2, "Minimum": 2,
    "Neg": 1, "Square": 1, "Abs": 1, "Exp": 1, "Log": 1, "Sqrt": 1, "Rsqrt": 1,
    "Reciprocal": 1, "ReLU": 1, "Sigmoid": 1, "Tanh": 1, "Cast": 1,
}
FLOAT_DTYPES = (mstype.float32, mstype.float64)


def component(name):
    """The shared primitive instance of an elementwise op of ELEMWISE_OPS."""
    from .. import operations
    return cached_prim(getattr(operations, name))


def _bad(msg):
    return ValueError(f"For 'FusedElemwise', {msg}")


def _check_program(program, n_inputs):
    if not isinstance(program, tuple) or not program:
        raise _bad(f"'program' must be a non-empty tuple of steps, but got {program!r}")
    if isinstance(n_inputs, bool) or not isinstance(n_inputs, int) or n_inputs < 1:
        raise _bad(f"'n_inputs' must be a positive int, but got {n_inputs!r}")
    for j, step in enumerate(program):
        if not (isinstance(step, tuple) and len(step) == 3 and step[0] in ELEMWISE_OPS):
            raise _bad(f"step {j} must be (op, refs, dtype) with op one of "
                       f"{sorted(ELEMWISE_OPS)}, but got {step!r}")
        name, refs, extra = step
        if not isinstance(refs, tuple) or len(refs) != ELEMWISE_OPS[name]:
            raise _bad(f"step {j} ({name}) takes {ELEMWISE_OPS[name]} refs, but got {refs!r}")
        if (name == "Cast") != (extra is not None):
            raise _bad(f"step {j}: only Cast steps carry a dtype, but got {step!r}")
        if extra is not None and extra not in ("float32", "float64"):
            raise _bad(f"step {j}: Cast's dtype must be 'float32' or 'float64', but got {extra!r}")
        for r in refs:
            ok = (type(r) is int and 0 <= r < n_inputs) or (
                isinstance(r, tuple) and len(r) == 2 and (
                    (r[0] == "t" and type(r[1]) is int and 0 <= r[1] < j)
                    or (r[0] == "c" and type(r[1]) in (int, float))))
            if not ok:
                raise _bad(f"step {j}: a ref must be an input index < {n_inputs}, ('t', earlier "
                           f"step) or ('c', int/float), but got {r!r}")


class FusedElemwise(Primitive):
    """A fused DAG of elementwise ops (see the module docstring)."""

    @prim_attr_register
    def __init__(self, program=(("Neg", (0,), None),), n_inputs=1):
        _check_program(program, n_inputs)

    def step_abstracts(self, inputs):
        """The abstract of every step, by its component primitive's own inference."""
        from ...ir.infer import Folded, infer_call
        program, n = self.attrs["program"], self.attrs["n_inputs"]
        if len(inputs) != n:
            raise TypeError(f"For 'FusedElemwise', expected {n} inputs, but got {len(inputs)}")
        for i, x in enumerate(inputs):
            check_tensor(self, f"input{i}", x)
        steps = []
        for j, (name, refs, extra) in enumerate(program):
            args = [inputs[r] if type(r) is int else steps[r[1]] if r[0] == "t" else r[1]
                    for r in refs]
            tensors = [a for a in args if not isinstance(a, (int, float))]
            if name == "Cast":
                args.append(getattr(mstype, extra))
            out = infer_call(component(name), args)
            if isinstance(out, Folded) or not tensors:
                raise TypeError(f"For 'FusedElemwise', step {j} ({name}) must take a tensor")
            if out.dtype not in FLOAT_DTYPES or any(
                    t.dtype not in FLOAT_DTYPES or (name != "Cast" and t.dtype is not out.dtype)
                    for t in tensors):
                got = ", ".join(str(t.dtype) for t in tensors)
                raise TypeError(f"For 'FusedElemwise', step {j} ({name}) must take and give "
                                f"float32/float64 tensors of one dtype (Cast: of either), but "
                                f"got ({got}) -> {out.dtype}")
            steps.append(out)
        return steps

    def infer(self, *inputs):
        return self.step_abstracts(inputs)[-1]

    def kernel_params(self, *inputs):
        steps = self.step_abstracts(inputs)
        return {"program": self.attrs["program"],
                "step_dtypes": tuple(s.dtype.np.name for s in steps)}


@bprop_for(FusedElemwise)
def fused_elemwise_bprop(prim, *args):
    """Replay the steps eagerly, then each component's bprop from the last step back."""
    inputs, dout = args[:-2], args[-1]
    program = prim.attrs["program"]
    values = []

    def value(r):
        return inputs[r] if type(r) is int else values[r[1]] if r[0] == "t" else r[1]
    calls = []
    for name, refs, extra in program:
        call_args = [value(r) for r in refs] + ([getattr(mstype, extra)] if extra else [])
        op = component(name)
        values.append(op(*call_args))
        calls.append((op, call_args))
    grads = {("t", len(program) - 1): dout}
    stack = PYNATIVE.grad.backward_tracked
    if stack:     # the replayed steps are followed, and the inputs the running pass follows
        stack.append({id(v) for v in values} | {id(x) for x in inputs if needs_grad(x)})
    try:
        _backward_steps(program, calls, values, grads)
    finally:
        if stack:
            stack.pop()
    return tuple(grads.get(("in", i)) for i in range(len(inputs)))


def _backward_steps(program, calls, values, grads):
    for j in range(len(program) - 1, -1, -1):
        g = grads.pop(("t", j), None)
        if g is None:
            continue
        op, call_args = calls[j]
        parts = BPROPS[type(op)](op, *call_args, values[j], g)
        for r, d in zip(program[j][1], parts):
            if d is None or (isinstance(r, tuple) and r[0] == "c"):
                continue
            key = r if isinstance(r, tuple) else ("in", r)
            grads[key] = d if key not in grads else grads[key] + d


class FusedMatMulBiasAdd(Primitive):
    """relu?(op(x1) @ op(x2) + bias) (see the module docstring)."""
    input_names = ("x1", "x2", "bias")

    @prim_attr_register
    def __init__(self, transpose_a=False, transpose_b=False, activation="none"):
        check_bool(self, "transpose_a", transpose_a)
        check_bool(self, "transpose_b", transpose_b)
        if activation not in ("none", "relu"):
            raise ValueError(f"For 'FusedMatMulBiasAdd', 'activation' must be 'none' or "
                             f"'relu', but got {activation!r}")

    def infer(self, x1, x2, bias):
        out = cached_prim(MatMul, self.attrs["transpose_a"], self.attrs["transpose_b"]).infer(
            x1, x2)
        check_tensor(self, "bias", bias)
        check_same_dtype(self, [("x1", x1), ("bias", bias)])
        if tuple(bias.shape) != (out.shape[1],):
            raise ValueError(f"For 'FusedMatMulBiasAdd', 'bias' must have shape "
                             f"[{out.shape[1]}] (one value per output column), but got "
                             f"{list(bias.shape)}")
        return tensor(out.dtype, out.shape)

    def kernel_params(self, x1, x2, bias):
        return {"transpose_a": self.attrs["transpose_a"],
                "transpose_b": self.attrs["transpose_b"],
                "relu": self.attrs["activation"] == "relu"}


@bprop_for(FusedMatMulBiasAdd)
def fused_matmul_bias_add_bprop(prim, x1, x2, bias, out, dout):
    dz = cached_prim(ReluGrad)(dout, out) if prim.attrs["activation"] == "relu" else dout
    dx1, dx2 = _matmul_grads(MatMul, prim, x1, x2, dz)
    db = cached_prim(BiasAddGrad)(dz) if needs_grad(bias) else None
    return dx1, dx2, db


class FusedConv2DBiasAdd(Primitive):
    """relu?(Conv2D(x, w) + bias) (see the module docstring)."""

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, stride=1, dilation=1,
                 group=1, has_bias=True, activation="none", pool_stride=None):
        check_bool(self, "has_bias", has_bias)
        if activation not in ("none", "relu"):
            raise ValueError(f"For 'FusedConv2DBiasAdd', 'activation' must be 'none' or "
                             f"'relu', but got {activation!r}")
        self.conv = Conv2D(out_channel, kernel_size, 1, pad_mode, pad, stride, dilation, group)
        self.pool = None
        if pool_stride is not None:
            if not (isinstance(pool_stride, tuple) and len(pool_stride) == 2):
                raise TypeError(f"For 'FusedConv2DBiasAdd', 'pool_stride' must be None or a "
                                f"pair of ints, but got {pool_stride!r}")
            self.pool = MaxPool(2, pool_stride, "valid")
        self.input_names = ("x", "weight", "bias") if has_bias else ("x", "weight")

    def infer(self, x, w, *bias):
        if len(bias) != int(self.attrs["has_bias"]):
            raise TypeError(f"For 'FusedConv2DBiasAdd', expected {len(self.input_names)} "
                            f"inputs {self.input_names}, but got {2 + len(bias)}")
        out = self.conv.infer(x, w)
        if bias:
            check_tensor(self, "bias", bias[0])
            check_same_dtype(self, [("x", x), ("bias", bias[0])])
            if tuple(bias[0].shape) != (out.shape[1],):
                raise ValueError(f"For 'FusedConv2DBiasAdd', 'bias' must have shape "
                                 f"[{out.shape[1]}] (one value per output channel), but got "
                                 f"{list(bias[0].shape)}")
        if self.pool is not None:
            return self.pool.infer(out)
        return tensor(out.dtype, out.shape)

    def kernel_params(self, x, w, *bias):
        pool = self.attrs["pool_stride"]
        return {**self.conv.kernel_params(x, w), "relu": self.attrs["activation"] == "relu",
                "pool_stride": () if pool is None else pool}

    def unpooled(self):
        """This op without its max pooling (the value the pooling reads)."""
        a = self.attrs
        return cached_prim(FusedConv2DBiasAdd, a["out_channel"], a["kernel_size"], a["pad_mode"],
                           a["pad"], a["stride"], a["dilation"], a["group"], a["has_bias"],
                           a["activation"])


@bprop_for(FusedConv2DBiasAdd)
def fused_conv2d_bias_add_bprop(prim, x, w, *rest):
    *bias, out, dout = rest
    if prim.pool is not None:                  # recompute the pooled value, then MaxPool's bprop
        inner = prim.unpooled()
        y = inner(x, w, *bias)
        return fused_conv2d_bias_add_bprop(inner, x, w, *bias, y,
                                           BPROPS[MaxPool](prim.pool, y, out, dout)[0])
    dz = cached_prim(ReluGrad)(dout, out) if prim.attrs["activation"] == "relu" else dout
    _, bp_input, bp_filter = _family(prim.conv)
    dx = bp_input(dz, w, x.shape) if needs_grad(x) else None
    dw = bp_filter(dz, x, w.shape) if needs_grad(w) else None
    if not bias:
        return dx, dw
    return dx, dw, cached_prim(BiasAddGrad)(dz) if needs_grad(bias[0]) else None
