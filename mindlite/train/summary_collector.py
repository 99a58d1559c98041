"""SummaryCollector (mindspore.train.SummaryCollector): a training callback that writes the
loss, the input images and parameter histograms through a SummaryRecord (summary_record.py)
in MindSpore's summary format.

What it collects, as MindSpore 2.10 does outside dataset sink mode:
- `loss/auto` (scalar): the mean of the step's loss (net_outputs, or its first element);
- `input_data/auto` (image): the first input column when it is a 4-d (N, C, H, W) batch
  (a non-image input turns this off with a warning);
- `<parameter name>/auto` (histogram): the optimizer's parameters whose name matches
  `histogram_regular` (re.match), or its first 5 when the regex is None.
On the first step, then every `collect_freq` steps (counted over all epochs), and again at
each epoch's end when that step is a multiple of collect_freq (so MindSpore's files hold that
step twice; so do these). Tensor-summary steps (collect_tensor_freq) only thin out the
tensors that summary operators emit; mindlite has no summary operators, so no tensor plugin
values are recorded.

Not written (MindSpore's keys are accepted and validated): the graph, the dataset graph, the
train/eval lineage file, custom lineage data, and the loss landscape (MindSpore's default
saves a checkpoint per early step under summary_dir/ckpt_dir for it; mindlite does not).
The record opens at the run's start and closes at its end, or follows a `with` block.
"""
import re
import warnings

import numpy as np

from ..common.tensor import Tensor
from .callback import Callback
from .summary_record import SummaryRecord, _check_export_options, make_directory

__all__ = ["SummaryCollector"]

_LANDSCAPE_KEYS = ("landscape_size", "unit", "num_samples", "create_landscape", "intervals")


def _check_int(name, value, allow_none=False):
    if allow_none and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'SummaryCollector', '{name}' must be an int, but got "
                        f"{type(value).__name__}")
    if value <= 0:
        raise ValueError(f"For 'SummaryCollector', the value of '{name}' should be greater "
                         f"than 0, but got {value}")


class SummaryCollector(Callback):
    """SummaryCollector(summary_dir, collect_freq=10, num_process=32,
    collect_specified_data=None, keep_default_action=True, custom_lineage_data=None,
    collect_tensor_freq=None, max_file_size=None, export_options=None)."""

    _DEFAULT_SPECIFIED_DATA = {
        "collect_metric": True, "collect_graph": True, "collect_train_lineage": True,
        "collect_eval_lineage": True, "collect_input_data": True, "collect_dataset_graph": True,
        "histogram_regular": None,
        "collect_landscape": {"landscape_size": 40, "unit": "step", "num_samples": 2048,
                              "create_landscape": {"train": True, "result": True},
                              "intervals": [[1, 2, 3, 4, 5, 6, 7, 8, 9],
                                            [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]]}}

    def __init__(self, summary_dir, collect_freq=10, num_process=32,
                 collect_specified_data=None, keep_default_action=True,
                 custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
                 export_options=None):
        super().__init__()
        self._summary_dir = make_directory(summary_dir, "summary_dir")
        _check_int("collect_freq", collect_freq)
        _check_int("collect_tensor_freq", collect_tensor_freq, allow_none=True)
        _check_int("max_file_size", max_file_size, allow_none=True)
        self._collect_freq, self._collect_tensor_freq = collect_freq, collect_tensor_freq
        self._max_file_size = max_file_size
        self._export_options = export_options
        _check_export_options(export_options)
        if not isinstance(keep_default_action, bool):
            raise TypeError(f"For 'SummaryCollector', 'keep_default_action' must be a bool, but "
                            f"got {type(keep_default_action).__name__}")
        self._specified = self._process_specified_data(collect_specified_data,
                                                       keep_default_action)
        _check_lineage(custom_lineage_data)
        self._record, self._own_record, self._first_step = None, False, True
        self._tensor_range, self._optimizer = range(0), None

    # ---- arguments -----------------------------------------------------------------------
    def _process_specified_data(self, data, keep_default):
        if data is None:
            return dict(self._DEFAULT_SPECIFIED_DATA) if keep_default else {}
        if not isinstance(data, dict):
            raise TypeError(f"For 'SummaryCollector', 'collect_specified_data' must be a dict or "
                            f"None, but got {type(data).__name__}")
        unexpected = set(data) - set(self._DEFAULT_SPECIFIED_DATA)
        if unexpected:
            raise ValueError(f"For 'SummaryCollector', the keys {sorted(unexpected)} of "
                             f"'collect_specified_data' are unsupported, expect the follow keys: "
                             f"{list(self._DEFAULT_SPECIFIED_DATA)}")
        regular = data.get("histogram_regular")
        if regular is not None:
            if not isinstance(regular, str):
                raise TypeError(f"For 'SummaryCollector', 'histogram_regular' must be a str or "
                                f"None, but got {type(regular).__name__}")
            try:
                re.compile(regular)
            except re.error as err:
                raise ValueError(f"For 'SummaryCollector', 'histogram_regular' is not a valid "
                                 f"regular expression: {err}") from err
        for key, value in data.items():
            if key not in ("histogram_regular", "collect_landscape") \
                    and not isinstance(value, bool):
                raise TypeError(f"For 'SummaryCollector', '{key}' must be a bool, but got "
                                f"{type(value).__name__}")
        landscape = data.get("collect_landscape")
        if landscape is not None and (not isinstance(landscape, dict)
                                      or set(landscape) - set(_LANDSCAPE_KEYS)):
            raise ValueError(f"For 'SummaryCollector', 'collect_landscape' must be a dict with "
                             f"keys among {list(_LANDSCAPE_KEYS)}, but got {landscape!r}")
        return dict(self._DEFAULT_SPECIFIED_DATA, **data) if keep_default else dict(data)

    # ---- the record ----------------------------------------------------------------------
    def __enter__(self):
        self._open()
        self._own_record = False
        return self

    def __exit__(self, *err):
        self._close()

    def _open(self):
        if self._record is None:
            self._record = SummaryRecord(self._summary_dir, max_file_size=self._max_file_size,
                                         export_options=self._export_options)
            self._own_record, self._first_step = True, True

    def _close(self):
        if self._record is not None:
            self._record.close()
            self._record = None

    # ---- hooks ---------------------------------------------------------------------------
    def begin(self, run_context):
        cb = run_context.original_args()
        if cb.mode not in ("train", "eval"):
            raise ValueError(f"For 'SummaryCollector', only 'train' and 'eval' runs are "
                             f"supported, but got {cb.mode!r}")
        found = [c for c in cb.get("list_callback", []) if isinstance(c, SummaryCollector)]
        if len(found) > 1:
            raise ValueError("There are more than one SummaryCollector instance in callback "
                             "list, but expected only one SummaryCollector instance.")
        if cb.mode == "train":
            self._open()
            self._record.set_mode("train")

    def step_end(self, run_context):
        cb = run_context.original_args()
        if cb.mode == "train" and self._record is not None:
            self._collect(cb)

    def epoch_end(self, run_context):
        cb = run_context.original_args()
        if cb.mode == "train" and self._record is not None:
            self._collect(cb)
            self._record.flush()

    def end(self, run_context):
        if self._own_record:
            self._close()

    # ---- collection ----------------------------------------------------------------------
    def _collect(self, cb):
        step = cb.cur_step_num
        if self._first_step:
            self._tensor_range = self._tensor_steps(cb.epoch_num * cb.batch_num)
            self._collect_at(cb, None)
            self._first_step = False
            self._record.flush()
        elif step % self._collect_freq == 0 and step in self._tensor_range:
            self._collect_at(cb, None)
        elif step in self._tensor_range:
            self._collect_at(cb, lambda plugin: plugin == "tensor")
        elif step % self._collect_freq == 0:
            self._collect_at(cb, lambda plugin: plugin != "tensor")

    def _tensor_steps(self, total):
        if self._collect_tensor_freq is not None:
            return range(0, total + 1, self._collect_tensor_freq)
        if len(range(0, total + 1, self._collect_freq)) > 20:
            freq = total // 19
            return range(0, total + 1, freq)[:20] if freq > 1 else range(0, total + 1)[:21]
        return range(0, total + 1, self._collect_freq)

    def _collect_at(self, cb, plugin_filter):
        self._collect_input(cb)
        self._collect_loss(cb)
        self._collect_histograms(cb)
        self._record.record(cb.cur_step_num, plugin_filter=plugin_filter)

    def _collect_input(self, cb):
        if not self._specified.get("collect_input_data"):
            return
        data = cb.get("train_dataset_element")
        if isinstance(data, (list, tuple)) and data:
            data = data[0]
        try:
            self._record.add_value("image", "input_data/auto", data)
        except (TypeError, ValueError):
            warnings.warn("SummaryCollector: the input data of the network is no image batch "
                          "(a 4-d Tensor), so it is not collected", stacklevel=4)
            self._specified["collect_input_data"] = False

    def _collect_loss(self, cb):
        if not self._specified.get("collect_metric"):
            return
        out = cb.get("net_outputs")
        if isinstance(out, (list, tuple)) and out:
            out = out[0]
        if not isinstance(out, (int, float, Tensor)) or isinstance(out, bool):
            warnings.warn(f"SummaryCollector: the network's output ({type(out).__name__}) holds "
                          f"no loss, so the loss is not collected", stacklevel=4)
            self._specified["collect_metric"] = False
            return
        value = out.asnumpy() if isinstance(out, Tensor) else np.asarray(out)
        self._record.add_value("scalar", "loss/auto", Tensor(np.mean(value)))

    def _collect_histograms(self, cb):
        if "histogram_regular" not in self._specified:
            return
        optimizer = self._find_optimizer(cb)
        if optimizer is None:
            return
        regular = self._specified["histogram_regular"]
        params = list(optimizer.parameters)
        chosen = [p for p in params if re.match(regular, p.name)] if regular is not None \
            else params[:5]
        for p in chosen:
            self._record.add_value("histogram", f"{p.name}/auto", Tensor(p.asnumpy()))

    def _find_optimizer(self, cb):
        if self._optimizer is None:
            from ..nn.optim.optimizer import Optimizer
            opt = cb.get("optimizer")
            if not isinstance(opt, Optimizer):
                network = cb.get("train_network")
                cells = [c for _, c in network.cells_and_names()] if network is not None else []
                opt = next((c for c in cells if isinstance(c, Optimizer)), None)
            if opt is None:
                warnings.warn("SummaryCollector: no optimizer found, so no parameter "
                              "histograms are collected", stacklevel=5)
            self._optimizer = opt if opt is not None else False
        return self._optimizer or None


def _check_lineage(data):
    if data is None:
        return
    if not isinstance(data, dict):
        raise TypeError(f"For 'SummaryCollector', 'custom_lineage_data' must be a dict or None, "
                        f"but got {type(data).__name__}")
    for key, value in data.items():
        if not isinstance(key, str) or isinstance(value, bool) \
                or not isinstance(value, (int, str, float)):
            raise TypeError(f"For 'SummaryCollector', 'custom_lineage_data' must map str keys to "
                            f"int, str or float values, but got {key!r}: {value!r}")
