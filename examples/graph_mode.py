"""Graph mode in mindlite: @jit on a function, the compiled graph printed in MindSpore's
.ir layout, control flow on tensors, a GRAPH_MODE Cell, and an error pointing at its line.

Run: python examples/graph_mode.py   (prints [ok] lines; exits non-zero on a mismatch)
"""
import numpy as np

import mindlite as ms
from mindlite import nn, ops
from mindlite.ir import dump_ir, reachable_graphs


def ok(what):
    print(f"[ok] {what}")


# 1. @jit on a function: the graph is specialized to the call's dtypes and shapes -----------
@ms.jit
def test_f(x, y):
    a = x - 1
    b = a + y
    return b


x = ms.Tensor([7], ms.float32)
y = ms.Tensor([77], ms.float32)
assert test_f(x, y).asnumpy().tolist() == [83.0]
print(dump_ir(test_f.graph(x, y)))
ok("test_f(7, 77) = 83, graph printed above (Sub then Add, as eager calls them)")


# 2. control flow on tensor values: Switch over branch graphs, a loop graph ----------------
@ms.jit
def collatz_steps(n):
    steps = ms.Tensor(0, ms.int32)
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return steps


steps = collatz_steps(ms.Tensor(27, ms.int32))
assert int(steps) == 111
graphs = [g.name for g in reachable_graphs(collatz_steps.graph(ms.Tensor(27, ms.int32)))]
ok(f"collatz_steps(27) = {int(steps)} through {len(graphs)} graphs (a loop, its body, "
   f"its exit, two if branches)")


# 3. a Cell under GRAPH_MODE: construct is compiled; its Parameters are graph parameters ----
class Net(nn.Cell):
    def __init__(self, depth):
        super().__init__()
        self.stem = nn.Dense(8, 16, activation="relu")
        self.blocks = nn.CellList([nn.Dense(16, 16, activation="relu") for _ in range(depth)])
        self.head = nn.Dense(16, 3)
        self.residual = True

    def construct(self, x):
        h = self.stem(x)
        for block in self.blocks:         # unrolled: the CellList is a constant
            h = block(h) + h if self.residual else block(h)
        return ops.softmax(self.head(h), axis=-1)


net = Net(depth=3)
inp = ms.Tensor(np.random.default_rng(0).normal(size=(4, 8)).astype(np.float32))
eager = net(inp).asnumpy()
ms.set_context(mode=ms.GRAPH_MODE)
graph = net(inp).asnumpy()
ms.set_context(mode=ms.PYNATIVE_MODE)
assert np.array_equal(eager, graph)
ok("Net in GRAPH_MODE gives eager's output bit for bit")


# 4. errors name the op and the line --------------------------------------------------------
@ms.jit
def bad(x):
    return ops.matmul(x, x)


try:
    bad(ms.Tensor(np.ones((2, 3), np.float32)))
except ValueError as e:
    assert "MatMul" in str(e) and "graph_mode.py" in str(e)
    ok("a shape error names MatMul and this file's line:\n" + str(e))
else:
    raise SystemExit("expected a ValueError")
