"""mindlite.ops: primitives (ops.ReLU) and functional ops (ops.relu), as mindspore.ops.

The primitive families (operations/*.py) and functional modules (function/*.py) are
imported at the first `ops.<name>` the namespace lacks, all at once, with the names
the star-imports of operations and functional bound (mindlite/_lazy.py): `import
mindlite` stays light and, after that first access, `ops.X` is a plain attribute.
"""
from ..ir.primitive import Primitive, PrimitiveWithInfer, prim_attr_register  # noqa: F401
from . import operations, functional  # noqa: F401
from .._lazy import lazy_exports as _lazy_exports

_LAZY = _lazy_exports(globals(), (), reexport=("operations", "functional"))
