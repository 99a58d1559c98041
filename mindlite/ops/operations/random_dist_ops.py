"""Samplers of parametrized distributions (behind ops.random_gamma / ops.gamma,
ops.random_poisson / ops.poisson): RandomGamma draws Gamma(alpha, 1) and RandomPoisson
Poisson(rate) samples of shape `shape + param.shape`, seeded as random_ops' samplers (seed =
seed2 = 0: mindlite's global generator). Not differentiable (MindSpore has no bprop for either).
Kernels: kernels/cpu/random_dist_numpy.py (numpy's Generator.gamma / poisson).
"""
from ...common import dtype as mstype
from ...common.limits import MAX_INT_ATTR
from ...ir.primitive import Primitive, prim_attr_register
from ...ir.rules import non_differentiable
from ..validator import check_dtype, check_int, check_output_size, check_shape_arg, tensor

__all__ = ["RandomGamma", "RandomPoisson"]


class _ParamSampler(Primitive):
    input_names = ("shape", "param")
    const_inputs = (0,)

    def _shape(self, shape, param):
        shape = check_shape_arg(self, "shape", shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"For '{self.name}', 'shape' must be non-negative, but got "
                             f"{list(shape)}")
        out = tuple(shape) + tuple(param.shape)
        check_output_size(self, "the output shape", out)
        return out

    def kernel_params(self, shape, param):
        return {"seed": self.attrs["seed"], "seed2": self.attrs["seed2"]}


class RandomGamma(_ParamSampler):
    """Gamma(alpha, 1) samples of shape shape + alpha.shape, in alpha's float dtype."""

    @prim_attr_register
    def __init__(self, seed=0, seed2=0):
        check_int(self, "seed", seed, 0, MAX_INT_ATTR)
        check_int(self, "seed2", seed2, 0, MAX_INT_ATTR)

    def infer(self, shape, alpha):
        check_dtype(self, "alpha", alpha, (mstype.float16, mstype.float32, mstype.float64))
        return tensor(alpha.dtype, self._shape(shape, alpha))


class RandomPoisson(_ParamSampler):
    """Poisson(rate) samples of shape shape + rate.shape, as `dtype`."""

    @prim_attr_register
    def __init__(self, seed=0, seed2=0, dtype=mstype.int64):
        check_int(self, "seed", seed, 0, MAX_INT_ATTR)
        check_int(self, "seed2", seed2, 0, MAX_INT_ATTR)
        t = mstype.to_type(dtype)
        if t not in (mstype.int32, mstype.int64, mstype.float16, mstype.float32,
                     mstype.float64):
            raise TypeError(f"For '{self.name}', 'dtype' must be int32, int64, float16, "
                            f"float32 or float64, but got {dtype!r}")
        self._out = t

    def infer(self, shape, rate):
        check_dtype(self, "rate", rate, (mstype.float16, mstype.float32, mstype.float64,
                                         mstype.int32, mstype.int64))
        return tensor(self._out, self._shape(shape, rate))


non_differentiable(RandomGamma, RandomPoisson)
