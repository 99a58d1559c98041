"""mindlite.boost: the part of mindspore.boost that training code builds on — gradient
accumulation (grad_accumulation.py: GradientAccumulation and its per-parameter ops). The
rest of MindSpore's boost (AutoBoost, the less-BN / grad-freeze / dim-reduce / adasum
algorithms) is not provided.
"""
from .grad_accumulation import (GradientAccumulation, gradient_accumulation_op,  # noqa: F401
                                gradient_clear_op)

__all__ = ["GradientAccumulation", "gradient_accumulation_op", "gradient_clear_op"]
