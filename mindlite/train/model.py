"""mindlite.train.Model: MindSpore's high-level train / eval / predict loop.

`Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs)`. One training step on a
batch (the dataset's columns):

- with an optimizer: loss = loss_fn(network(*data), label) (label = last column;
  without loss_fn the network's output is the loss), gradients of the loss
  with respect to `optimizer.parameters` by mindlite.value_and_grad, then
  `optimizer(grads)`;
- without one: `network(*columns)` is the whole step (e.g. a TrainOneStepCell);
  its output is the loss;
- with `amp_level` "O1"/"O2"/"O3"/"auto", a `loss_scale_manager` or `keep_batchnorm_fp32`
  (MindSpore's Model kwargs): the step is the cell amp.build_train_network builds (a
  TrainOneStepCell or TrainOneStepWithLossScaleCell over the mixed-precision network), and
  after each step a manager that drops overflowing updates is told whether it overflowed.

Evaluation runs loss_fn over network(*data) (or `eval_network`; under O2/O3 the
output cast to float32 first, as MindSpore's WithEvalCell(add_cast_fp32=True)) and
updates the metrics with MindSpore's (loss, output, label) convention. Dataset sink mode
does not exist on the CPU; as MindSpore there, asking for it warns and trains
without it.
"""
import numbers
import warnings

import numpy as np

from ..common.api import GRAPH
from ..common import dtype as mstype
from ..nn.cell import Cell
from ..ops.composite import value_and_grad
from .callback import CallbackList, CallbackParam, RunContext
from .metrics import Loss, get_metrics

__all__ = ["Model"]


def _check_dataset(api, arg, dataset):
    if not hasattr(dataset, "create_tuple_iterator") or not hasattr(dataset, "get_dataset_size"):
        raise TypeError(f"For '{api}', '{arg}' must be a mindlite.dataset Dataset, but got "
                        f"{type(dataset).__name__}")


def _check_sink(api, dataset_sink_mode):
    if not isinstance(dataset_sink_mode, bool):
        raise TypeError(f"For '{api}', 'dataset_sink_mode' must be a bool, but got "
                        f"{dataset_sink_mode!r}")
    if dataset_sink_mode:
        warnings.warn(f"For '{api}', the CPU has no dataset sink mode; running without it",
                      stacklevel=3)


class Model:
    """High-level API wrapping a network, its loss, optimizer and metrics."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, Cell):
            raise TypeError(f"For 'Model', 'network' must be a Cell, but got "
                            f"{type(network).__name__}")
        if loss_fn is not None and not callable(loss_fn):
            raise TypeError(f"For 'Model', 'loss_fn' must be callable or None, but got "
                            f"{type(loss_fn).__name__}")
        if optimizer is not None and (not callable(optimizer)
                                      or not hasattr(optimizer, "parameters")):
            raise TypeError("For 'Model', 'optimizer' must be callable as optimizer(grads) and "
                            f"have 'parameters', but got {type(optimizer).__name__}")
        if eval_network is not None and not callable(eval_network):
            raise TypeError(f"For 'Model', 'eval_network' must be callable or None, but got "
                            f"{type(eval_network).__name__}")
        if eval_indexes is not None and (
                not isinstance(eval_indexes, list) or len(eval_indexes) != 3
                or not all(isinstance(i, int) for i in eval_indexes)):
            raise ValueError("For 'Model', 'eval_indexes' must be a list of 3 ints (positions "
                             f"of loss, output and label), but got {eval_indexes!r}")
        self._network, self._loss_fn, self._optimizer = network, loss_fn, optimizer
        self._metric_fns = get_metrics(metrics)
        self._eval_network = eval_network
        self._eval_indexes = eval_indexes if eval_network is not None else (
            [0, 1, 2] if loss_fn is not None else None)
        self._amp_level = amp_level
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._train_network = self._build_amp_network(amp_level, boost_level, kwargs)
        self._train_step = self._train_network or self._build_train_step()
        self._eval_loss = None           # mean loss of the last eval (Model.fit's "eval_loss")

    # ---- steps -------------------------------------------------------------------------
    def _build_amp_network(self, amp_level, boost_level, kwargs):
        """The mixed-precision / loss-scaled train cell (amp.build_train_network), or None when
        nothing asks for one (the plain step below is the same computation, and compiles)."""
        from .. import amp
        for key in kwargs:
            if key not in ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict",
                           "acc_level"):
                raise ValueError("For 'Model', the argument in 'kwargs' should be "
                                 "'loss_scale_manager' or 'keep_batchnorm_fp32' or "
                                 f"'boost_config_dict' or 'acc_level', but got {key!r}")
        boost_level = kwargs.get("acc_level", boost_level)
        amp.check_levels("Model", amp_level, boost_level)
        if self._optimizer is None:
            if amp_level != "O0":
                raise ValueError("For 'Model', auto mixed precision will not work because "
                                 "'optimizer' is None; set amp_level='O0' or pass an optimizer")
            if self._loss_scale_manager is not None:
                raise ValueError("For 'Model', the argument 'optimizer' can not be None when "
                                 "'loss_scale_manager' is set")
            return None
        config = {k: kwargs[k] for k in ("loss_scale_manager", "keep_batchnorm_fp32")
                  if k in kwargs}
        if amp_level == "O0" and not config:
            return None
        return amp.build_train_network(self._network, self._optimizer, self._loss_fn,
                                       level=amp_level, **config)

    def _loss(self, *batch):
        if self._loss_fn is None:
            return self._network(*batch)
        if len(batch) < 2:
            raise ValueError("For 'Model', with a loss_fn each batch needs data and label "
                             f"columns (the label last), but the batch has {len(batch)} column")
        return self._loss_fn(self._network(*batch[:-1]), batch[-1])

    def _build_train_step(self):
        if self._optimizer is None:
            return self._network
        grad_fn = value_and_grad(self._loss, None, list(self._optimizer.parameters))
        optimizer = self._optimizer
        from ..nn.wrap.grad_reducer import reducer_for
        reducer = reducer_for(list(optimizer.parameters))       # DATA_PARALLEL only

        def train_step(*batch):
            loss, grads = grad_fn(*batch)
            if reducer is not None:
                grads = reducer(grads)
            optimizer(grads)
            return loss
        if reducer is not None:
            return train_step                   # the reduction runs eagerly, outside a graph
        # one compiled graph under GRAPH_MODE (jit/ad/entry.py, through its slot)
        return GRAPH.grad_entry.graph_step(train_step)

    def _eval_step(self, *batch):
        if self._eval_network is not None:
            return self._eval_network(*batch)
        if len(batch) < 2:
            raise ValueError("For 'Model.eval', each batch needs data and label columns (the "
                             f"label last), but the batch has {len(batch)} column")
        out = self._network(*batch[:-1])
        if self._amp_level in ("O2", "O3", "auto"):       # WithEvalCell(add_cast_fp32=True)
            from ..nn.cell_mixed import _cast
            out = _cast(out, mstype.float32)
        return self._loss_fn(out, batch[-1]), out, batch[-1]

    def _update_metrics(self, outputs):
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError("For 'Model.eval', the evaluation network must return at least 3 "
                             f"outputs when 'eval_indexes' is set, but returned {len(outputs)}")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    # ---- train -------------------------------------------------------------------------
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        """Train for epochs initial_epoch+1 .. epoch over `train_dataset`, calling `callbacks`
        (`sink_size` belongs to sink mode, which the CPU does not have)."""
        self._run_train("Model.train", epoch, train_dataset, callbacks, dataset_sink_mode,
                        initial_epoch, None, 1)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1,
            initial_epoch=0):
        """train, plus eval on `valid_dataset` every `valid_frequency` epochs (the results are
        the callbacks' `metrics`; LossMonitor prints them)."""
        if valid_dataset is not None:
            _check_dataset("Model.fit", "valid_dataset", valid_dataset)
            if not self._metric_fns:
                raise ValueError("For 'Model.fit', a 'valid_dataset' needs metrics; pass "
                                 "'metrics' when creating the Model")
        if not isinstance(valid_frequency, int) or isinstance(valid_frequency, bool) \
                or valid_frequency < 1:
            raise ValueError("For 'Model.fit', 'valid_frequency' must be a positive int, but "
                             f"got {valid_frequency!r}")
        self._run_train("Model.fit", epoch, train_dataset, callbacks, dataset_sink_mode,
                        initial_epoch, valid_dataset, valid_frequency)

    def _run_train(self, api, epoch, dataset, callbacks, sink, initial_epoch, valid, valid_freq):
        for arg, v, lo in (("epoch", epoch, 1), ("initial_epoch", initial_epoch, 0)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < lo:
                raise ValueError(f"For '{api}', '{arg}' must be an int >= {lo}, but got {v!r}")
        if initial_epoch >= epoch:
            raise ValueError(f"For '{api}', 'initial_epoch' ({initial_epoch}) must be less than "
                             f"'epoch' ({epoch})")
        _check_dataset(api, "train_dataset", dataset)
        _check_sink(api, sink)
        cbs = CallbackList(callbacks, api)
        manager = self._loss_scale_manager
        cb = CallbackParam(
            train_network=self._train_network or self._network, network=self._network,
            loss_fn=self._loss_fn, loss_scale_mananger=manager,    # (sic) MindSpore's key
            optimizer=self._optimizer, train_dataset=dataset, epoch_num=epoch,
            batch_num=dataset.get_dataset_size(), cur_epoch_num=initial_epoch, cur_step_num=0,
            net_outputs=None, mode="train", dataset_sink_mode=False, parallel_mode="stand_alone",
            device_number=1, list_callback=cbs.callbacks)
        run_context = RunContext(cb)
        batches = dataset.create_tuple_iterator(num_epochs=epoch - initial_epoch)
        self._network.set_train(True)
        cbs("on_train_begin", run_context)
        for ep in range(initial_epoch, epoch):
            cb.cur_epoch_num = ep + 1
            cbs("on_train_epoch_begin", run_context)
            for batch in batches:
                cb.cur_step_num += 1
                cb.train_dataset_element = batch
                cbs("on_train_step_begin", run_context)
                cb.net_outputs = self._train_step(*batch)
                if manager is not None and manager.get_drop_overflow_update():
                    manager.update_loss_scale(bool(np.all(cb.net_outputs[1].asnumpy())))
                cbs("on_train_step_end", run_context)
                if run_context.get_stop_requested():
                    break
            if valid is not None and (ep + 1 - initial_epoch) % valid_freq == 0:
                cb.metrics = self.eval(valid)
                # what EarlyStopping / ReduceLROnPlateau watch: the metrics and "eval_loss"
                cb.eval_results = dict(cb.metrics)
                if self._eval_loss is not None:
                    cb.eval_results["eval_loss"] = self._eval_loss
                self._network.set_train(True)
            cbs("on_train_epoch_end", run_context)
            if run_context.get_stop_requested():
                break
        cbs("on_train_end", run_context)

    # ---- eval / predict ------------------------------------------------------------------
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Run the metrics over `valid_dataset` -> dict metric name -> value."""
        api = "Model.eval"
        _check_dataset(api, "valid_dataset", valid_dataset)
        _check_sink(api, dataset_sink_mode)
        if not self._metric_fns:
            raise ValueError("For 'Model.eval', the model has no metrics; pass 'metrics' when "
                             "creating the Model")
        if self._eval_network is None and self._loss_fn is None:
            raise ValueError("For 'Model.eval', the model needs a 'loss_fn' or an "
                             "'eval_network' to evaluate with")
        cbs = CallbackList(callbacks, api)
        cb = CallbackParam(
            eval_network=self._eval_network or self._network, valid_dataset=valid_dataset,
            batch_num=valid_dataset.get_dataset_size(), epoch_num=1, cur_epoch_num=1,
            cur_step_num=0, net_outputs=None, mode="eval", dataset_sink_mode=False,
            list_callback=cbs.callbacks)
        run_context = RunContext(cb)
        for metric in self._metric_fns.values():
            metric.clear()
        loss_sum, loss_count = 0.0, 0
        self._network.set_train(False)
        cbs("on_eval_begin", run_context)
        cbs("on_eval_epoch_begin", run_context)
        for batch in valid_dataset.create_tuple_iterator(num_epochs=1):
            cb.cur_step_num += 1
            cbs("on_eval_step_begin", run_context)
            outputs = self._eval_step(*batch)
            cb.net_outputs = outputs
            self._update_metrics(outputs)
            if self._eval_indexes is not None:
                loss_sum += float(outputs[self._eval_indexes[0]].asnumpy().mean())
                loss_count += 1
            cbs("on_eval_step_end", run_context)
        cb.metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
        self._eval_loss = loss_sum / loss_count if loss_count else None
        cbs("on_eval_epoch_end", run_context)
        cbs("on_eval_end", run_context)
        return cb.metrics

    def predict(self, *predict_data):
        """The network's output on `predict_data` (in inference mode)."""
        self._network.set_train(False)
        return self._network(*predict_data)

    # ---- the networks (MindSpore's Model properties) ---------------------------------------
    @property
    def train_network(self):
        """The training cell: amp's cell when one was built, else TrainOneStepCell(
        WithLossCell(network, loss_fn), optimizer) over the same parameters and optimizer
        (Model's own plain step is this computation, compiled as one graph under GRAPH_MODE);
        the network itself without an optimizer."""
        if self._train_network is None:
            from ..nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell
            if self._optimizer is None:
                return self._network
            net = self._network if self._loss_fn is None \
                else WithLossCell(self._network, self._loss_fn)
            self._train_network = TrainOneStepCell(net, self._optimizer)
        return self._train_network

    @property
    def eval_network(self):
        """The evaluation cell: `eval_network`, else WithEvalCell(network, loss_fn) (casting
        the output to float32 under O2/O3), or None without a loss_fn."""
        if self._eval_network is not None or self._loss_fn is None:
            return self._eval_network
        from ..nn.wrap.cell_wrapper import WithEvalCell
        return WithEvalCell(self._network, self._loss_fn,
                            add_cast_fp32=self._amp_level in ("O2", "O3", "auto"))

    @property
    def predict_network(self):
        """The network predict runs."""
        return self._network
