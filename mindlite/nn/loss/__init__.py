"""nn.loss: MindSpore's `mindspore.nn.loss` path (`from mindspore.nn.loss import ...`): the
names of this folder's modules, loaded at the first one used, as in mindlite.nn (the module
list is nn's own, so one list names them)."""
from .. import _LAZY as _NN
from ..._lazy import lazy_exports as _lazy_exports

_LAZY = _lazy_exports(globals(), tuple(m.split(".", 1)[1] for m in _NN.modules
                                       if m.startswith("loss.")))
