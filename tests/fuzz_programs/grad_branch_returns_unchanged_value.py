"""fuzz finding [grad]: call 0 output 2: [0.0], eager gives [1.0] (jit(value_and_grad): the gradient through a tensor if whose untaken branch returns a variable unchanged, a node of the enclosing graph, was lost: ad.transform.free_values looked at the inputs of a branch output instead of the output)
features: ['grad_program', 'if_tensor', 'unary:CeLU']
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
        v1 = ops.CeLU()(self.w0)
        v2 = ops.CeLU()(self.w0)
        if self.w0.sum() > 0.5:
            v1 = ops.CeLU()(self.w0)
        return v1
