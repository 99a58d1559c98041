"""fuzz finding [mindir]: call 0 output 0: x0 * 2, eager gives x0 * 5 (the MINDIR writer wrote the float scalar of `int32 tensor > -0.25` as an int32 0-d tensor: 0 > 0 took the other branch; now float32, as eager promotes; long run 3, seed 9020, reduced by hand)
features: ['if_tensor', 'cast', 'pure']
inputs: [('float32', ('B', 1)), ('int32', ('B', 1))]
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
        self.w1 = Parameter(Tensor(np.array([1.0], np.float32).reshape((1, 1))), name='w1')

    def construct(self, x0, x1):
        v2 = ops.cast(self.w0, ms.int32)
        v9 = x0 * 2
        if v2.sum() > -0.25:
            v9 = x0 * 5
        return v9
