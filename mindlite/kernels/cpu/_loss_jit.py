"""numba loops behind kernels/cpu/loss_numba.py (imported on the first launch, never at import).

Each loop makes one pass over a row of logits (max, exponentials cached in the gradient
output, log-sum-exp) instead of numpy's separate reductions and temporaries. Label checks
run first and return the index of the first bad label (-1 when all are valid), so the
caller raises before anything is computed. Row arithmetic is in the input dtype; means over
rows accumulate in float64 before the final division.
"""
import numpy as np

from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def first_bad_label(labels, n_classes, ignore_index, use_ignore):
    for i in range(labels.shape[0]):
        t = labels[i]
        if use_ignore and t == ignore_index:
            continue
        if t < 0 or t >= n_classes:
            return i
    return -1


@_jit
def _row_max(x, i):
    m = x[i, 0]
    for j in range(1, x.shape[1]):
        v = x[i, j]
        if v > m or np.isnan(v):
            m = v
    return m


@_jit
def softmax_cross_entropy(x, labels, loss, backprop):
    n, c = x.shape
    for i in range(n):
        m = _row_max(x, i)
        s = x[i, 0] - x[i, 0]
        for j in range(c):
            e = np.exp(x[i, j] - m)
            backprop[i, j] = e
            s += e
        log_s = np.log(s)
        acc = s - s
        for j in range(c):
            y = labels[i, j]
            if y != 0:
                acc += y * ((x[i, j] - m) - log_s)
            backprop[i, j] = backprop[i, j] / s - y
        loss[i] = -acc


@_jit
def sparse_softmax_cross_entropy(x, labels):
    """The mean over rows of -log_softmax(x)[n, labels[n]] (float64)."""
    n, c = x.shape
    total = 0.0
    for i in range(n):
        m = _row_max(x, i)
        s = x[i, 0] - x[i, 0]
        for j in range(c):
            s += np.exp(x[i, j] - m)
        total += (x[i, labels[i]] - m) - np.log(s)
    return -total / n


@_jit
def sparse_softmax_cross_entropy_grad(x, labels, out):
    """out (N, C) = (softmax(x) - one_hot(labels)) / N."""
    n, c = x.shape
    for i in range(n):
        m = _row_max(x, i)
        s = x[i, 0] - x[i, 0]
        for j in range(c):
            e = np.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(c):
            out[i, j] = out[i, j] / s
        out[i, labels[i]] -= 1
        for j in range(c):
            out[i, j] = out[i, j] / n


@_jit
def nll_loss(x, labels, weight, ignore_index, per, mode):
    """per (N,): -weight[t] x[n, t] (0 where ignored). Returns (reduced loss for mode
    1 = sum, 2 = mean (else 0), total weight), both as float64."""
    total_w = 0.0
    total = 0.0
    for i in range(labels.shape[0]):
        t = labels[i]
        if t == ignore_index:
            per[i] = 0
            continue
        w = weight[t]
        v = -w * x[i, t]
        per[i] = v
        total_w += w
        total += v
    if mode == 2:
        total = total / total_w
    return total, total_w
