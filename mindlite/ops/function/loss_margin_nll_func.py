"""More functional losses (MindSpore 2.x names and signatures): soft_margin_loss,
hinge_embedding_loss, multi_margin_loss, multilabel_soft_margin_loss, gaussian_nll_loss and
ctc_loss, plus poisson_nll_loss (used by nn.PoissonNLLLoss). Each is a composite of
differentiable primitives, so gradients (and graph mode) come from the primitives' bprops.

ctc_loss runs the CTC forward recursion over time in log space, vectorised over the batch and
the 2S+1 extended labels (blank, l1, blank, l2, ...): alpha_t(s) = logsumexp(alpha_{t-1}(s),
alpha_{t-1}(s-1), alpha_{t-1}(s-2) where l_s differs from l_{s-2}) + log p_t(l_s); steps past a
sample's input length keep its alpha. Impossible paths use a large negative number rather than
-inf, so their gradients are 0, not nan; a sample with no valid path has loss inf (0 with
zero_infinity). reduction 'mean' divides each loss by its target length, then averages.
"""
import math

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from .. import functional as F

__all__ = ["soft_margin_loss", "hinge_embedding_loss", "multi_margin_loss",
           "multilabel_soft_margin_loss", "gaussian_nll_loss", "poisson_nll_loss", "ctc_loss"]

_NEG = -1e30            # log(0) in the CTC recursion (finite: its gradient is 0, not nan)


def _check(api, reduction, *tensors):
    for name, t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{api}', '{name}' must be a Tensor, but got {type(t).__name__}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"For '{api}', 'reduction' must be 'mean', 'sum' or 'none', but got "
                         f"{reduction!r}")


def _reduce(loss, reduction):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    return loss


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * input)), target in {1, -1}."""
    _check("soft_margin_loss", reduction, ("input", input), ("target", target))
    return _reduce(F.softplus(F.neg(F.mul(target, input))), reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """inputs where targets > 0, max(0, margin - inputs) where targets < 0, 0 where 0 (the
    signs of targets, as MindSpore's: the documented targets are 1 and -1)."""
    _check("hinge_embedding_loss", reduction, ("inputs", inputs), ("targets", targets))
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"For 'hinge_embedding_loss', 'margin' must be a float, but got "
                        f"{type(margin).__name__}")
    pos = F.mul(inputs, F.cast(F.greater(targets, 0), inputs.dtype))
    neg = F.mul(F.relu(F.sub(float(margin), inputs)), F.cast(F.less(targets, 0), inputs.dtype))
    return _reduce(F.add(pos, neg), reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Per sample n: sum over i != y of w[y] max(0, margin - x[y] + x[i])**p / C (input (N, C)
    or (C,), target class indices)."""
    _check("multi_margin_loss", reduction, ("input", input), ("target", target))
    if p not in (1, 2):
        raise ValueError(f"For 'multi_margin_loss', 'p' must be 1 or 2, but got {p!r}")
    x = input if len(input.shape) == 2 else F.reshape(input, (1, -1))
    y = F.reshape(F.cast(target, mstype.int64), (-1, 1))
    c = x.shape[1]
    picked = F.gather_elements(x, 1, y)
    margins = F.relu(F.add(F.sub(float(margin), picked), x))
    if p == 2:
        margins = F.mul(margins, margins)
    others = F.sub(1.0, F.cast(F.one_hot(F.reshape(y, (-1,)), c, 1.0, 0.0), x.dtype))
    margins = F.mul(margins, others)
    if weight is not None:
        margins = F.mul(margins, F.gather_elements(
            F.broadcast_to(F.reshape(weight, (1, -1)), x.shape), 1, y))
    loss = F.div(F.sum(margins, 1), float(c))
    if len(input.shape) != 2:
        loss = F.reshape(loss, ())
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """Per sample: -mean over classes of w (y log sigmoid(x) + (1 - y) log sigmoid(-x))."""
    _check("multilabel_soft_margin_loss", reduction, ("input", input), ("target", target))
    target = F.cast(target, input.dtype)
    term = F.add(F.mul(target, F.logsigmoid(input)),
                 F.mul(F.sub(1.0, target), F.logsigmoid(F.neg(input))))
    if weight is not None:
        term = F.mul(term, weight)
    return _reduce(F.neg(F.mean(term, -1)), reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (x - target)**2 / max(var, eps)) (+ 0.5 log(2 pi) if full)."""
    _check("gaussian_nll_loss", reduction, ("x", x), ("target", target), ("var", var))
    v = F.maximum(var, float(eps))
    d = F.sub(x, target)
    loss = F.mul(F.add(F.log(v), F.div(F.mul(d, d), v)), 0.5)
    if full:
        loss = F.add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    """exp(input) - target input (log_input) or input - target log(input + eps); full adds
    Stirling's term target log(target) - target + 0.5 log(2 pi target) where target > 1."""
    _check("poisson_nll_loss", reduction, ("input", input), ("target", target))
    if log_input:
        loss = F.sub(F.exp(input), F.mul(target, input))
    else:
        loss = F.sub(input, F.mul(target, F.log(F.add(input, float(eps)))))
    if full:
        safe = F.maximum(target, 1.0)
        stirling = F.add(F.sub(F.mul(safe, F.log(safe)), safe),
                         F.mul(F.log(F.mul(safe, 2 * math.pi)), 0.5))
        loss = F.add(loss, F.mul(stirling, F.cast(F.greater(target, 1.0), loss.dtype)))
    return _reduce(loss, reduction)


def _lse(*terms):
    m = terms[0]
    for t in terms[1:]:
        m = F.maximum(m, t)
    m = F.stop_gradient(m)
    total = F.exp(F.sub(terms[0], m))
    for t in terms[1:]:
        total = F.add(total, F.exp(F.sub(t, m)))
    return F.add(F.log(total), m)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """CTC loss of log_probs (T, N, C) for targets (N, S); returns (loss, log_alpha) as
    MindSpore, log_alpha (N, T, 2S+1) holding the forward variables (see the module doc)."""
    api = "ctc_loss"
    _check(api, reduction, ("log_probs", log_probs), ("targets", targets))
    if len(log_probs.shape) != 3 or len(targets.shape) != 2:
        raise ValueError(f"For '{api}', 'log_probs' must be (T, N, C) and 'targets' (N, S), but "
                         f"got {log_probs.shape} and {targets.shape}")
    t_max, n, c = log_probs.shape
    tg = np.asarray(targets.asnumpy(), np.int64)
    in_len = np.asarray(input_lengths.asnumpy() if isinstance(input_lengths, Tensor)
                        else input_lengths, np.int64).reshape(-1)
    tg_len = np.asarray(target_lengths.asnumpy() if isinstance(target_lengths, Tensor)
                        else target_lengths, np.int64).reshape(-1)
    if in_len.shape != (n,) or tg_len.shape != (n,) or (in_len > t_max).any() \
            or (tg_len > tg.shape[1]).any() or (in_len < 0).any() or (tg_len < 0).any():
        raise ValueError(f"For '{api}', 'input_lengths' and 'target_lengths' must hold {n} "
                         f"lengths within (T={t_max}, S={tg.shape[1]}), but got {in_len.tolist()}"
                         f" and {tg_len.tolist()}")
    if not 0 <= blank < c or ((tg < 0) | (tg >= c)).any():
        raise ValueError(f"For '{api}', 'blank' and the targets must be classes in [0, {c})")
    s = 2 * tg.shape[1] + 1
    ext = np.full((n, s), blank, np.int64)
    ext[:, 1::2] = tg
    skip = np.zeros((n, s), bool)          # s may come from s - 2: a label unlike l_{s-2}
    skip[:, 3::2] = (tg[:, 1:] != tg[:, :-1]) & (tg[:, 1:] != blank)
    valid = np.arange(s)[None, :] < (2 * tg_len + 1)[:, None]
    dt = log_probs.dtype
    idx = Tensor(np.broadcast_to(ext[None], (t_max, n, s)).copy())
    emit = F.gather_elements(log_probs, 2, idx)                     # (T, N, S')
    neg = Tensor(np.full((n, s), _NEG, dt.np))
    init = np.full((n, s), _NEG, dt.np)
    init[:, 0] = 0.0
    init[:, 1] = np.where(tg_len > 0, 0.0, _NEG)
    alpha = F.add(Tensor(init), emit[0]) if t_max else Tensor(init)
    pad1 = Tensor(np.full((n, 1), _NEG, dt.np))
    pad2 = Tensor(np.full((n, 2), _NEG, dt.np))
    skip_t, valid_t = Tensor(skip), Tensor(valid)
    alphas = [alpha]
    for t in range(1, t_max):
        prev1 = F.concat((pad1, alpha[:, :-1]), 1)
        prev2 = F.select(skip_t, F.concat((pad2, alpha[:, :-2]), 1), neg)
        new = F.add(_lse(alpha, prev1, prev2), emit[t])
        new = F.select(valid_t, new, neg)
        running = Tensor(np.broadcast_to((t < in_len)[:, None], (n, s)).copy())
        alpha = F.select(running, new, alpha)
        alphas.append(alpha)
    last = 2 * tg_len
    end1 = F.gather_elements(alpha, 1, Tensor(last.reshape(-1, 1)))
    end2 = F.gather_elements(alpha, 1, Tensor(np.maximum(last - 1, 0).reshape(-1, 1)))
    end2 = F.select(Tensor((tg_len > 0).reshape(-1, 1)), end2, Tensor(np.full((n, 1), _NEG,
                                                                               dt.np)))
    nll = F.neg(F.reshape(_lse(end1, end2), (-1,)))
    impossible = Tensor(np.asarray(nll.asnumpy()) > -_NEG / 2)
    if zero_infinity:
        nll = F.select(impossible, F.mul(nll, 0.0), nll)
    else:
        nll = F.select(impossible, Tensor(np.full(n, np.inf, dt.np)), nll)
    if reduction == "mean":
        loss = F.mean(F.div(nll, Tensor(np.maximum(tg_len, 1).astype(dt.np))))
    else:
        loss = _reduce(nll, reduction)
    log_alpha = F.stack(alphas, 1) if alphas else Tensor(np.zeros((n, 0, s), dt.np))
    return loss, log_alpha
