"""nn's dynamic learning-rate lists against the values MindSpore 2.10 returned for the same
calls (recorded from its CPU build), and their argument checks."""
import numpy as np
import pytest

from mindlite import nn

# (call, MindSpore 2.10's result)
CASES = [
    (lambda: nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2),
     [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01]),
    (lambda: nn.cosine_decay_lr(0.01, 0.1, 7, 3, 2),
     [0.1, 0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.05500000000000001, 0.01]),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
     [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002,
      0.08100000000000002]),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, True),
     [0.1, 0.1, 0.1, 0.1, 0.09000000000000001, 0.09000000000000001]),
    (lambda: nn.inverse_decay_lr(0.1, 0.5, 6, 2, 2),
     [0.1, 0.1, 0.08, 0.08, 0.06666666666666667, 0.06666666666666667]),
    (lambda: nn.inverse_decay_lr(0.1, 0.5, 6, 2, 2, True),
     [0.1, 0.1, 0.1, 0.1, 0.06666666666666667, 0.06666666666666667]),
    (lambda: nn.natural_exp_decay_lr(0.1, 0.1, 6, 2, 2),
     [0.1, 0.1, 0.09048374180359596, 0.09048374180359596, 0.0818730753077982,
      0.0818730753077982]),
    (lambda: nn.natural_exp_decay_lr(0.1, 0.1, 6, 2, 2, True),
     [0.1, 0.1, 0.1, 0.1, 0.0818730753077982, 0.0818730753077982]),
    (lambda: nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]),
     [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
     [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5, True),
     [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 7, 3, 1, 2.0, True),
     [0.1, 0.1, 0.1, 0.01, 0.01, 0.01, 0.01]),
    (lambda: nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]),
]


@pytest.mark.parametrize("call, want", CASES)
def test_values_as_mindspore(call, want):
    got = call()
    assert isinstance(got, list) and all(isinstance(v, float) for v in got)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


def test_argument_errors_name_the_function():
    with pytest.raises(ValueError, match="'cosine_decay_lr'.*'max_lr'"):
        nn.cosine_decay_lr(0.1, 0.01, 6, 2, 2)
    with pytest.raises(TypeError, match="'warmup_lr'.*'total_step'"):
        nn.warmup_lr(0.1, 6.0, 2, 2)
    with pytest.raises(ValueError, match="'piecewise_constant_lr'.*increasing"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="'exponential_decay_lr'.*'decay_epoch'"):
        nn.exponential_decay_lr(0.1, 0.9, 6, 2, 0)


def test_a_list_drives_an_optimizer():
    import mindlite as ms
    lrs = nn.warmup_lr(0.5, 3, 1, 2)
    w = ms.Parameter(ms.Tensor(np.array([1.0], np.float32)), name="w")
    opt = nn.SGD([w], learning_rate=lrs)
    g = (ms.Tensor(np.array([1.0], np.float32)),)
    seen = []
    for _ in range(3):
        before = float(w.asnumpy()[0])
        opt(g)
        seen.append(before - float(w.asnumpy()[0]))
    np.testing.assert_allclose(seen, [0.0, 0.25, 0.5], atol=1e-7)
