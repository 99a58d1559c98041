"""examples/train_sequence.py in-process with a few steps: both models train on the reversal
task (the loss falls), the data are seeded (two runs give the same losses), the accuracy
helper scores per position. The full run and its accuracy bars are the example's own
(`python examples/train_sequence.py`)."""
import importlib.util
import os

import numpy as np

import mindlite as ms

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                      "train_sequence.py")
spec = importlib.util.spec_from_file_location("train_sequence", SCRIPT)
ts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ts)


class _Quiet:
    """tqdm's interface, silent."""

    def __init__(self, it, **_):
        self.it = it

    def __iter__(self):
        return iter(self.it)

    def set_postfix(self, **_):
        pass


def _run(name, make, steps):
    ms.set_seed(3)
    net = make()
    return net, ts.train(name, net, steps, 3, _Quiet)


def test_models_learn_and_runs_repeat():
    for name, make in (("LSTM", ts.LSTMReverser), ("Transformer", ts.TransformerReverser)):
        net, losses = _run(name, make, 30)
        assert len(losses) == 30 and np.isfinite(losses).all()
        assert np.mean(losses[-5:]) < np.mean(losses[:5])
        _, again = _run(name, make, 30)
        np.testing.assert_allclose(again, losses, rtol=1e-6)
    x = np.random.default_rng(0).integers(0, 10, (16, ts.LENGTH)).astype(np.int32)
    acc = ts.accuracy(net, x, x[:, ::-1])
    assert 0.0 <= acc <= 1.0
