"""MindSpore's `mindspore.nn.metrics` path (the model zoo's `from mindspore.nn.metrics import
Accuracy`): the metrics, which live in mindlite.train as in MindSpore 2.x."""
from ..train import (F1, MAE, MSE, Accuracy, ConfusionMatrix, Fbeta, Loss,  # noqa: F401
                     Metric, Perplexity, Precision, Recall, Top1CategoricalAccuracy,
                     Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc, get_metric_fn,
                     names, rearrange_inputs)
