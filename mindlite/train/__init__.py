"""mindlite.train: Model (train / eval / predict), callbacks, metrics and checkpoints.

As MindSpore's mindspore.train: Model (model.py), Callback, RunContext,
LossMonitor, TimeMonitor (callback.py), History, LambdaCallback, LearningRateScheduler,
EarlyStopping, ReduceLROnPlateau (callback_monitor.py), CheckpointConfig, ModelCheckpoint
(callback_ckpt.py), Metric, Accuracy, Loss (metrics.py), Precision,
Recall, Fbeta, F1, MAE, MSE, Top-k, ConfusionMatrix, Perplexity, auc (metrics_classification.py),
save_checkpoint, load_checkpoint, load_param_into_net in MindSpore's .ckpt
format (serialization.py; protobuf is imported on the first save or load),
SummaryRecord / SummaryCollector (summary_record.py, summary_collector.py: MindSpore's
summary files), and amp's build_train_network and loss-scale managers.
"""
from .callback import Callback, LossMonitor, RunContext, TimeMonitor
from .callback_ckpt import CheckpointConfig, ModelCheckpoint
from .callback_monitor import (EarlyStopping, History, LambdaCallback, LearningRateScheduler,
                             ReduceLROnPlateau)
from .metrics import Accuracy, Loss, Metric, get_metric_fn, names, rearrange_inputs
from .metrics_classification import (F1, MAE, MSE, ConfusionMatrix, Fbeta,  # noqa: F401
                                     Perplexity, Precision, Recall, Top1CategoricalAccuracy,
                                     Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc)
from .metrics_similarity import ROC, BleuScore, CosineSimilarity, Dice
from .model import Model
from .summary_collector import SummaryCollector
from .summary_record import SummaryRecord
from ..amp import (DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager,
                   build_train_network)
from .serialization import load_checkpoint, load_param_into_net, save_checkpoint
from .export_api import export, load

__all__ = ["Accuracy", "Callback", "DynamicLossScaleManager", "FixedLossScaleManager",
           "LossScaleManager", "SummaryCollector", "SummaryRecord", "build_train_network",
           "CheckpointConfig", "ConfusionMatrix", "EarlyStopping",
           "History", "LambdaCallback", "LearningRateScheduler", "ModelCheckpoint",
           "ReduceLROnPlateau", "F1", "Fbeta", "Loss", "LossMonitor", "MAE",
           "MSE", "Metric", "Model", "Perplexity", "Precision", "Recall", "RunContext",
           "TimeMonitor", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "TopKCategoricalAccuracy", "auc", "get_metric_fn", "load_checkpoint",
           "load_param_into_net", "names", "rearrange_inputs", "save_checkpoint", "export",
           "load", "BleuScore", "CosineSimilarity", "Dice", "ROC"]
