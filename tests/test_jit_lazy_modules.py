"""First-call compile time (issue 12): the parser's rarely needed parts load at their first use.

A training step without tensor control flow (the benchmarks' MLP TrainOneStepCell) compiles
without importing jit/parse_control.py (Switch and loop graphs, break/continue flags) or
jit/ad/custom.py (Cell.bprop regions): with no bytecode cache every module imported costs its
source compile in each fresh process. The step still gives eager's losses, and the first
`if` on a tensor after it imports parse_control and gives eager's result. Runs in a fresh
interpreter (other tests import those modules); timings are benchmarks/jit_step.py's."""
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import mindlite as ms
    from mindlite import Tensor, nn, ops

    def step_of(net, mode):
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        train.set_train()

        def step(x, y):
            ms.set_context(mode=mode)
            try:
                return float(train(x, y).asnumpy())
            finally:
                ms.set_context(mode=ms.PYNATIVE_MODE)
        return step

    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((16, 8)).astype(np.float32))
    y = Tensor(rng.integers(0, 4, 16).astype(np.int32))
    ms.set_seed(0)
    nets = [nn.SequentialCell(nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 4)) for _ in range(2)]
    for a, b in zip(nets[1].trainable_params(), nets[0].trainable_params()):
        a.set_data(Tensor(b.asnumpy().copy()))
    eager = step_of(nets[0], ms.PYNATIVE_MODE)
    graph = step_of(nets[1], ms.GRAPH_MODE)
    for _ in range(3):
        want, got = eager(x, y), graph(x, y)
        assert abs(want - got) < 1e-5, (want, got)
    lazy = ("mindlite.jit.parse.control", "mindlite.jit.ad.custom")
    assert "mindlite.jit.parse" in sys.modules
    assert not [m for m in lazy if m in sys.modules], [m for m in lazy if m in sys.modules]

    @ms.jit
    def branch(v):
        if v.sum() > 0:
            v = v * 2
        else:
            v = v - 1
        return v

    for sign in (1.0, -1.0):
        v = Tensor(np.full((3,), sign, np.float32))
        np.testing.assert_allclose(branch(v).asnumpy(), branch.fn(v).asnumpy())
    assert "mindlite.jit.parse.control" in sys.modules
    print("ok")
""")


def test_a_training_step_compiles_without_the_control_flow_and_custom_bprop_modules(tmp_path):
    script = tmp_path / "child.py"            # a file: graph mode parses the functions' source
    script.write_text(CHILD)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
