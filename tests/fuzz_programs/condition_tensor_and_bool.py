"""fuzz finding [jit]: refused: TypeError: The branches of the 'boolop' on a tensor give different types: True and AbstractTensor (a tensor test `and` a Python bool as an if condition)
features: ['if_tensor', 'bool_ops', 'if_dyn_dim']
inputs: [('float32', ('B', 3)), ('int32', ('B', 1))]
"""
import numpy as np
import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w0 = Parameter(Tensor(np.array([0.5, 1.0, -1.0], np.float32)), name='w0')

    def construct(self, x0, x1):
        v1 = x0 * 2
        if (x0.sum() > 0.5) and x0.shape[0] > 1:
            v1 = v1 + x1
        elif not ((x1.sum() < 1) or (x0.max() > 3)):
            v1 = v1 - 1
        return v1 if (x0.mean() > 0) and True else v1 * 3
