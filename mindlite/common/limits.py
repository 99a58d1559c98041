"""Size limits checked before anything is allocated.

An op whose output size comes from an attribute or a constant input (OneHot's depth, Fill /
Zeros / Ones / Eye sizes, Range's length, Tile's multiples, BroadcastTo's shape, the
gradients' size inputs, Conv2D's padding) and a lazily initialised Tensor
(`Tensor(shape=..., init=...)`, `initializer(...)`) check the element count in inference, so
`OneHot(depth=2**31)` is a ValueError at the call instead of a multi-GiB allocation. Integer
attributes of conv and pool ops (kernel size, stride, dilation, padding, channels, group) are
bounded the same way, so a value no C++ kernel could take is a ValueError naming the op and
attribute, never an OverflowError from the conversion.

MAX_OUTPUT_ELEMENTS: 2**31 - 1 elements (8 GiB of float32), the largest count a 32-bit index
can address. A program that really needs larger creation outputs may raise it
(`mindlite.common.limits.MAX_OUTPUT_ELEMENTS = 2**33`); it is read at every check. Shapes
already inferred and cached keep their result.
"""
MAX_OUTPUT_ELEMENTS = 2**31 - 1
MAX_INT_ATTR = 2**31 - 1


def check_output_size(op, what, shape):
    """ValueError naming `op` and `what` when prod(shape) exceeds MAX_OUTPUT_ELEMENTS."""
    n = 1
    for d in shape:
        n *= d
    if n > MAX_OUTPUT_ELEMENTS:
        raise ValueError(f"For '{op}', {what} {list(shape)} has {n} elements, more than the "
                         f"limit of {MAX_OUTPUT_ELEMENTS} (mindlite.common.limits."
                         f"MAX_OUTPUT_ELEMENTS)")
    return tuple(shape)
