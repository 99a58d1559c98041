"""More training callbacks (MindSpore's mindspore.train): History, LambdaCallback,
LearningRateScheduler, EarlyStopping and ReduceLROnPlateau. Checkpointing callbacks are in
callback_ckpt.py.

EarlyStopping and ReduceLROnPlateau watch a value at the end of each training epoch: "loss"
(the step outputs' loss) or, under Model.fit with a validation dataset, any key of the run's
`eval_results` (the metrics plus "eval_loss"), as MindSpore. They change the learning rate in
place (the optimizer's "learning_rate" Parameter) and stop through run_context.request_stop().
"""
import copy
import math
import numbers

import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from .callback import Callback

__all__ = ["History", "LambdaCallback", "LearningRateScheduler", "EarlyStopping",
           "ReduceLROnPlateau"]

# the metrics for which smaller is better under mode="auto" (MindSpore's list)
SMALLER_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity", "eval_loss",
                  "rmse", "mean_surface_distance", "root_mean_square_distance")


def _mean_loss(outputs):
    """A step's outputs as one float: the first element of a tuple, a Tensor's mean."""
    if isinstance(outputs, (tuple, list)) and outputs and isinstance(outputs[0], Tensor):
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return outputs


class History(Callback):
    """Records, per epoch, the last step's output (`history["net_output"]`) and the metrics of
    Model.fit's validation; `epoch["epoch"]` lists the epoch numbers."""

    def __init__(self):
        self.history = {}
        self.epoch = None

    def begin(self, run_context):
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        cb = run_context.original_args()
        self.epoch["epoch"].append(cb.get("cur_epoch_num", 1))
        record = {"net_output": _mean_loss(cb.get("net_outputs"))}
        record.update(cb.get("metrics") or {})
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)


_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
          "on_train_step_end", "on_train_begin", "on_train_end", "on_eval_epoch_begin",
          "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_begin",
          "on_eval_end")


class LambdaCallback(Callback):
    """A callback from functions: each given hook is called with the RunContext."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None,
                 on_train_step_begin=None, on_train_step_end=None, on_train_begin=None,
                 on_train_end=None, on_eval_epoch_begin=None, on_eval_epoch_end=None,
                 on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        given = locals()
        for hook in _HOOKS:
            fn = given[hook]
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"For 'LambdaCallback', '{hook}' must be callable, but got "
                                    f"{type(fn).__name__}")
                setattr(self, hook, fn)


def _lr_parameter(api, optimizer):
    lr = getattr(optimizer, "learning_rate", None)
    if not isinstance(lr, Parameter):
        raise ValueError(f"{api} does not support dynamic learning rate and group learning rate "
                         "now: the optimizer's 'learning_rate' must be one Parameter")
    return lr


def _set_lr(param, value):
    param.set_data(Tensor(np.array(value, dtype=param.dtype.np)))


class LearningRateScheduler(Callback):
    """After each step: lr = learning_rate_function(lr, cur_step_num), written into the
    optimizer's learning-rate Parameter when it changed."""

    def __init__(self, learning_rate_function):
        if not callable(learning_rate_function):
            raise TypeError("For 'LearningRateScheduler', 'learning_rate_function' must be "
                            f"callable, but got {type(learning_rate_function).__name__}")
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context):
        cb = run_context.original_args()
        param = _lr_parameter("LearningRateScheduler", cb.optimizer)
        lr = float(param.asnumpy().reshape(-1)[0])
        new_lr = self.learning_rate_function(lr, cb.cur_step_num)
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            _set_lr(param, new_lr)


class _Monitor(Callback):
    """The value watched at epoch end and the improvement test shared by EarlyStopping and
    ReduceLROnPlateau."""

    def __init__(self, api, monitor, mode, min_delta):
        if not isinstance(monitor, str):
            raise TypeError(f"For '{api}', 'monitor' must be a str, but got "
                            f"{type(monitor).__name__}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"For '{api}', 'mode' should be 'auto', 'min' or 'max', but got "
                             f"{mode!r}")
        if isinstance(min_delta, bool) or not isinstance(min_delta, numbers.Real):
            raise TypeError(f"For '{api}', 'min_delta' must be a float or an int, but got "
                            f"{type(min_delta).__name__}")
        self.monitor, self.mode, self.min_delta = monitor, mode, abs(min_delta)
        self._smaller = mode == "min" or (mode == "auto" and monitor in SMALLER_BETTER)
        self.best = self._worst()

    def _worst(self):
        return np.inf if self._smaller else -np.inf

    def is_improvement(self, current, reference):
        if self._smaller:
            return current < reference - self.min_delta
        return current > reference + self.min_delta

    def _value(self, cb):
        if self.monitor == "loss":
            value = _mean_loss(cb.get("net_outputs"))
        else:
            value = (cb.get("eval_results") or {}).get(self.monitor)
        if value is None:
            return None
        return float(np.mean(value))


def _non_negative_int(api, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"For '{api}', '{name}' must be an int >= 0, but got {value!r}")
    return value


class EarlyStopping(_Monitor):
    """Stop training when the monitored value has not improved for `patience` epochs;
    `baseline`: improvements must also beat it; `restore_best_weights`: load the best
    epoch's parameters back when stopping."""

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False,
                 mode="auto", baseline=None, restore_best_weights=False):
        super().__init__("EarlyStopping", monitor, mode, min_delta)
        self.patience = _non_negative_int("EarlyStopping", "patience", patience)
        self.verbose, self.baseline = bool(verbose), baseline
        self.restore_best_weights = bool(restore_best_weights)
        self.wait = self.stopped_epoch = 0
        self.best_weights_param_dict = None

    def on_train_begin(self, run_context):
        self.wait = self.stopped_epoch = 0
        self.best = self._worst()
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        current = self._value(cb)
        if current is None:
            return
        net = cb.train_network
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = copy.deepcopy(net.parameters_dict())
        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = copy.deepcopy(net.parameters_dict())
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                from .serialization import load_param_into_net
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                load_param_into_net(net, self.best_weights_param_dict)

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


class ReduceLROnPlateau(_Monitor):
    """Multiply the learning rate by `factor` (not below `min_lr`) when the monitored value
    has not improved for `patience` epochs, then wait `cooldown` epochs."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__("ReduceLROnPlateau", monitor, mode, min_delta)
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real) \
                or not 0.0 < factor < 1.0:
            raise ValueError(f"For 'ReduceLROnPlateau', 'factor' must be in (0, 1), but got "
                             f"{factor!r}")
        if isinstance(min_lr, bool) or not isinstance(min_lr, numbers.Real):
            raise TypeError(f"For 'ReduceLROnPlateau', 'min_lr' must be a float or an int, but "
                            f"got {type(min_lr).__name__}")
        self.factor, self.min_lr, self.verbose = factor, min_lr, bool(verbose)
        self.patience = _non_negative_int("ReduceLROnPlateau", "patience", patience)
        self.cooldown = _non_negative_int("ReduceLROnPlateau", "cooldown", cooldown)
        self.cooldown_counter = self.wait = 0

    def on_train_begin(self, run_context):
        self.cooldown_counter = self.wait = 0
        self.best = self._worst()

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        param = _lr_parameter("ReduceLROnPlateau", cb.optimizer)
        current = self._value(cb)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                lr = float(param.asnumpy().reshape(-1)[0])
                if lr > self.min_lr:
                    new_lr = max(lr * self.factor, self.min_lr)
                    _set_lr(param, new_lr)
                    if self.verbose:
                        print(f"Epoch {cb.cur_epoch_num:05d}: ReduceLROnPlateau reducing "
                              f"learning rate to {new_lr}.")
                self.cooldown_counter, self.wait = self.cooldown, 0
