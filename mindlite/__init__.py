"""mindlite: an eager-mode (PyNative) tensor framework for the CPU with MindSpore's API.

`import mindlite` stays light (no numba, scipy, torch or protobuf; see
benchmarks/import_time.py): the primitive families and functional modules load at
the first `ops.<name>` used (mindlite/ops/__init__.py), nn's layers, losses and
optimizers at the first `nn.<name>` (mindlite/nn/__init__.py), numpy.random at the
first random draw. This package itself has no module `__getattr__`: CPython does not
specialize attribute loads from a module that has one, and `ms.ops` / `ms.Tensor`
would then cost ~30 ns more on every call; everything here is bound at import.
"""
from . import _moved  # noqa: F401  (old module paths stay importable: mindlite/_moved.py)
from . import _wiring  # noqa: F401  (who fills the executors' slots: common/api.py)
from .common import dtype  # noqa: F401
from .common.dtype import *  # noqa: F401,F403
from .common.dtype import Type  # noqa: F401
from .common.tensor import Tensor  # noqa: F401
from .common.interop import from_dlpack, to_dlpack  # noqa: F401
from .common.parameter import Parameter, ParameterTuple  # noqa: F401
from .common.sparse_tensor import RowTensor  # noqa: F401
from .common.initializer import initializer  # noqa: F401
from .common import initializer as _initializer_module  # noqa: F401
from .context import (GRAPH_MODE, PYNATIVE_MODE, set_context, get_context,  # noqa: F401
                      set_device, ParallelMode, set_auto_parallel_context,
                      get_auto_parallel_context, reset_auto_parallel_context)
from .random_state import set_seed, get_seed  # noqa: F401
from .random_generator import (Generator, default_generator, get_rng_state,  # noqa: F401
                               initial_seed, manual_seed, seed, set_rng_state)
from .common.tensor_api import (dtype_to_pytype, from_numpy, frombuffer,  # noqa: F401
                                get_py_obj_dtype, is_tensor, pytype_to_dtype, swap_tensors,
                                tensor)
from . import ops  # noqa: F401
from . import nn  # noqa: F401
from . import mint  # noqa: F401  (its modules load at the first mint.<name>)
from . import numpy  # noqa: F401  (mindspore.numpy; its families load at first use)
from .ops.composite import grad, value_and_grad, GradOperation  # noqa: F401
from .jit import jit  # noqa: F401
from .jit.markers import jit_class, lazy_inline, mutable, no_inline, recompute  # noqa: F401
from .install_check import run_check, synchronize  # noqa: F401
from . import dataset, train  # noqa: F401
from . import amp  # noqa: F401
from .train import Model  # noqa: F401
from .train import (DynamicLossScaleManager, FixedLossScaleManager,  # noqa: F401
                    LossScaleManager, SummaryCollector, SummaryRecord, build_train_network)
from .train import (Callback, CheckpointConfig, EarlyStopping, History,  # noqa: F401
                    LambdaCallback, LearningRateScheduler, LossMonitor, ModelCheckpoint,
                    ReduceLROnPlateau, RunContext, TimeMonitor)
from .train import (Accuracy, ConfusionMatrix, F1, Fbeta, Loss, MAE, MSE,  # noqa: F401
                    Metric, Perplexity, Precision, Recall, Top1CategoricalAccuracy,
                    Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc, get_metric_fn,
                    names, rearrange_inputs)
from .train.serialization import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from .train.export_api import export, load  # noqa: F401
from .kernels.registry import (register_kernel, register_kernel_interface,  # noqa: F401
                               registered_kernels, unregister_kernel, Kernel, KernelError)
from .ops.operations.custom_ops import selected_kernel  # noqa: F401
from .backend.session import register_session  # noqa: F401
from . import device  # noqa: F401  (pluggable devices: list_devices, register_device)
from .profiler import Profiler  # noqa: F401  (as `from mindspore import Profiler`)
from .common import api as _common_api

_common_api.jit = jit         # mindspore.common.api's `jit` (the slot in common/api.py)

mstype = dtype
__version__ = "0.1.0"
