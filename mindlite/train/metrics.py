"""Evaluation metrics (MindSpore's mindspore.train.Metric, Accuracy, Loss).

A metric accumulates over batches: `clear()`, `update(*inputs)` per batch,
`eval()` for the result. Inputs may be Tensors, numpy arrays or lists.
`set_indexes([i, j])` picks which of the evaluation network's outputs `update`
receives (with the `rearrange_inputs` decorator, as MindSpore).
"""
import functools

import numpy as np

from ..common.tensor import Tensor

__all__ = ["Accuracy", "Loss", "Metric", "get_metric_fn", "get_metrics", "names",
           "rearrange_inputs"]


def rearrange_inputs(func):
    """Decorator for `update`: pass only the inputs listed by `set_indexes`, in that order."""
    @functools.wraps(func)
    def wrapper(self, *inputs):
        if self.indexes is not None:
            inputs = [inputs[i] for i in self.indexes]
        return func(self, *inputs)
    return wrapper


class Metric:
    """Base class of metrics: subclasses define clear, update and eval."""

    def __init__(self):
        self._indexes = None

    @property
    def indexes(self):
        return self._indexes

    def set_indexes(self, indexes):
        if not isinstance(indexes, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in indexes):
            raise ValueError(f"For 'set_indexes', 'indexes' must be a list of int, but got "
                             f"{indexes!r}")
        self._indexes = indexes
        return self

    def _convert_data(self, data):
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, (np.ndarray, list, tuple, int, float, np.number)):
            return np.asarray(data)
        raise TypeError(f"For '{type(self).__name__}.update', the input must be a Tensor, list "
                        f"or numpy array, but got {type(data).__name__}")

    def clear(self):
        raise NotImplementedError(f"'{type(self).__name__}' must define clear()")

    def update(self, *inputs):
        raise NotImplementedError(f"'{type(self).__name__}' must define update()")

    def eval(self):
        raise NotImplementedError(f"'{type(self).__name__}' must define eval()")

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()


class Accuracy(Metric):
    """Share of correct predictions. 'classification': y_pred (N, C) scores, y (N,) class
    indices or (N, C) one-hot; 'multilabel': y_pred and y both 0/1 of shape (N, C, ...)."""

    def __init__(self, eval_type="classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError("For 'Accuracy', 'eval_type' must be 'classification' or "
                             f"'multilabel', but got {eval_type!r}")
        self._type = eval_type
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError("For 'Accuracy.update', it needs 2 inputs (predicted value, true "
                             f"value), but got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim < 1 or y_pred.shape[0] != (y.shape[0] if y.ndim else -1):
            raise ValueError("For 'Accuracy.update', the predicted value and the true value "
                             f"need the same number of samples, but got shapes "
                             f"{list(y_pred.shape)} and {list(y.shape)}")
        if self._type == "classification":
            if y.ndim == y_pred.ndim and y.shape == y_pred.shape:
                y = y.argmax(axis=1)                 # one-hot labels
            if y_pred.ndim != y.ndim + 1:
                raise ValueError("For 'Accuracy.update', the predicted value must have one "
                                 "more dimension than the class-index labels, but got shapes "
                                 f"{list(y_pred.shape)} and {list(y.shape)}")
            if self._class_num and y_pred.shape[1] != self._class_num:
                raise ValueError(f"For 'Accuracy.update', the class number {y_pred.shape[1]} "
                                 f"does not match the earlier {self._class_num}")
            self._class_num = y_pred.shape[1]
            result = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            if y_pred.shape != y.shape or y_pred.ndim < 2:
                raise ValueError("For 'Accuracy.update' with eval_type 'multilabel', the "
                                 "predicted value and the true value need the same shape "
                                 f"(N, C, ...), but got {list(y_pred.shape)} and "
                                 f"{list(y.shape)}")
            c = y_pred.shape[1]
            y_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, c)
            result = (y_pred == np.moveaxis(y, 1, -1).reshape(-1, c)).all(axis=1)
        self._correct_num += int(result.sum())
        self._total_num += result.shape[0]

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("The 'Accuracy' can not be calculated, because the number of "
                               "samples is 0, please check whether your inputs(predicted value, "
                               "true value) are empty, or has called update method before "
                               "calling eval method.")
        return self._correct_num / self._total_num


class Loss(Metric):
    """Mean of the per-batch losses (each a scalar or a 1-D tensor, averaged first)."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError("For 'Loss.update', the loss must be a scalar or 1-D, but got shape "
                             f"{list(loss.shape)}")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples "
                               "is 0.")
        return self._sum_loss / self._total_num


_METRICS = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss}


def _factory():
    """MindSpore's metric names (mindspore.train.names()) that mindlite has."""
    from . import metrics_classification as m
    return {**_METRICS, "precision": m.Precision, "recall": m.Recall, "F1": m.F1,
            "auc": m.auc, "topk": m.TopKCategoricalAccuracy,
            "top_1_accuracy": m.Top1CategoricalAccuracy,
            "top_5_accuracy": m.Top5CategoricalAccuracy, "mae": m.MAE, "mse": m.MSE,
            "perplexity": m.Perplexity, "confusion_matrix": m.ConfusionMatrix}


def names():
    """The metric names get_metric_fn accepts, sorted."""
    return sorted(_factory())


def get_metric_fn(name, *args, **kwargs):
    """A new metric by name ('accuracy', 'precision', 'F1', 'mae', 'top_5_accuracy', ...)."""
    factory = _factory()
    if name not in factory:
        raise ValueError(f"Unknown metric name {name!r}; available: {sorted(factory)}")
    return factory[name](*args, **kwargs)


def get_metrics(metrics):
    """A dict name -> Metric from a dict of Metrics or a set/list of names (None -> {})."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        for k, v in metrics.items():
            if not isinstance(k, str) or not isinstance(v, Metric):
                raise TypeError("For 'Model', 'metrics' as a dict must map str to Metric, but "
                                f"got {type(k).__name__} -> {type(v).__name__}")
        return dict(metrics)
    if isinstance(metrics, (set, list, tuple)):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError("For 'Model', 'metrics' must be None, a dict name -> Metric or a set of "
                    f"names, but got {type(metrics).__name__}")
