"""fuzz finding [jit]: call 1: printed 'p2 [[ 0.18905339 -0.5227485   1.5        -2.4414673 ]\n [ 1.7997074   1.1441659   1.5         0.7738066 ]\n [ 0.28121066 -0.5538228   1.5        -0.31055656]]\n', eager printed 'p2 [[ 0.18905339 -0.5227485  -0.41306356 -2.4414673 ]\n [ 1.7997074   1.1441659  -0.32542282  0.7738066 ]\n [ 0.28121066 -0.5538228   0.97756743 -0.31055656]]\n' (found by the second 32-minute run: `v1 = x0 if c else x0; v1[:, 2] = 1.5` wrote the caller's x0 in eager, which the harness then passed to the next path; graph mode now refuses item assignment to a value a tensor branch may give unchanged, and every path gets its own copies of the inputs)
features: ['alias', 'assign', 'closure', 'elif', 'for_range', 'if_const', 'if_tensor', 'ifexp', 'matmul', 'print', 'reshape', 'setitem_local', 'slice', 'sub_cell']
inputs: [('float32', ('B', 4)), ('float32', ('B', 1))]
"""
import numpy as np
import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops


class Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.s = Parameter(Tensor(np.full((4,), 0.5, np.float32)), name='s')

    def construct(self, a):
        b = a * self.s
        return b + 1


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.w0 = Parameter(Tensor(np.array([0.0, 1.5, -1.5, -0.25], np.float32).reshape((4,))), name='w0')
        self.w1 = Parameter(Tensor(np.array([-0.5, 0.0, -1.75, -0.25], np.float32).reshape((4, 1))), name='w1')

    def construct(self, x0, x1):
        v1 = x0 if self.w0.sum() > -2 else x0
        if self.w0.sum() > 0.5:
            if True:
                print('p2', v1)
            else:
                v3 = v1.reshape((v1.shape[0], 2, 2))[:, 1]
                v1 = self.sub(v1)
                v1 = self.sub(v1)
        elif self.w0.sum() > 0.5:
            v1 = self.sub(v1)
            print('p4', self.w0)
            def f5(a6):
                return self.w0[0:]
            v7 = f5(v1)
        v1[:, 2] = 1.5
        for k8 in range(2):
            def f9(a10):
                ops.assign(self.w0, self.w0 + 1)
                return ops.matmul(a10, self.w1)
            v11 = f9(v1)
        return x0, self.w0 * 1
