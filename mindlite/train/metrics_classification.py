"""More evaluation metrics (MindSpore's mindspore.train): Precision, Recall, Fbeta, F1, MAE,
MSE, TopKCategoricalAccuracy (Top1/Top5), ConfusionMatrix, Perplexity, and the `auc` function.

Same protocol as metrics.py (clear / update per batch / eval), numpy on the host, with
MindSpore 2.10's semantics:
- classification metrics take y_pred (N, C) scores and y (N,) class indices or (N, C) one-hot;
  a prediction is its argmax. Precision and Recall also take eval_type='multilabel' (y_pred
  and y both 0/1 of shape (N, C)): then the result is per *sample*, and `average` the mean of
  those ratios. The ratios add float's smallest normal to the denominator (0/0 is 0).
- `eval(average=False)` of Precision/Recall/Fbeta returns per-class values, True their mean.
- MAE/MSE sum |y - y_pred| (resp. squared) over all elements and divide by the number of
  samples (the first axis), as MindSpore.
"""
import math
import numbers
import sys

import numpy as np

from .metrics import Metric, rearrange_inputs

__all__ = ["Precision", "Recall", "Fbeta", "F1", "MAE", "MSE", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "ConfusionMatrix",
           "Perplexity", "auc"]

_EPS = sys.float_info.min


def _is_one_hot(y):
    """0/1 values summing to one along axis 1 (MindSpore's test for one-hot labels)."""
    return y.ndim > 1 and bool(np.all((y == 0) | (y == 1))) and bool(np.all(y.sum(axis=1) == 1))


def _two_inputs(metric, inputs, what="predicted value, true value"):
    if len(inputs) != 2:
        raise ValueError(f"For '{type(metric).__name__}.update', it needs 2 inputs ({what}), but "
                         f"got {len(inputs)}.")
    return metric._convert_data(inputs[0]), metric._convert_data(inputs[1])


def _no_samples(metric):
    return RuntimeError(f"The '{type(metric).__name__}' can not be calculated, because the number "
                        "of samples is 0: call update with non-empty inputs before eval.")


def _check_bool(metric, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{type(metric).__name__}', '{name}' must be a bool, but got "
                        f"{type(value).__name__}")


class _ClassCounts(Metric):
    """Per-class counts of argmax predictions: predicted positives, actual positives, true
    positives, accumulated over updates; the class count is fixed by the first update."""

    def __init__(self, eval_type="classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"For '{type(self).__name__}', 'eval_type' must be 'classification' "
                             f"or 'multilabel', but got {eval_type!r}")
        self._type = eval_type
        self.eps = _EPS
        self.clear()

    def clear(self):
        self._class_num = 0
        self._tp = self._pred_pos = self._actual_pos = 0
        self._ratio_sum, self._ratio_count = 0.0, 0     # multilabel: the per-sample ratios
        self._per_sample = []

    def _one_hots(self, y_pred, y):
        name = type(self).__name__
        if self._type == "classification" and y_pred.ndim == y.ndim and _is_one_hot(y):
            y = y.argmax(axis=1)
        if self._type == "classification":
            if y_pred.ndim != y.ndim + 1 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(f"For '{name}.update', y (true value) must have y_pred's shape "
                                 f"without axis 1, but got y_pred {y_pred.shape} and y {y.shape}")
        elif y_pred.shape != y.shape or not np.all((y_pred == 0) | (y_pred == 1)) \
                or not np.all((y == 0) | (y == 1)):
            raise ValueError(f"For '{name}.update', multilabel y_pred and y must be 0/1 arrays of "
                             f"one shape, but got {y_pred.shape} and {y.shape}")
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For '{name}.update', class number not match: earlier inputs had "
                             f"{self._class_num} classes, this y_pred has {y_pred.shape[1]}")
        c = self._class_num
        if self._type == "multilabel":          # rows are samples: per-sample counts
            return y_pred.reshape(y_pred.shape[0], c, -1).transpose(0, 2, 1).reshape(-1, c).T, \
                y.reshape(y.shape[0], c, -1).transpose(0, 2, 1).reshape(-1, c).T
        labels = y.reshape(-1).astype(np.int64)
        if labels.size and (labels.max() >= c or labels.min() < 0):
            raise ValueError(f"For '{name}.update', y (true value) must hold class indices below "
                             f"{c}, but got {labels.max()}")
        return np.eye(c)[y_pred.argmax(axis=1).reshape(-1)], np.eye(c)[labels]

    def _accumulate(self, y_pred, y):
        p, t = self._one_hots(y_pred, y)
        if self._type == "multilabel":      # per-sample ratios instead (see Precision)
            return p, t
        self._tp = self._tp + (p * t).sum(axis=0)
        self._pred_pos = self._pred_pos + p.sum(axis=0)
        self._actual_pos = self._actual_pos + t.sum(axis=0)
        return p, t

    def _check_updated(self):
        if self._class_num == 0:
            raise _no_samples(self)


class Precision(_ClassCounts):
    """Share of predictions of each class that are right: tp / predicted positives."""

    @rearrange_inputs
    def update(self, *inputs):
        p, t = self._accumulate(*_two_inputs(self, inputs))
        if self._type == "multilabel":
            self._multilabel(p, t, p.sum(axis=0))

    def _multilabel(self, p, t, denominators):
        ratios = (p * t).sum(axis=0) / (denominators + self.eps)
        self._per_sample.append(ratios)
        self._ratio_sum += float(ratios.sum())
        self._ratio_count += ratios.size

    def eval(self, average=False):
        self._check_updated()
        _check_bool(self, "average", average)
        if self._type == "multilabel":
            if average:
                return self._ratio_sum / (self._ratio_count + self.eps)
            return np.concatenate(self._per_sample)
        result = self._tp / (self._denominator() + self.eps)
        return result.mean() if average else result

    def _denominator(self):
        return self._pred_pos


class Recall(Precision):
    """Share of each class's samples found: tp / actual positives."""

    @rearrange_inputs
    def update(self, *inputs):
        p, t = self._accumulate(*_two_inputs(self, inputs))
        if self._type == "multilabel":
            self._multilabel(p, t, t.sum(axis=0))

    def _denominator(self):
        return self._actual_pos


class Fbeta(_ClassCounts):
    """(1 + beta**2) tp / (beta**2 actual positives + predicted positives), per class."""

    def __init__(self, beta):
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not beta > 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but got "
                             f"{beta!r}")
        self.beta = beta
        super().__init__("classification")

    @rearrange_inputs
    def update(self, *inputs):
        self._accumulate(*_two_inputs(self, inputs))

    def eval(self, average=False):
        _check_bool(self, "average", average)
        self._check_updated()
        b2 = self.beta ** 2
        f = (1.0 + b2) * self._tp / (b2 * self._actual_pos + self._pred_pos + self.eps)
        return f.mean() if average else f


class F1(Fbeta):
    """Fbeta with beta = 1."""

    def __init__(self):
        super().__init__(1.0)


class _ErrorSum(Metric):
    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two_inputs(self, inputs)
        if y.size != y_pred.size:
            raise ValueError(f"For '{type(self).__name__}.update', y (true value) must have as "
                             f"many elements as y_pred, but got {y.shape} and {y_pred.shape}")
        self._error_sum += self._error(y.reshape(y_pred.shape) - y_pred).sum()
        self._samples_num += y.shape[0] if y.ndim else 1

    def eval(self):
        if self._samples_num == 0:
            raise _no_samples(self)
        return self._error_sum / self._samples_num


class MAE(_ErrorSum):
    """Mean absolute error: sum |y - y_pred| over the elements / number of samples."""

    @staticmethod
    def _error(d):
        return np.abs(d)


class MSE(_ErrorSum):
    """Mean squared error: sum (y - y_pred)**2 over the elements / number of samples."""

    @staticmethod
    def _error(d):
        return d * d


class TopKCategoricalAccuracy(Metric):
    """Share of samples whose class is among the k highest scores."""

    def __init__(self, k):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"For 'TopKCategoricalAccuracy', the type of the argument 'k' should "
                            f"be int, but got {type(k).__name__}")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least "
                             f"1, but got {k}")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two_inputs(self, inputs)
        if y_pred.ndim == y.ndim and _is_one_hot(y):
            y = y.argmax(axis=1)
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += top.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise _no_samples(self)
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(5)


class ConfusionMatrix(Metric):
    """counts[true class, predicted class]; y_pred as class scores (N, C, ...) -> argmax, as
    probabilities of one shape with y -> (y_pred >= threshold), or as class indices.
    normalize: 'no_norm', 'target' (rows sum to 1), 'prediction' (columns), 'all'."""

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        if isinstance(num_classes, bool) or not isinstance(num_classes, int):
            raise TypeError(f"For 'ConfusionMatrix', 'num_classes' must be an int, but got "
                            f"{type(num_classes).__name__}")
        if normalize not in ("target", "prediction", "all", "no_norm"):
            raise ValueError("For 'ConfusionMatrix', the argument 'normalize' must be in "
                             f"['all', 'prediction', 'target', 'no_norm'], but got {normalize!r}")
        if not isinstance(threshold, float):
            raise TypeError(f"For 'ConfusionMatrix', 'threshold' must be a float, but got "
                            f"{type(threshold).__name__}")
        self.num_classes = num_classes
        self.normalize = normalize
        self.threshold = threshold
        self.clear()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two_inputs(self, inputs)
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim != y.ndim:
            raise ValueError("For 'ConfusionMatrix.update', y_pred must have y's rank or one "
                             f"more, but got {y_pred.shape} and {y.shape}")
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(np.int64)
        n = self.num_classes
        cells = y.reshape(-1).astype(np.int64) * n + y_pred.reshape(-1).astype(np.int64)
        if cells.size and (cells.min() < 0 or cells.max() >= n * n):
            raise ValueError(f"For 'ConfusionMatrix.update', classes must be in [0, {n}), but got "
                             f"labels up to {int(y.max())} and predictions up to "
                             f"{int(y_pred.max())}")
        self.confusion_matrix += np.bincount(cells, minlength=n * n).reshape(n, n)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        m = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return m
        axis = {"target": 1, "prediction": 0, "all": None}[self.normalize]
        with np.errstate(invalid="ignore", divide="ignore"):
            m = m / m.sum(axis=axis, keepdims=axis is not None)
        m[np.isnan(m)] = 0
        return m


class Perplexity(Metric):
    """exp(mean negative log-probability of the labels): preds (..., C) probabilities, labels
    of preds' shape without the last axis; labels equal to `ignore_label` are left out."""

    def __init__(self, ignore_label=None):
        super().__init__()
        if ignore_label is not None and (isinstance(ignore_label, bool)
                                         or not isinstance(ignore_label, int)):
            raise TypeError(f"For 'Perplexity', 'ignore_label' must be an int or None, but got "
                            f"{type(ignore_label).__name__}")
        self.ignore_label = ignore_label
        self.clear()

    def clear(self):
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        pred, label = _two_inputs(self, inputs, "predicted value, label")
        if pred.ndim == 0 or label.size * pred.shape[-1] != pred.size:
            raise RuntimeError("For 'Perplexity.update', label must have the predictions' shape "
                               f"without the last axis, but got {pred.shape} and {label.shape}")
        label = label.reshape(-1)
        probs = pred.reshape(-1, pred.shape[-1])[np.arange(label.size), label.astype(np.int64)]
        keep = np.ones(label.size, bool) if self.ignore_label is None \
            else label != self.ignore_label
        self._sum_metric -= float(np.log(np.maximum(1e-10, probs[keep])).sum())
        self._num_inst += int(keep.sum())

    def eval(self):
        if self._num_inst == 0:
            raise _no_samples(self)
        return math.exp(self._sum_metric / self._num_inst)


def auc(x, y, reorder=False):
    """Area under the curve y(x) by the trapezoidal rule; x must be monotonic unless
    `reorder` (then points are sorted by x, ties by y)."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got "
                        f"{type(x).__name__}, {type(y).__name__}")
    x, y = (_column(a) for a in (x, y))
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"For 'auc', 'x' and 'y' must have the same length, but got "
                         f"{x.shape[0]} and {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', 'x' needs at least 2 points, but got {x.shape[0]}")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"For 'auc', 'x' must be increasing or decreasing when 'reorder' "
                                 f"is False, but got {x}")
            direction = -1
    return np.float64(direction * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0))


def _column(a):
    if a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 1):
        return a.reshape(-1)
    raise ValueError(f"For 'auc', the input must be 1-D or of shape (N, 1), but got {a.shape}")
