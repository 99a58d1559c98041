"""Learning-rate lists computed ahead of training (MindSpore's `nn.dynamic_lr`):
`piecewise_constant_lr`, `exponential_decay_lr`, `natural_exp_decay_lr`,
`inverse_decay_lr`, `cosine_decay_lr`, `polynomial_decay_lr`, `warmup_lr`. Each returns a
list of `total_step` floats (one per step; the epoch of step i is i // step_per_epoch),
which an optimizer takes as its `learning_rate`. The formulas, quirks included, are
MindSpore 2.10's (tests/test_nn_dynamic_lr.py holds values observed there)."""
import math
import numbers

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _positive_int(fn, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{fn}', '{name}' must be an int, but got "
                        f"{type(value).__name__}: {value!r}")
    if value <= 0:
        raise ValueError(f"For '{fn}', '{name}' must be a positive int, but got {value}")
    return int(value)


def _float(fn, name, value, positive=True):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{fn}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if value < 0 or (positive and value == 0):
        need = "positive" if positive else "non-negative"
        raise ValueError(f"For '{fn}', '{name}' must be {need}, but got {value}")
    return float(value)


def _check_steps(fn, total_step, step_per_epoch, decay_epoch):
    return (_positive_int(fn, "total_step", total_step),
            _positive_int(fn, "step_per_epoch", step_per_epoch),
            _positive_int(fn, "decay_epoch", decay_epoch))


def piecewise_constant_lr(milestone, learning_rates):
    """learning_rates[k] for the steps from milestone[k-1] up to milestone[k]."""
    fn = "piecewise_constant_lr"
    if not isinstance(milestone, (tuple, list)) or not isinstance(learning_rates, (tuple, list)):
        raise TypeError(f"For '{fn}', 'milestone' and 'learning_rates' must be lists")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{fn}', 'milestone' and 'learning_rates' must have the same "
                         f"length, but got {len(milestone)} and {len(learning_rates)}")
    last, out = 0, []
    for m, lr in zip(milestone, learning_rates):
        _positive_int(fn, "milestone", m)
        if m <= last:
            raise ValueError(f"For '{fn}', 'milestone' must be increasing, but got "
                             f"{list(milestone)}")
        out += [float(_float(fn, "learning_rates", lr, positive=False))] * (m - last)
        last = m
    return out


def _epochs(total_step, step_per_epoch):
    return [math.floor(i / step_per_epoch) for i in range(total_step)]


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * decay_rate ** (epoch / decay_epoch) (floored with is_stair)."""
    fn = "exponential_decay_lr"
    lr, rate = _float(fn, "learning_rate", learning_rate), _float(fn, "decay_rate", decay_rate)
    total, spe, de = _check_steps(fn, total_step, step_per_epoch, decay_epoch)
    out = []
    for e in _epochs(total, spe):
        p = e / de
        out.append(lr * rate ** (math.floor(p) if is_stair else p))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * exp(-decay_rate * epoch); with is_stair the epoch is rounded down to a multiple
    of decay_epoch (MindSpore's formula: decay_epoch scales only the stairs)."""
    fn = "natural_exp_decay_lr"
    lr, rate = _float(fn, "learning_rate", learning_rate), _float(fn, "decay_rate", decay_rate)
    total, spe, de = _check_steps(fn, total_step, step_per_epoch, decay_epoch)
    out = []
    for e in _epochs(total, spe):
        if is_stair:
            e = math.floor(e / de) * de
        out.append(lr * math.e ** (-rate * e))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """lr / (1 + decay_rate * epoch / decay_epoch) (floored with is_stair)."""
    fn = "inverse_decay_lr"
    lr, rate = _float(fn, "learning_rate", learning_rate), _float(fn, "decay_rate", decay_rate)
    total, spe, de = _check_steps(fn, total_step, step_per_epoch, decay_epoch)
    out = []
    for e in _epochs(total, spe):
        p = e / de
        out.append(lr / (1 + rate * (math.floor(p) if is_stair else p)))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """min_lr + (max_lr - min_lr) * (1 + cos(pi * epoch / decay_epoch)) / 2, the epoch
    capped at decay_epoch."""
    fn = "cosine_decay_lr"
    lo = _float(fn, "min_lr", min_lr, positive=False)
    hi = _float(fn, "max_lr", max_lr)
    if lo >= hi:
        raise ValueError(f"For '{fn}', 'max_lr' must be greater than 'min_lr', but got "
                         f"{max_lr} and {min_lr}")
    total, spe, de = _check_steps(fn, total_step, step_per_epoch, decay_epoch)
    out = []
    for e in _epochs(total, spe):
        decayed = 0.5 * (1 + math.cos(math.pi * min(e, de) / de))
        out.append(lo + (hi - lo) * decayed)
    return out


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch,
                        decay_epoch, power, update_decay_epoch=False):
    """(lr - end) * (1 - epoch / decay_epoch) ** power + end, the epoch capped at decay_epoch;
    with update_decay_epoch the decay period grows to the next multiple of decay_epoch
    instead (and stays grown, as MindSpore's)."""
    fn = "polynomial_decay_lr"
    lr = _float(fn, "learning_rate", learning_rate)
    end = _float(fn, "end_learning_rate", end_learning_rate, positive=False)
    p = _float(fn, "power", power)
    total, spe, de = _check_steps(fn, total_step, step_per_epoch, decay_epoch)
    out = []
    for e in _epochs(total, spe):
        if update_decay_epoch:
            de = de * max(math.ceil(e / de), 1)
            t = e
        else:
            t = min(e, de)
        out.append((lr - end) * (1 - t / de) ** p + end)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr * min(epoch, warmup_epoch) / warmup_epoch: a linear ramp from 0."""
    fn = "warmup_lr"
    lr = _float(fn, "learning_rate", learning_rate)
    total = _positive_int(fn, "total_step", total_step)
    spe = _positive_int(fn, "step_per_epoch", step_per_epoch)
    we = _positive_int(fn, "warmup_epoch", warmup_epoch)
    return [lr * min(e, we) / we for e in _epochs(total, spe)]
