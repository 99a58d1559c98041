"""Finite-difference gradient checks (float64, central differences) for bprop tests.

check_grad(fn, *arrays) compares the gradient of L = sum(fn(*xs) * W) (W a fixed
random weighting of the output, so every output element matters) against
(L(x + eps) - L(x - eps)) / 2 eps element by element, for every float input.
Keep inputs small (a few dozen elements) and away from kinks.
"""
import numpy as np

import mindlite as ms
from mindlite import Tensor


def _outputs(out):
    return out if isinstance(out, tuple) else (out,)


def check_grad(fn, *arrays, positions=None, eps=1e-6, rtol=1e-5, atol=1e-7, seed=0):
    arrays = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
              for a in arrays]
    if positions is None:
        positions = tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")
    rng = np.random.default_rng(seed)
    outs = _outputs(fn(*[Tensor(a) for a in arrays]))
    weights = [rng.uniform(0.5, 1.5, o.shape) for o in outs]

    def loss_np(xs):
        res = _outputs(fn(*[Tensor(a) for a in xs]))
        return sum(float((r.asnumpy() * w).sum()) for r, w in zip(res, weights))

    # sens = W: the gradient of sum(out * W) without extra ops (only fn's bprops are used)
    grad_all = ms.ops.GradOperation(get_all=True, sens_param=True)(fn)
    sens = tuple(Tensor(w.astype(o.asnumpy().dtype)) for o, w in zip(outs, weights))
    grads = grad_all(*[Tensor(a) for a in arrays], sens if len(sens) > 1 else sens[0])
    analytic = [grads[p] for p in positions]
    for p, g in zip(positions, analytic):
        num = np.zeros_like(arrays[p])
        it = np.nditer(arrays[p], flags=["multi_index", "zerosize_ok"])
        for _ in it:
            idx = it.multi_index
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[p][idx] += eps
            minus[p][idx] -= eps
            num[idx] = (loss_np(plus) - loss_np(minus)) / (2 * eps)
        got = g.asnumpy()
        assert got.shape == arrays[p].shape, f"input {p}: grad shape {got.shape}"
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {p}")
    return analytic
