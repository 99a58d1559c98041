"""Graph passes (issue 11 §4): the named pipeline every compile runs (pipeline.py), the
built-in passes (inline, constant_folding, algebraic_simplify, cse, dead_node_elimination;
one module each) and the user pass API of MindSpore Lite's converter extension
(registry.py: register_pass / register_scheduled_passes, PassBase, PassPosition).

    from mindlite.jit.passes import register_pass, register_scheduled_passes

    def my_pass(graph, manager):          # -> True when it changed the graph
        ...
    register_pass("my_pass", my_pass)
    register_scheduled_passes("before_fusion", ["my_pass"])
"""
from .pipeline import BUILTIN, PIPELINE, run_pipeline, stage_names  # noqa: F401
from .registry import (AFTER_FUSION, BEFORE_FUSION, PassBase, PassPosition,  # noqa: F401
                       register_pass, register_scheduled_passes, registered_passes,
                       scheduled_passes, unregister_pass)
