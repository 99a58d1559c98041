"""ops.Custom (a user op: kernel, inference and bprop given by the user) and the ops-layer glue
of the kernel registry's extension points (docs/custom_ops.md).

    Custom(func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, attrs=None,
           reg_info=None, type=None)

As MindSpore Lite's `Custom {type, attr}` node, a Custom carries a type (default: the
function's name) and attrs (name -> bytes, serialised from Python values: `custom_attrs`).
Its kernel is selected like any op's: a provider kernel registered for its type
(`register_kernel(type, custom=True)`, key "Custom:<type>") by provider / priority, else its
own func through the generic "Custom" kernel of its func_type (kernels/custom.py).
Inference: out_shape / out_dtype fixed, or callables of the input shapes / dtypes (MindSpore's
convention), None = the first input's; a provider InferShape registered for the type overrides
it when that provider's kernel is selected. bprop(*inputs, out, dout) -> grads, per instance.

Also here: the checks the registry runs on user registrations (does a primitive of that name
exist), cache invalidation after a registration, and `selected_kernel(prim, *args)`.
"""
import numbers

import numpy as np

from ...common.abstract import AbstractTensor, abstract_tensor
from ...common import dtype as mstype
from ...common.api import PYNATIVE
from ...kernels import custom as custom_kernels
from ...kernels import registry
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, clear_runner_caches, prim_attr_register

__all__ = ["Custom"]
_UNSUPPORTED = ("hybrid", "akg", "tbe", "aicpu", "julia", "tvm", "pyboost", "ascendc")


class Custom(Primitive):
    """A user-defined op: y = func(*inputs) with the user's InferShape and bprop.

    func_type "pyfunc": a Python function of numpy arrays (returning the outputs, or writing
    them when it takes inputs + outputs); "numba": a Python kernel func(*inputs, *outputs)
    JIT-compiled with numba (cached); "aot": "path:function" with MindSpore's AOT C ABI, a
    shared library or a .cc/.cpp source compiled with g++ on first use.
    Differentiable when `bprop(*inputs, out, dout) -> tuple of input gradients` is given.
    """

    @prim_attr_register
    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None,
                 attrs=None, reg_info=None, type=None):
        if func_type not in custom_kernels.FUNC_TYPES:
            extra = " (not available on mindlite's CPU)" if func_type in _UNSUPPORTED else ""
            raise ValueError(f"For 'Custom', 'func_type' must be one of "
                             f"{list(custom_kernels.FUNC_TYPES)}, but got {func_type!r}{extra}")
        ctype = _custom_type(func, func_type, type)
        self.custom_type = ctype
        self.kernel_key = "Custom:" + ctype
        self.label = self.kernel_key
        self.func, self.func_type = func, func_type
        self.out_shape = out_shape if callable(out_shape) or out_shape is None \
            else _fixed(self.label, "out_shape", out_shape, mstype.float32)
        self.out_dtype = out_dtype if callable(out_dtype) or out_dtype is None \
            else _check_dtypes(self.label, "out_dtype", out_dtype)
        if out_shape is not None and out_dtype is not None and not callable(out_shape) \
                and not callable(out_dtype):
            outputs(self.label, "out_shape/out_dtype", out_shape, out_dtype)
        if bprop is not None and not callable(bprop):
            raise TypeError(f"For '{self.label}', 'bprop' must be a function (inputs..., out, "
                            f"dout) -> gradients, but got {bprop!r}")
        self.bprop_fn = bprop
        self.attr_values = _check_attrs(self.label, attrs)
        self.custom_attrs = {k: serialize_attr(self.label, k, v)
                             for k, v in self.attr_values.items()}
        self.kernel_attrs = self.custom_attrs        # what a class kernel sees (Lite's attr)
        self.reg_info = reg_info

    def __repr__(self):
        return f"Prim[{self.label}]"

    def own_kernels(self):
        """The generic kernel that runs this Custom's own func (none without a func)."""
        if self.func is None:
            return []
        return [k for k in registry.KERNELS["Custom"] if k.provider == self.func_type]

    def infer(self, *inputs):
        for i, x in enumerate(inputs):
            if not isinstance(x, AbstractTensor):
                raise TypeError(f"For '{self.label}', input {i} must be a Tensor, but got "
                                f"{type(x).__name__}: {x!r}")
        shape, dtype = self.out_shape, self.out_dtype
        if callable(shape):
            shape = shape(*[list(x.shape) for x in inputs])
        if callable(dtype):
            dtype = dtype(*[x.dtype for x in inputs])
        if (shape is None or dtype is None) and not inputs:
            raise ValueError(f"For '{self.label}', out_shape and out_dtype are required for an "
                             "op without inputs")
        shape = inputs[0].shape if shape is None else shape
        dtype = inputs[0].dtype if dtype is None else dtype
        return outputs(self.label, "out_shape/out_dtype", shape, dtype)

    def kernel_params(self, *inputs):
        return self.attr_values


@bprop_for(Custom)
def custom_bprop(prim, *args):
    if prim.bprop_fn is None:
        raise NotImplementedError(f"For '{prim.label}', no bprop was given (ops.Custom(..., "
                                  "bprop=fn)): it cannot be differentiated")
    grads = prim.bprop_fn(*args)
    if isinstance(grads, list):
        grads = tuple(grads)
    return grads if isinstance(grads, tuple) else (grads,)


# ---- validation -----------------------------------------------------------------------------
def _custom_type(func, func_type, ctype):
    """Check func for its func_type; the Custom's type (default: the function's name)."""
    if func_type == "aot":
        if func is not None and (not isinstance(func, str) or ":" not in func
                                 or not all(func.rsplit(":", 1))):
            raise TypeError(f"For 'Custom', an aot 'func' must be a str 'path:function', but "
                            f"got {func!r}")
    elif func is not None and not callable(func):
        raise TypeError(f"For 'Custom', a {func_type} 'func' must be callable, but got {func!r}")
    if ctype is None:
        if func is None:
            raise TypeError("For 'Custom', 'func' is required unless 'type' names a Custom type "
                            "with registered kernels")
        ctype = func.rsplit(":", 1)[1] if func_type == "aot" else \
            getattr(func, "__name__", "custom").strip("<>")
    if not isinstance(ctype, str) or not ctype or ":" in ctype:
        raise TypeError(f"For 'Custom', 'type' must be a non-empty str without ':', but got "
                        f"{ctype!r}")
    return ctype


def _is_int(d):
    return isinstance(d, numbers.Integral) and not isinstance(d, bool)


def _shape(label, what, shape):
    if not isinstance(shape, (tuple, list)) or not all(_is_int(d) for d in shape):
        raise TypeError(f"For '{label}', {what} must give a shape: a tuple of non-negative "
                        f"ints, but got {shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError(f"For '{label}', {what} gave an invalid shape {list(shape)}: dimensions "
                         "must be non-negative")
    return tuple(int(d) for d in shape)


def _dtype(label, what, dtype):
    if not isinstance(dtype, mstype.Type):
        raise TypeError(f"For '{label}', {what} must give a mindlite dtype (e.g. "
                        f"mindlite.float32), but got {dtype!r}")
    return dtype


def _check_dtypes(label, what, dtype):
    for d in dtype if isinstance(dtype, (tuple, list)) else (dtype,):
        _dtype(label, what, d)
    return dtype


def _fixed(label, what, shape, dtype):
    outputs(label, what, shape, dtype)
    return shape


def outputs(label, what, shape, dtype):
    """(shape or list of shapes, dtype or list of dtypes) -> AbstractTensor or a tuple of them."""
    multi = isinstance(shape, (tuple, list)) and len(shape) > 0 and all(
        isinstance(s, (tuple, list)) for s in shape)
    shapes = list(shape) if multi else [shape]
    dtypes = list(dtype) if isinstance(dtype, (tuple, list)) else [dtype] * len(shapes)
    if len(dtypes) != len(shapes):
        raise ValueError(f"For '{label}', {what} describe {len(shapes)} output shapes but "
                         f"{len(dtypes)} dtypes")
    outs = tuple(abstract_tensor(_dtype(label, what, d), _shape(label, what, s))
                 for s, d in zip(shapes, dtypes))
    return outs if multi else outs[0]


def interface_outputs(label, provider, result):
    """What a provider's InferShape returned -> AbstractTensor or tuple (validated)."""
    what = f"the InferShape of provider '{provider}'"

    def one(r):
        if isinstance(r, AbstractTensor):
            return outputs(label, what, r.shape, r.dtype)
        if isinstance(r, (tuple, list)) and len(r) == 2 and isinstance(r[1], mstype.Type):
            return outputs(label, what, r[0], r[1])
        raise TypeError(f"For '{label}', {what} must return an AbstractTensor, a (shape, dtype) "
                        f"pair or a list of them, but returned {r!r}")
    if isinstance(result, list) or (isinstance(result, tuple) and result and all(
            isinstance(r, (AbstractTensor, tuple, list)) for r in result)
            and not (len(result) == 2 and isinstance(result[1], mstype.Type))):
        return tuple(one(r) for r in result)
    return one(result)


def _check_attrs(label, attrs):
    if attrs is None:
        return {}
    if not isinstance(attrs, dict):
        raise TypeError(f"For '{label}', 'attrs' must be a dict of name -> value, but got "
                        f"{type(attrs).__name__}")
    for k in attrs:
        if not isinstance(k, str) or not k.isidentifier():
            raise TypeError(f"For '{label}', attr names must be identifiers, but got {k!r}")
    return dict(attrs)


def serialize_attr(label, name, value):
    """A Python attr value -> bytes (as MindSpore Lite stores Custom attrs): bytes as they are,
    str as UTF-8, arrays as raw bytes, numbers/bools/None/lists/dicts of them as JSON."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, np.ndarray):
        return value.tobytes()
    if isinstance(value, np.generic):
        value = value.item()
    import json          # only Customs with attrs pay for it
    try:
        return json.dumps(value, allow_nan=True).encode()
    except (TypeError, ValueError) as e:
        raise TypeError(f"For '{label}', attr '{name}' cannot be serialized to bytes: "
                        f"{type(value).__name__} {value!r} ({e})") from None


# ---- registry glue --------------------------------------------------------------------------
def _primitive_exists(name):
    stack = [Primitive]
    while stack:
        cls = stack.pop()
        if cls.__name__ == name and cls is not Custom:
            return True
        stack.extend(cls.__subclasses__())
    return False


registry.OP_CHECKERS.append(_primitive_exists)
registry.LISTENERS.append(clear_runner_caches)


def selected_kernel(prim, *args):
    """The KernelDef that runs `prim(*args)` (None if inference folds it to a constant): the
    first-call steps 1-4 and the session's kernel selection, without running the kernel
    (the eager executor's, through its slot)."""
    return PYNATIVE.select_kernel(prim, args)
