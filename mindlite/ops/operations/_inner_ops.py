"""MindSpore's ops.operations._inner_ops module path: primitives MindSpore keeps out of its
public ops namespace and code imports from here (Cummin, TensorCopySlices). The primitives
live in their family modules; this module only names them where MindSpore's code looks."""
from .copy_slices_ops import TensorCopySlices
from .sort_ops import Cummin

__all__ = ["Cummin", "TensorCopySlices"]
