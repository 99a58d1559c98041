"""numba kernel of FusedElemwise: one generated loop per expression (_fused_jit.py), compiled
at its first launch and kept in a bounded cache; numba is imported on that first launch."""
from ...common import dtype as mstype
from ..registry import register_kernel


@register_kernel("FusedElemwise", provider="numba", dtypes=(mstype.float32, mstype.float64))
def fused_elemwise_numba(*arrays, program, step_dtypes):
    from . import _fused_jit
    *inputs, out = arrays
    _fused_jit.launch(inputs, out, program, step_dtypes)
