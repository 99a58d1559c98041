"""mindlite.train: Model (train / eval / predict), callbacks, metrics and checkpoints.

As MindSpore's mindspore.train: Model (model.py), Callback, RunContext,
LossMonitor, TimeMonitor (callback.py), Metric, Accuracy, Loss (metrics.py),
save_checkpoint, load_checkpoint, load_param_into_net in MindSpore's .ckpt
format (serialization.py; protobuf is imported on the first save or load).
"""
from .callback import Callback, LossMonitor, RunContext, TimeMonitor
from .metrics import Accuracy, Loss, Metric, get_metric_fn, rearrange_inputs
from .model import Model
from .serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["Accuracy", "Callback", "Loss", "LossMonitor", "Metric", "Model", "RunContext",
           "TimeMonitor", "get_metric_fn", "load_checkpoint", "load_param_into_net",
           "rearrange_inputs", "save_checkpoint"]
