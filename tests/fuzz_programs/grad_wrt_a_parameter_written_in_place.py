"""fuzz finding [grad]: call 0 output 3: [2.0], eager gives [1.0] (jit(value_and_grad) differentiated the Parameter node itself after an Assign and an item assignment wrote it; eager follows the written value: now refused, naming the Parameter)
features: ['assign', 'grad_program', 'setitem_param', 'unary:CeLU', 'unary:LeakyReLU']
inputs: [('float32', ('B', 1)), ('float32', (1,))]
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
        v1 = ops.CeLU()(self.w0)
        ops.assign(self.w0, self.w0 + 1)
        self.w0[0] = 0.5
        v2 = ops.LeakyReLU()(self.w0)
        return v1, self.w0 * 1
