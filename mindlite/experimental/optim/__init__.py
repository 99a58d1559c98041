"""PyTorch-style optimizers and learning-rate schedulers (MindSpore's
`mindspore.experimental.optim`): `opt = AdamW(net.trainable_params(), lr=1e-3)`, then
`opt(grads)` per step; `param_groups` are dicts with a float32 Parameter "lr" that the
schedulers of `lr_scheduler` change. The update rules are PyTorch's (tests compare them with
torch.optim step by step)."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .adaptive import ASGD, Adadelta, Adagrad, RMSprop, Rprop
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "ASGD", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler"]
