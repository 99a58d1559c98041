"""Unique's gradient (issue 10, defect 5) and the audit of the non-differentiable marks.

Unique had been marked non-differentiable, so gradients through it were silently zero.
MindSpore has a bprop (UniqueGrad): x == y[idx], so dx = dy[idx]. The audit pins the set
of primitives that may carry no gradient, each checked against MindSpore 2.10's bprops.
"""
import importlib
import pkgutil

import numpy as np

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.pynative.grad import NON_DIFFERENTIABLE

from gradcheck import check_grad


def test_unique_gradient_gathers_through_the_inverse_indices():
    x = Tensor(np.array([3.0, 1.0, 3.0, 2.0], np.float32))
    w = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def f(x):
        y, _ = ops.unique(x)              # first appearance: y = [3, 1, 2], idx = [0, 1, 0, 2]
        return (y * w).sum()
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), [1, 2, 1, 3])


def test_unique_gradcheck_distinct_values():
    """Finite differences need distinct values (a perturbed duplicate is a new value)."""
    x = np.array([[0.3, -1.2, 2.5], [0.9, -0.4, 1.7]])
    check_grad(lambda t: ops.exp(ops.Unique()(t)[0]), x)


def test_unique_gradient_is_differentiable_again():
    x = Tensor(np.array([0.5, -1.0, 2.0]))

    def g(t):
        return ms.grad(lambda u: (ops.Unique()(u)[0] ** 3).sum())(t).sum()
    np.testing.assert_allclose(ms.grad(g)(x).asnumpy(), 6 * x.asnumpy())


# Each with the reason it carries no gradient (MindSpore 2.10 gives zeros or has no bprop).
ALLOWED = {
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",      # comparisons
    "LogicalNot", "LogicalAnd", "LogicalOr", "LogicalXor",                    # bool outputs
    "IsNan", "IsInf", "IsFinite", "IsClose",                                  # bool outputs
    "Argmax", "Argmin", "ReduceAll", "ReduceAny",                             # index / bool
    "NonZero", "CountNonZero",                                                # int outputs
    "Shape",                                                                  # shape
    "ZerosLike", "OnesLike",                 # output independent of the values (zeros)
    "Fill", "Zeros", "Ones", "Eye", "Range",  # constant inputs only
    "OneHot",                                # MindSpore: zeros for on_value / off_value
    "Assign", "AssignAdd", "AssignSub",      # MindSpore: zeros for 'value' (state writes)
    "StopGradient",                          # by definition
    "ApplyMomentum", "SGD", "Adam", "AdamWeightDecay",   # MindSpore: no bprop
    "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad", "ApplyAdadelta",  # optimizer
    "ApplyAdaMax", "ApplyFtrl", "ApplyProximalAdagrad",                     # updates: no bprop
    "ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyAdagradV2",
    "ApplyAdamWithAmsgrad", "FusedSparseAdam", "FusedSparseFtrl",
    "ApproximateEqual",                      # bool output
    "Size", "DType",                         # constants (folded)
    "IOU",                                   # MindSpore: zeros
    "BoundingBoxDecode", "NMSWithMask",      # MindSpore: no bprop
    "LRNGrad",                               # MindSpore: no bprop (LRN's second order)
    "CdistGrad",                             # MindSpore: no bprop (Cdist's second order)
    "RNNLayerGrad",                          # MindSpore's LSTMGrad: no bprop (second order)
    "UniformReal", "StandardNormal", "UniformInt", "Bernoulli", "Multinomial",  # samplers
    "RandomCategorical",
    "Barrier",                               # no tensor inputs (a synchronization)
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift",  # int / bool
    "Gcd", "Lcm",                                                                  # only
    "NextAfter", "SignBit", "Heaviside",     # piecewise constant / bits (MindSpore: no bprop)
    "ViewDtype",                             # reinterpreted bits
    "SearchSorted", "Histogram", "Bincount", "UniqueConsecutive",  # int outputs / counts
    "RandomGamma", "RandomPoisson", "RandpermV2",  # samplers (MindSpore: no bprop)
    "Geqrf", "Eig",                          # MindSpore 2.10: no bprop for either
}


def test_only_truly_non_differentiable_primitives_are_marked():
    from mindlite.ops import operations
    for mod in pkgutil.iter_modules(operations.__path__):      # every op family, loaded
        importlib.import_module(f"{operations.__name__}.{mod.name}")
    marked = {c.__name__ for c in NON_DIFFERENTIABLE}
    assert "Unique" not in marked
    assert marked <= ALLOWED, f"marked without a reason: {sorted(marked - ALLOWED)}"
