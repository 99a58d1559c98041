"""mint.nn's basic layers: Linear, Identity, Flatten and the activation Cells (ReLU, GELU,
SiLU, Softmax, ...), each a Cell whose construct calls mint.nn.functional (so ops' primitives,
kernels and bprops). Parameters follow PyTorch's names (`weight`, `bias`) and initialisation
(weight HeUniform(a=sqrt(5)), bias U(+-1/sqrt(fan_in))), as MindSpore 2.10's mint.nn does.
"""
import math

from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter
from ...nn.cell import Cell
from . import functional as F

__all__ = ['ELU', 'Flatten', 'GELU', 'Hardshrink', 'Hardsigmoid', 'Hardswish', 'Hardtanh',
           'Identity', 'Linear', 'LogSigmoid', 'LogSoftmax', 'Mish', 'PReLU', 'ReLU', 'ReLU6',
           'SELU', 'SiLU', 'Sigmoid', 'Softmax', 'Tanh', 'Threshold']


def _ops():
    from ... import ops
    return ops


class Linear(Cell):
    """y = x weight^T + bias; weight (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__()
        dtype = mstype.float32 if dtype is None else dtype
        self.in_features, self.out_features = int(in_features), int(out_features)
        shape = (self.out_features, self.in_features)
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)) if weight_init is None
                                            else weight_init, shape, dtype), name="weight")
        self.bias = None
        if bias:
            bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
            self.bias = Parameter(initializer(Uniform(bound) if bias_init is None else bias_init,
                                              (self.out_features,), dtype), name="bias")

    def construct(self, input):
        return F.linear(input, self.weight, self.bias)

    def extend_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Identity(Cell):
    """y = x (any arguments accepted at construction, as PyTorch's)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, input):
        return input


class Flatten(Cell):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)


def _act(name, fn, doc, params=()):
    """An activation Cell over fn(input, *attrs) with the named constructor parameters."""
    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        values = dict(zip([p for p, _ in params], args))
        values.update(kwargs)
        for p, default in params:
            setattr(self, p, values.get(p, default))

    def construct(self, input):
        return fn(input, *[getattr(self, p) for p, _ in params])
    return type(name, (Cell,), {"__init__": __init__, "construct": construct, "__doc__": doc,
                                "__module__": __name__})


ReLU = _act("ReLU", lambda x: F.relu(x), "max(x, 0).")
ReLU6 = _act("ReLU6", lambda x, inplace: F.relu6(x), "min(max(x, 0), 6).", (("inplace", False),))
Sigmoid = _act("Sigmoid", lambda x: F.sigmoid(x), "1 / (1 + e^-x).")
Tanh = _act("Tanh", lambda x: F.tanh(x), "tanh(x).")
SiLU = _act("SiLU", lambda x, inplace: F.silu(x), "x sigmoid(x).", (("inplace", False),))
GELU = _act("GELU", lambda x, approximate: F.gelu(x, approximate=approximate),
            "x Phi(x) ('tanh': its tanh approximation).", (("approximate", "none"),))
ELU = _act("ELU", lambda x, alpha, inplace: F.elu(x, alpha), "x, or alpha (e^x - 1) below 0.",
           (("alpha", 1.0), ("inplace", False)))
Hardtanh = _act("Hardtanh", lambda x, lo, hi, inplace: F.hardtanh(x, lo, hi),
                "x clamped to [min_val, max_val].",
                (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)))
Hardshrink = _act("Hardshrink", lambda x, lambd: _ops().hardshrink(x, lambd),
                  "x where |x| > lambd, else 0.", (("lambd", 0.5),))
Hardsigmoid = _act("Hardsigmoid", lambda x: _ops().hardsigmoid(x), "relu6(x + 3) / 6.")
Hardswish = _act("Hardswish", lambda x: _ops().hardswish(x), "x relu6(x + 3) / 6.")
LogSigmoid = _act("LogSigmoid", lambda x: F.logsigmoid(x), "log(sigmoid(x)).")
Mish = _act("Mish", lambda x: _ops().mish(x), "x tanh(softplus(x)).")
SELU = _act("SELU", lambda x: _ops().selu(x), "scale (x, or alpha (e^x - 1) below 0).")
Softmax = _act("Softmax", lambda x, dim: F.softmax(x, dim), "softmax along dim.",
               (("dim", None),))
LogSoftmax = _act("LogSoftmax", lambda x, dim: F.log_softmax(x, dim), "log softmax along dim.",
                  (("dim", None),))
Threshold = _act("Threshold", lambda x, t, v, inplace: F.threshold(x, t, v),
                 "x where x > threshold, else value.",
                 (("threshold", None), ("value", None), ("inplace", False)))


class PReLU(Cell):
    """max(0, x) + weight min(0, x), one weight per channel (or one shared)."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        dtype = mstype.float32 if dtype is None else dtype
        self.weight = Parameter(initializer(init, (num_parameters,), dtype), name="weight")

    def construct(self, input):
        return F.prelu(input, self.weight)
