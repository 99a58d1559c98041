"""Models the Lite tests convert and run: MLP and LeNet (from tests/models.py), control-flow
Cells (if/else on a tensor: Switch + PartialFusion subgraphs; while loops), and helpers to
convert and run one in the Lite runtime (tests/test_lite*.py)."""
import numpy as np

import mindlite as ms
from mindlite import lite as mslite
from mindlite import nn, ops
from mindlite.lite.converter import convert
from models import LeNet, MLP  # noqa: F401  (the Lite tests import them from here)


class Branchy(nn.Cell):
    """if/else on a tensor: each branch a Lite subgraph called through PartialFusion."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x, y):
        if x.sum() > 0:
            z = self.dense(x) * 2
        else:
            z = x - y
        return ops.softmax(z + 1, -1)


def build(data, context=None, name="<buffer>"):
    model = mslite.Model()
    model.build_from_buffer(data, context, name)
    return model


def run(model, *arrays):
    ins = model.get_inputs()
    for t, a in zip(ins, arrays):
        t.set_data_from_numpy(a)
    return [o.get_data_to_numpy() for o in model.predict(ins)]


def nhwc(a):
    """A 4-D NCHW array as the NHWC input the converter's models take (converter_lite's
    default --inputDataFormat); other arrays as they are."""
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)) if a.ndim == 4 else a


def round_trip(net, *arrays, context=None, optimize="general", input_format="NHWC"):
    """(Lite outputs, mindlite outputs, the model) for `net` on `arrays` (fed to the model in
    its input layout)."""
    data = convert(net, *[ms.Tensor(a) for a in arrays], optimize=optimize,
                   input_format=input_format)
    model = build(data, context)
    want = net(*[ms.Tensor(a) for a in arrays])
    want = [w.asnumpy() for w in (want if isinstance(want, tuple) else (want,))]
    feed = nhwc if input_format == "NHWC" else (lambda a: a)
    return run(model, *[feed(a) for a in arrays]), want, model


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


class Doubling(nn.Cell):
    """A while loop on a tensor: the loop graph calls itself (recursive PartialFusion)."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3)

    def construct(self, x, limit):
        while x.sum() < limit.sum():
            x = x * 2 + 0.5
        return self.dense(x)


class Counting(nn.Cell):
    """A loop that runs many iterations (the runtime continues tail calls in a loop)."""

    def construct(self, x, limit):
        while x.sum() < limit.sum():
            x = x + 1
        return x
