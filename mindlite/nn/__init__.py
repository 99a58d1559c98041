"""mindlite.nn: Cells, layers, losses, optimizers and training wrappers (as mindspore.nn)."""
from .cell import Cell, SequentialCell, CellList  # noqa: F401
from .layer.basic import *  # noqa: F401,F403
from .layer.activation import *  # noqa: F401,F403
from .layer.conv import *  # noqa: F401,F403
from .layer.pooling import *  # noqa: F401,F403
from .layer.normalization import *  # noqa: F401,F403
from .layer.embedding import *  # noqa: F401,F403
from .loss.loss import *  # noqa: F401,F403
from .optim.optimizer import *  # noqa: F401,F403
from .optim.sgd import *  # noqa: F401,F403
from .optim.momentum import *  # noqa: F401,F403
from .optim.adam import *  # noqa: F401,F403
from .learning_rate_schedule import *  # noqa: F401,F403
from .wrap.cell_wrapper import *  # noqa: F401,F403
