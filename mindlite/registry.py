"""MindSpore Lite's `mindspore::registry` extension points under one name, for code ported
from a Lite converter/runtime plugin:

    REG_PASS(name, Pass)                   register_pass(name, pass_obj)
    REG_SCHEDULED_PASS(position, names)    register_scheduled_passes(position, names)
    PassBase, PassPosition                 PassBase (override run), PassPosition.POSITION_*
    REGISTER_KERNEL / REGISTER_CUSTOM_KERNEL         register_kernel(..., custom=...)
    REGISTER_KERNEL_INTERFACE                        register_kernel_interface

The passes live in mindlite/jit/passes/ (docs/graph_passes.md, "Passes"), the kernels in
mindlite/kernels/registry.py (docs/custom_ops.md). Importing this module imports the graph
pass package; `import mindlite` does not import it.
"""
from .jit.passes import (PassBase, PassPosition, register_pass,  # noqa: F401
                         register_scheduled_passes, registered_passes, scheduled_passes,
                         unregister_pass)
from .kernels.registry import (Kernel, register_kernel, register_kernel_interface,  # noqa: F401
                               unregister_kernel)
