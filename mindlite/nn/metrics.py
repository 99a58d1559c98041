"""mindspore.nn.metrics: the metrics of mindlite.train (MindSpore 2.10 lists them under nn
as well, as the same classes) and `get_metrics`, which turns a set of metric names (or a
dict of name -> Metric) into a dict of Metric objects."""
from ..train.metrics import Accuracy, Loss, Metric, get_metric_fn, names, rearrange_inputs
from ..train.metrics_extra import (F1, MAE, MSE, ConfusionMatrix, Fbeta, Perplexity,
                                   Precision, Recall, Top1CategoricalAccuracy,
                                   Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc)
from ..train.metrics_similarity import ROC, BleuScore, CosineSimilarity, Dice

__all__ = ["Accuracy", "BleuScore", "ConfusionMatrix", "CosineSimilarity", "Dice", "F1",
           "Fbeta", "Loss", "MAE", "MSE", "Metric", "Perplexity", "Precision", "ROC", "Recall",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy",
           "auc", "get_metric_fn", "get_metrics", "names", "rearrange_inputs"]


def get_metrics(metrics):
    """None -> None; a dict of name -> Metric as it is; a set / list of names -> a dict of
    name -> get_metric_fn(name)."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, m in metrics.items():
            if not isinstance(name, str) or not isinstance(m, Metric):
                raise TypeError("For 'get_metrics', a dict must map str names to Metric "
                                f"objects, but got {name!r}: {type(m).__name__}")
        return metrics
    if isinstance(metrics, (set, list, tuple)):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"For 'get_metrics', 'metrics' must be None, a dict or a set of names, but "
                    f"got {type(metrics).__name__}")
