"""Training callbacks (MindSpore's mindspore.train.Callback, RunContext, LossMonitor, TimeMonitor).

Model.train / Model.eval call each callback with a RunContext whose
`original_args()` is the run's parameters as attributes: cur_epoch_num,
cur_step_num (counted over all epochs), batch_num (steps per epoch), epoch_num,
net_outputs (the step's loss), train_network, optimizer, loss_fn, mode, ...
As in MindSpore 2.x the `on_train_*` / `on_eval_*` hooks call the 1.x names
(begin, epoch_begin, step_begin, step_end, epoch_end, end) by default, so a
callback may override either.
"""
import numbers
import time

import numpy as np

from ..common.tensor import Tensor

__all__ = ["Callback", "LossMonitor", "RunContext", "TimeMonitor"]


class CallbackParam(dict):
    """The run's parameters: a dict whose keys read and write as attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"the run context has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        self[name] = value


class RunContext:
    """What callbacks see: `original_args()` and a way to stop the run (`request_stop()`)."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError("For 'RunContext', 'original_args' must be a dict, but got "
                            f"{type(original_args).__name__}")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        return self._original_args

    def request_stop(self):
        """Stop training after the current step."""
        self._stop_requested = True

    def get_stop_requested(self):
        return self._stop_requested


class Callback:
    """Base class: override any of the hooks; each gets the RunContext."""

    def begin(self, run_context):
        """Called once before the run."""

    def epoch_begin(self, run_context):
        """Called before each epoch."""

    def epoch_end(self, run_context):
        """Called after each epoch."""

    def step_begin(self, run_context):
        """Called before each step."""

    def step_end(self, run_context):
        """Called after each step."""

    def end(self, run_context):
        """Called once after the run."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class CallbackList:
    """Several callbacks called in order (Model's own helper)."""

    def __init__(self, callbacks, api):
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        if not isinstance(callbacks, (list, tuple)) or not all(
                isinstance(c, Callback) for c in callbacks):
            raise TypeError(f"For '{api}', 'callbacks' must be a Callback or a list of "
                            f"Callbacks, but got {callbacks!r}")
        self.callbacks = list(callbacks)

    def __call__(self, hook, run_context):
        for cb in self.callbacks:
            getattr(cb, hook)(run_context)


def loss_value(net_outputs):
    """The loss as a Python float from a step's outputs (first element of a tuple)."""
    if isinstance(net_outputs, (tuple, list)) and net_outputs:
        net_outputs = net_outputs[0]
    if isinstance(net_outputs, Tensor):
        return float(np.mean(net_outputs.asnumpy()))
    if isinstance(net_outputs, (numbers.Number, np.ndarray)):
        return float(np.mean(net_outputs))
    return net_outputs


class LossMonitor(Callback):
    """Print "epoch: E step: S, loss is L" every `per_print_times` steps (0: never), S
    counted within the epoch; an inf or NaN loss stops training with ValueError."""

    def __init__(self, per_print_times=1):
        if not isinstance(per_print_times, int) or isinstance(per_print_times, bool) \
                or per_print_times < 0:
            raise ValueError("For 'LossMonitor', 'per_print_times' must be a non-negative int, "
                             f"but got {per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        loss = loss_value(cb.net_outputs)
        batch_num = cb.batch_num if cb.batch_num and cb.batch_num > 0 else cb.cur_step_num
        step = (cb.cur_step_num - 1) % batch_num + 1
        if isinstance(loss, float) and not np.isfinite(loss):
            raise ValueError(f"epoch: {cb.cur_epoch_num} step: {step}. Invalid loss, "
                             "terminating training.")
        if cb.cur_step_num <= self._last_print_time:       # a new run with this monitor
            self._last_print_time = 0
        if self._per_print_times and \
                cb.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb.cur_step_num
            print(f"epoch: {cb.cur_epoch_num} step: {step}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        metrics = run_context.original_args().get("metrics")
        if metrics:
            print(f"Eval result: epoch {run_context.original_args().cur_epoch_num}, "
                  f"metrics: {metrics}", flush=True)


class TimeMonitor(Callback):
    """Print "Train epoch time: T ms, per step time: S ms" after each epoch (MindSpore 2.10)."""

    def __init__(self, data_size=None):
        if data_size is not None and (not isinstance(data_size, int) or data_size <= 0):
            raise ValueError("For 'TimeMonitor', 'data_size' must be a positive int or None, "
                             f"but got {data_size!r}")
        self.data_size = data_size
        self.epoch_time = None

    def on_train_epoch_begin(self, run_context):
        self.epoch_time = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        ms = (time.perf_counter() - self.epoch_time) * 1000
        batch_num = run_context.original_args().get("batch_num")
        steps = batch_num if isinstance(batch_num, int) and batch_num > 0 else self.data_size
        per_step = ms / steps if steps else ms
        print(f"Train epoch time: {ms:5.3f} ms, per step time: {per_step:5.3f} ms", flush=True)


_ELSEWHERE = {"ModelCheckpoint": "callback_ckpt", "CheckpointConfig": "callback_ckpt",
              "History": "callback_monitor", "LambdaCallback": "callback_monitor",
              "LearningRateScheduler": "callback_monitor", "EarlyStopping": "callback_monitor",
              "ReduceLROnPlateau": "callback_monitor", "SummaryCollector": "summary_collector"}


def __getattr__(name):
    """`from mindlite.train.callback import ModelCheckpoint` (MindSpore 1.x's import path)
    finds the callbacks defined in the sibling modules."""
    if name in _ELSEWHERE:
        import importlib
        return getattr(importlib.import_module(f"{__package__}.{_ELSEWHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
