"""fuzz finding [onnx]: call 0 output 0: [-9.223372036854776e+18], eager gives [nan] (float TruncateDiv exported as a cast through int64: NaN, inf and quotients past 2**63 came back wrong; now sign(q) * floor(|q|))
features: ['binary:TruncateDiv']
inputs: [('float32', ('B', 1)), ('float32', ('B', 1))]
"""
import numpy as np
import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops


class Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.s = Parameter(Tensor(np.full((1,), 0.5, np.float32)), name='s')

    def construct(self, a):
        b = a * self.s
        return b + 1


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.w0 = Parameter(Tensor(np.array([0.0], np.float32).reshape((1,))), name='w0')
        self.w1 = Parameter(Tensor(np.array([0.0], np.float32).reshape((1, 1))), name='w1')

    def construct(self, x0, x1):
        v1 = ops.TruncateDiv()(self.w0, self.w0)
        return v1
