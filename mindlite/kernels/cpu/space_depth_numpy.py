"""numpy kernels of space_depth_ops: SpaceToDepth / DepthToSpace as reshape + transpose."""
import numpy as np

from ..registry import register_kernel


@register_kernel("SpaceToDepth", provider="numpy")
def space_to_depth_numpy(x, out, block):
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // block, block, w // block, block)        # n c h' i w' j
    np.copyto(out, t.transpose(0, 3, 5, 1, 2, 4).reshape(out.shape))  # n i j c h' w'


@register_kernel("DepthToSpace", provider="numpy")
def depth_to_space_numpy(x, out, block):
    n, c, h, w = x.shape
    t = x.reshape(n, block, block, c // (block * block), h, w)        # n i j c h w
    np.copyto(out, t.transpose(0, 3, 4, 1, 5, 2).reshape(out.shape))  # n c h i w j
