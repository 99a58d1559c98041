"""Basic layers (mindspore.nn): Dense, Flatten, Dropout, Identity, OneHot, Range.

Dense keeps MindSpore's layout (weight (out, in), y = x @ weight.T + bias) and default
initialisation (weight HeUniform(a=sqrt(5)) = U(+-1/sqrt(in)), bias U(+-1/sqrt(in))).
Shapes that cannot work raise ValueError naming the layer at the call, before any op runs.
"""
import math
import numbers

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ir.primitive import Primitive
from ..cell import Cell
from .activation import get_activation

__all__ = ["Dense", "Dropout", "Flatten", "Identity", "OneHot", "Range"]


def _check_positive_int(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got "
                        f"{type(value).__name__}: {value!r}")
    if value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be a positive int, but got {value}")
    return int(value)


def _check_input(cls, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cls}', the input must be a Tensor, but got {type(x).__name__}")


class Dense(Cell):
    """Fully connected layer: activation(x @ weight.T + bias) for x of shape (*, in_channels)
    (rank >= 2); the result has shape (*, out_channels)."""

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=mstype.float32):
        super().__init__()
        self.in_channels = _check_positive_int("Dense", "in_channels", in_channels)
        self.out_channels = _check_positive_int("Dense", "out_channels", out_channels)
        if not isinstance(has_bias, bool):
            raise TypeError(f"For 'Dense', 'has_bias' must be a bool, but got "
                            f"{type(has_bias).__name__}")
        self.has_bias = has_bias
        shape = (self.out_channels, self.in_channels)
        if isinstance(weight_init, Tensor) and weight_init.shape != shape:
            raise ValueError(f"For 'Dense', 'weight_init' must have shape (out_channels, "
                             f"in_channels) = {list(shape)}, but got {list(weight_init.shape)}")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, Tensor) and bias_init.shape != (self.out_channels,):
                raise ValueError(f"For 'Dense', 'bias_init' must have shape (out_channels,) = "
                                 f"[{self.out_channels}], but got {list(bias_init.shape)}")
            if bias_init is None:
                bias_init = Uniform(1.0 / math.sqrt(self.in_channels))
            self.bias = Parameter(initializer(bias_init, (self.out_channels,), dtype),
                                  name="bias")
            self.bias_add = ops.BiasAdd()
        self.matmul = ops.MatMul(transpose_b=True)
        self.reshape = ops.Reshape()
        self.activation = get_activation(activation, "Dense") if isinstance(activation, str) \
            else activation
        if activation is not None and not isinstance(self.activation, (Cell, Primitive)):
            raise TypeError(f"For 'Dense', 'activation' must be a str, Cell or Primitive, but got "
                            f"{type(activation).__name__}")
        self.activation_flag = self.activation is not None

    def construct(self, x):
        _check_input("Dense", x)
        shape = x.shape
        if len(shape) < 2 or shape[-1] != self.in_channels:
            raise ValueError(f"For 'Dense', the input must have shape (*, in_channels) with rank "
                             f">= 2 and in_channels = {self.in_channels}, but got shape "
                             f"{list(shape)}")
        if len(shape) != 2:
            x = self.reshape(x, (-1, shape[-1]))
        x = self.matmul(x, self.weight)
        if self.has_bias:
            x = self.bias_add(x, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        if len(shape) != 2:
            x = self.reshape(x, shape[:-1] + (self.out_channels,))
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Flatten(Cell):
    """Merges dims start_dim..end_dim into one; a 0-d or 1-d input becomes 1-d."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        for name, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"For 'Flatten', '{name}' must be an int, but got "
                                f"{type(v).__name__}: {v!r}")
        self.start_dim, self.end_dim = int(start_dim), int(end_dim)
        self.reshape = ops.Reshape()

    def construct(self, x):
        _check_input("Flatten", x)
        shape = x.shape
        n = len(shape)
        if n <= 1:
            return self.reshape(x, (-1,))
        dims = []
        for name, d in (("start_dim", self.start_dim), ("end_dim", self.end_dim)):
            if not -n <= d < n:
                raise ValueError(f"For 'Flatten', '{name}' must be in range [{-n}, {n - 1}] for "
                                 f"an input of rank {n}, but got {d}")
            dims.append(d % n)
        s, e = dims
        if s > e:
            raise ValueError(f"For 'Flatten', 'start_dim' ({self.start_dim}) cannot come after "
                             f"'end_dim' ({self.end_dim}) for an input of rank {n}")
        if s == e:
            return x
        merged = 1
        for d in shape[s:e + 1]:
            merged *= d
        return self.reshape(x, shape[:s] + (merged,) + shape[e + 1:])


class Dropout(Cell):
    """Dropout(keep_prob=None, p=None): in training, zeroes each element with probability p
    and scales the rest by 1 / (1 - p) (the Dropout primitive); identity in inference or for
    p = 0. p defaults to 0.5; keep_prob (deprecated, as MindSpore) is 1 - p."""

    def __init__(self, keep_prob=None, p=None, dtype=mstype.float32):
        super().__init__()
        if p is None and keep_prob is not None:
            if isinstance(keep_prob, bool) or not isinstance(keep_prob, numbers.Real):
                raise TypeError(f"For 'Dropout', 'keep_prob' must be a float, but got "
                                f"{type(keep_prob).__name__}")
            if not 0 < keep_prob <= 1:
                raise ValueError(f"For 'Dropout', 'keep_prob' must be a number in range (0, 1], "
                                 f"but got {keep_prob}")
            self.keep_prob = float(keep_prob)
            self.p = None
        else:
            p = 0.5 if p is None else p
            if isinstance(p, bool) or not isinstance(p, numbers.Real):
                raise TypeError(f"For 'Dropout', 'p' must be a float or int, but got "
                                f"{type(p).__name__}")
            if not 0 <= p < 1:
                raise ValueError(f"For 'Dropout', 'p' must be a number in range [0, 1), but got "
                                 f"{p}")
            self.p = p
            self.keep_prob = 1.0 - float(p)
        self._dropout = None

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        if self._dropout is None:
            self._dropout = ops.Dropout(keep_prob=self.keep_prob)
        return self._dropout(x)[0]

    def extend_repr(self):
        return f"keep_prob={self.keep_prob}" if self.p is None else f"p={self.p}"


class Identity(Cell):
    """Returns its input."""

    def construct(self, x):
        return x


class OneHot(Cell):
    """OneHot(axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32): indices ->
    one-hot Tensor of `dtype` along `axis` (ops.OneHot with on/off cast to dtype)."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32):
        super().__init__()
        self.onehot = ops.OneHot(axis)
        self.depth, self.dtype = depth, dtype
        self.on_value, self.off_value = on_value, off_value

    def construct(self, indices):
        return self.onehot(indices, self.depth, ops.cast(self.on_value, self.dtype),
                           ops.cast(self.off_value, self.dtype))


class Range(Cell):
    """Range(start, limit=None, delta=1)() -> [start, start + delta, ...) below limit (one
    argument: [0, start)), MindSpore's nn.Range: int32 when start, limit and delta are ints,
    float32 otherwise."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        for name, v in (("start", start), ("limit", limit), ("delta", delta)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)):
                raise TypeError(f"For 'Range', '{name}' must be an int or a float, but got "
                                f"{type(v).__name__}")
        if limit is None:
            start, limit = 0, start
        ints = all(isinstance(v, numbers.Integral) for v in (start, limit, delta))
        self._args = (start, limit, delta)
        self._range = ops.Range(dtype=mstype.int32 if ints else mstype.float32)

    def construct(self):
        return self._range(*self._args)
