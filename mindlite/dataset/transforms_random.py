"""Randomly applied transform lists of mindspore.dataset.transforms: RandomApply (the list,
in order, with probability prob), RandomChoice (one of them), RandomOrder (all of them in a
random order), and `not_random` (marks a Python function deterministic, as MindSpore's
decorator does for its cache). Draws come from mindlite.random_state (set_seed
reproduces them)."""
import numbers

__all__ = ["RandomApply", "RandomChoice", "RandomOrder", "not_random"]


def _rng():
    from ..random_state import generator
    return generator()


def _transforms(op, transforms):
    if not isinstance(transforms, (list, tuple)) or not transforms or not all(
            callable(t) for t in transforms):
        raise TypeError(f"For '{op}', 'transforms' must be a non-empty list of callables, but "
                        f"got {transforms!r}")
    return list(transforms)


def _chain(transforms, data):
    for t in transforms:
        out = t(*data)
        data = tuple(out) if isinstance(out, tuple) else (out,)
    return data[0] if len(data) == 1 else data


class RandomApply:
    def __init__(self, transforms, prob=0.5):
        self.transforms = _transforms("RandomApply", transforms)
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or \
                not 0.0 <= prob <= 1.0:
            raise ValueError(f"For 'RandomApply', 'prob' must be in [0, 1], but got {prob!r}")
        self.prob = float(prob)

    def __call__(self, *data):
        if _rng().random() < self.prob:
            return _chain(self.transforms, data)
        return data[0] if len(data) == 1 else data


class RandomChoice:
    def __init__(self, transforms):
        self.transforms = _transforms("RandomChoice", transforms)

    def __call__(self, *data):
        pick = self.transforms[int(_rng().integers(len(self.transforms)))]
        return _chain([pick], data)


class RandomOrder:
    def __init__(self, transforms):
        self.transforms = _transforms("RandomOrder", transforms)

    def __call__(self, *data):
        order = _rng().permutation(len(self.transforms))
        return _chain([self.transforms[k] for k in order], data)


def not_random(function):
    """Mark `function` as deterministic (MindSpore's dataset cache may then reuse its
    results); returns it."""
    function.random = False
    return function
