"""fuzz finding [grad]: call 0: printed 'p2 [0. 0.]\np2 [0. 0.]\n', eager printed 'p2 [0. 0.]\n' (found by a 32-minute run: the backward replayed the branch after the tensor if, print and all; a replayed print is now left out, jit/ad/recompute.py)
features: ['early_return', 'grad_program', 'print', 'unary:CeLU']
inputs: [('float32', ('B', 2)), ('float32', ('B', 2))]
"""
import numpy as np
import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops


class Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.s = Parameter(Tensor(np.full((2,), 0.5, np.float32)), name='s')

    def construct(self, a):
        b = a * self.s
        return b + 1


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.w0 = Parameter(Tensor(np.array([0.0, 0.0], np.float32).reshape((2,))), name='w0')
        self.w1 = Parameter(Tensor(np.array([0.0, 0.0, 0.0, 0.0], np.float32).reshape((2, 2))), name='w1')

    def construct(self, x0, x1):
        v1 = ops.CeLU()(self.w0)
        if self.w0.sum() > 0.5:
            return x1
        print('p2', self.w0)
        return x0
