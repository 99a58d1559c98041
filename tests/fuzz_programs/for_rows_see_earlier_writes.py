"""fuzz finding [jit]: call 0: printed the rows of self.w0 as they were before the loop; eager's iterator reads each row when its iteration starts (seed 1074, shrunk by hand)
features: ['for_tensor', 'assign_add', 'print']
inputs: [('float32', ('B', 2)), ('float32', (2,))]
"""
import numpy as np
import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w0 = Parameter(Tensor(np.array([-1.0, -1.5], np.float32)), name='w0')

    def construct(self, x0, x1):
        for r1 in self.w0:
            print('p2', r1, x0.shape[1])
            ops.assign_add(self.w0, self.w0 + 1)
        return x0, self.w0 * 1
