"""Automatic mixed precision (MindSpore's mindspore.amp): auto_mixed_precision with levels
O0-O3, the loss-scale managers used by Model / TrainOneStepWithLossScaleCell, and the
functional loss scalers (StaticLossScaler, DynamicLossScaler, all_finite; those two families
live in amp_loss_scale.py).

Levels (parameters always stay float32; see nn/cell_mixed.py for how a cell computes in a
lower precision):
- O0: the network unchanged;
- O1: the white-list cells (dense and convolution layers) compute in `dtype`, each output cast
  back to float32;
- O2: the whole network in `dtype` except the black-list cells (batch/layer/group/instance
  norms), which stay float32; the network's output cast to float32;
- O3: the whole network in `dtype`, the output cast to float32.
O2 and O3 return the network wrapped in a cell that casts its output (the network itself is
marked in place, as MindSpore's); O1 marks the cells in place and returns the network.
`custom_mixed_precision` does O1 with a given white list or O2 with a given black list.

`build_train_network(network, optimizer, loss_fn, level, ...)` is what train.Model builds
(MindSpore's amp.build_train_network, its non-rewrite path): O2 and O3 run the network in
float16 through `to_float` (its output stays float16; O2 keeps the black-list cells in float32,
their outputs cast to float16) and wrap the loss so it sees float32 outputs and labels; O1
marks the white list; then a TrainOneStepWithLossScaleCell when the loss-scale manager has an
update cell (O2's default: DynamicLossScaleManager), else a TrainOneStepCell whose
sensitivity is the manager's fixed scale. MindSpore's CPU build refuses update cells (its
overflow check needs an NPU status op); mindlite checks the gradients' values, so they work.
"""
import warnings


from .common.api import GRAPH
from . import nn
from .common import dtype as mstype
from .nn.cell_mixed import mark
from .amp_loss_scale import (DynamicLossScaleManager, DynamicLossScaler,  # noqa: F401
                             FixedLossScaleManager, LossScaleManager, LossScaler,
                             StaticLossScaler, all_finite)

__all__ = ["auto_mixed_precision", "build_train_network", "custom_mixed_precision",
           "DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager", "LossScaler",
           "StaticLossScaler", "DynamicLossScaler", "all_finite", "get_white_list",
           "get_black_list"]


def get_white_list():
    """Cells computed in the low precision under O1 (MindSpore 2.10's cells; its list also names
    primitives, which mindlite's O1 does not rewrite)."""
    return [nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose, nn.Dense,
            nn.LSTMCell, nn.RNNCell, nn.GRUCell]


def get_black_list():
    """Cells kept in float32 under O2 (MindSpore 2.10's list, less the BatchNorm3d mindlite
    lacks)."""
    return [nn.BatchNorm1d, nn.BatchNorm2d, nn.LayerNorm]


class _OutputTo32(nn.Cell):
    """The network with its floating-point outputs cast to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        from .nn.cell_mixed import _cast
        return _cast(self._backbone(*args, **kwargs), mstype.float32)


def _check_dtype(api, dtype):
    dtype = mstype.to_type(dtype)
    if dtype not in (mstype.float16, getattr(mstype, "bfloat16", mstype.float16)):
        raise ValueError(f"For '{api}', 'dtype' must be float16 or bfloat16, but got {dtype}")
    return dtype


def _mark_white(network, white, dtype):
    for _, cell in network.cells_and_names():
        if isinstance(cell, white):
            mark(cell, dtype, output_dtype=mstype.float32)
    return network


def _mark_black(network, black, dtype):
    mark(network, dtype)
    for _, cell in network.cells_and_names():
        if isinstance(cell, black):
            mark(cell, mstype.float32, recursive=False)
    return network


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    if not isinstance(network, nn.Cell):
        raise TypeError(f"For 'auto_mixed_precision', 'network' must be a Cell, but got "
                        f"{type(network).__name__}")
    if amp_level not in ("O0", "O1", "O2", "O3", "auto"):
        raise ValueError(f"For 'auto_mixed_precision', 'amp_level' must be one of O0, O1, O2, "
                         f"O3 or auto, but got {amp_level!r}")
    dtype = _check_dtype("auto_mixed_precision", dtype)
    if amp_level == "O0":
        return network
    object.__setattr__(network, "_amp_level", amp_level)
    if amp_level in ("O1", "auto"):
        return eager_above_mixed_cells(_mark_white(network, tuple(get_white_list()), dtype))
    black = tuple(get_black_list()) if amp_level == "O2" else ()
    return eager_above_mixed_cells(_OutputTo32(_mark_black(network, black, dtype)))


def _check_cell_list(api, name, cells):
    if not isinstance(cells, list) or not all(isinstance(c, type) and issubclass(c, nn.Cell)
                                              for c in cells):
        raise TypeError(f"For '{api}', '{name}' must be a list of Cell classes, but got "
                        f"{cells!r}")
    return tuple(cells)


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """O1 with `white_list` (those cells in `dtype`, outputs cast back to float32) or O2 with
    `black_list` (everything else in `dtype`, the output cast to float32); exactly one."""
    api = "custom_mixed_precision"
    if not isinstance(network, nn.Cell):
        raise TypeError(f"For '{api}', 'network' must be a Cell, but got "
                        f"{type(network).__name__}")
    if (white_list is None) == (black_list is None):
        raise ValueError(f"For '{api}', exactly one of 'white_list' and 'black_list' must be "
                         f"given")
    dtype = _check_dtype(api, dtype)
    if white_list is not None:
        network = _mark_white(network, _check_cell_list(api, "white_list", white_list), dtype)
        return eager_above_mixed_cells(network)
    network = _mark_black(network, _check_cell_list(api, "black_list", black_list), dtype)
    return eager_above_mixed_cells(_OutputTo32(network))


_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_KWARGS = ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager")


def _level_config(level):
    """MindSpore's per-level defaults: (keep_batchnorm_fp32, cast_model_type, manager)."""
    half = level in ("O2", "O3")
    return {"keep_batchnorm_fp32": level == "O2",
            "cast_model_type": mstype.float16 if half else mstype.float32,
            "loss_scale_manager": DynamicLossScaleManager() if level == "O2" else None}


def check_levels(api, level, boost_level):
    """Validate amp_level / boost_level as MindSpore; boost (less BatchNorm, gradient freezing,
    AdaSum) is not in mindlite: O1/O2 warn and train without it."""
    if not isinstance(level, str):
        raise TypeError(f"For '{api}', the 'level' must be a string in {list(_LEVELS)}, but got "
                        f"type {type(level).__name__}")
    if level not in _LEVELS:
        raise ValueError(f"For '{api}', the 'level' must be one of {list(_LEVELS)}, but got "
                         f"{level!r}")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"For '{api}', the 'boost_level' must be one of ['O0', 'O1', 'O2'], "
                         f"but got {boost_level!r}")
    if boost_level != "O0":
        warnings.warn(f"For '{api}', boost_level={boost_level!r}: mindlite has no boost mode "
                      f"(mindspore.boost); training runs without it", stacklevel=3)


def check_amp_kwargs(api, kwargs):
    for key, value in kwargs.items():
        if key not in _KWARGS:
            raise ValueError(f"For '{api}', unsupported argument {key!r}; expected one of "
                             f"{list(_KWARGS)}")
        if key == "cast_model_type" and value not in (mstype.float16, mstype.float32):
            raise TypeError(f"For '{api}', 'cast_model_type' must be float16 or float32, but got "
                            f"{value!r}")
        if key == "keep_batchnorm_fp32" and not isinstance(value, bool):
            raise TypeError(f"For '{api}', 'keep_batchnorm_fp32' must be a bool, but got "
                            f"{value!r}")
        if key == "loss_scale_manager" and value is not None \
                and not isinstance(value, LossScaleManager):
            raise TypeError(f"For '{api}', 'loss_scale_manager' must be a LossScaleManager or "
                            f"None, but got {type(value).__name__}")


def _keep_batchnorm_fp32(network):
    """The black-list cells compute in float32 and hand float16 on (MindSpore wraps each in
    _OutputTo16(cell.to_float(float32)); here the cell carries both dtypes)."""
    black = tuple(get_black_list())
    for _, cell in network.cells_and_names():
        if cell is not network and isinstance(cell, black):
            mark(cell, mstype.float32, output_dtype=mstype.float16)


def prepare_network(network, config, level):
    """MindSpore's _auto_mixed_precision_process (its default, non-rewrite path)."""
    if config["cast_model_type"] == mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_batchnorm_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(mstype.float16)
    elif not (config["cast_model_type"] == mstype.float32 and level in ("O2", "O3")):
        network = auto_mixed_precision(network, level)
    return network


class _AmpWithLossCell(nn.Cell):
    """loss_fn(float32(backbone(data)), float32(label)): the loss of a float16 network."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone, self._loss_fn = backbone, loss_fn

    def construct(self, data, label):
        from .nn.cell_mixed import _cast
        out = _cast(self._backbone(data), mstype.float32)
        return self._loss_fn(out, _cast(label, mstype.float32))


def _marked(cell):
    return cell.__dict__.get("_mp_dtype") is not None or "_mp_output" in cell.__dict__


def eager_above_mixed_cells(root):
    """Under GRAPH_MODE, the cells holding a mixed-precision cell run eagerly (as the marked
    cells themselves do): compiling them would inline the marked cells' construct without
    their casts, in float32. Cells with no mixed-precision cell below still compile."""
    for _, cell in root.cells_and_names():
        if not _marked(cell) and any(_marked(c) for _, c in cell.cells_and_names()):
            GRAPH.run_eagerly(cell)          # jit/cell_graph.py, through its slot (common/api.py)
    return root


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The training cell for `network` (with `loss_fn`) at amp `level` (see the module
    docstring); kwargs cast_model_type, keep_batchnorm_fp32, loss_scale_manager override the
    level's defaults."""
    from .nn.optim.optimizer import Optimizer
    api = "build_train_network"
    if not isinstance(network, nn.Cell):
        raise TypeError(f"For '{api}', 'network' must be a Cell, but got "
                        f"{type(network).__name__}")
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"For '{api}', 'optimizer' must be an nn.Optimizer, but got "
                        f"{type(optimizer).__name__}")
    check_levels(api, level, boost_level)
    check_amp_kwargs(api, kwargs)
    config = dict(_level_config(level), **kwargs)
    network = prepare_network(network, config, level)
    if loss_fn is not None:
        if not isinstance(loss_fn, nn.Cell):
            raise TypeError(f"For '{api}', 'loss_fn' must be a Cell, but got "
                            f"{type(loss_fn).__name__}")
        half = config["cast_model_type"] == mstype.float16 \
            or getattr(network, "_amp_level", None) in ("O2", "O3", "auto")
        network = (_AmpWithLossCell if half else nn.WithLossCell)(network, loss_fn)
    manager, loss_scale = config["loss_scale_manager"], None
    if manager is not None:
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return eager_above_mixed_cells(nn.TrainOneStepWithLossScaleCell(
                network, optimizer, scale_sense=update_cell).set_train())
        loss_scale = manager.get_loss_scale()
    return eager_above_mixed_cells(nn.TrainOneStepCell(network, optimizer,
                                                       loss_scale).set_train())
