"""mindlite.nn: Cells, layers, losses, optimizers and training wrappers (as mindspore.nn).

Cell, SequentialCell and CellList load with the package; the layer, loss, optimizer,
schedule and wrapper modules load at the first `nn.<name>` the namespace lacks, all at
once, with the names their star-imports bound (mindlite/_lazy.py): `import mindlite`
(whose train.Model needs nn.cell) does not import every layer.
"""
from .cell import Cell, SequentialCell, CellList  # noqa: F401
from .._lazy import lazy_exports as _lazy_exports

_LAZY = _lazy_exports(globals(), (
    "layer.basic", "layer.activation", "layer.conv", "layer.conv_nd", "layer.conv3d_transpose",
    "layer.pooling", "layer.pool_nd", "layer.resize_layers", "layer.normalization",
    "layer.group_norm", "layer.rnn", "layer.transformer", "layer.embedding", "loss.loss",
    "loss.functional_losses", "optim.optimizer", "optim.sgd", "optim.momentum", "optim.adam",
    "optim.adaptive", "optim.composed", "learning_rate_schedule", "wrap.cell_wrapper",
    "wrap.loss_scale", "wrap.grad_reducer", "cell_dict", "graph_cell", "dynamic_lr",
    "layer.linear", "layer.activation_gates", "layer.batch_norm_sync", "metrics"))
