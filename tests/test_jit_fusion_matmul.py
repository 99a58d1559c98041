"""MatMul+BiasAdd(+ReLU) fusion (mindlite/jit/passes/fuse_matmul.py, FusedMatMulBiasAdd), the
fused primitives' completeness (infer, kernels, bprop) and gradients (finite differences in
float64, value_and_grad through a compiled network), FusedElemwise's other kernels (numba,
numpy) against eager, and bad arguments to the primitives and to _C.fused_elemwise."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import _C, nn, ops
from mindlite.ir import lint
from mindlite.kernels import registry
from mindlite.ops.operations.fused_ops import FusedElemwise, FusedMatMulBiasAdd
from mindlite.ops.primitive import Primitive
from mindlite.pynative.grad import BPROPS
from test_jit_fusion import names, no_fusion, t


class _MLP(nn.Cell):
    def __init__(self, act="relu"):
        super().__init__()
        self.l1 = nn.Dense(8, 16, activation=act)
        self.l2 = nn.Dense(16, 4)

    def construct(self, x):
        return self.l2(self.l1(x))


def test_dense_layers_become_fused_matmul_nodes():
    net, x = _MLP(), t((5, 8))
    with no_fusion():
        before = names(ms.jit(type(net).construct).graph(net, x))
    assert before["MatMul"] == 2 and before["BiasAdd"] == 2 and before["ReLU"] == 1
    jf = ms.jit(type(net).construct)
    graph = jf.graph(net, x)
    lint(graph)
    assert names(graph) == {"FusedMatMulBiasAdd": 2}
    acts = [n.inputs[0].value.attrs["activation"] for n in graph.order]
    assert acts == ["relu", "none"]
    assert all(n.inputs[0].value.attrs["transpose_b"] for n in graph.order)   # Dense's x W^T
    np.testing.assert_array_equal(jf(net, x).asnumpy(), net(x).asnumpy())


def test_matmul_with_another_user_is_not_fused():
    def fn(x, w, b):
        y = ops.matmul(x, w)
        return ops.bias_add(y, b), y * 2.0
    x, w, b = t((4, 3)), t((3, 5), seed=1), t((5,), seed=2)
    graph = ms.jit(fn).graph(x, w, b)
    assert "FusedMatMulBiasAdd" not in names(graph) and names(graph)["MatMul"] == 1
    for got, want in zip(ms.jit(fn)(x, w, b), fn(x, w, b)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("act", ["none", "relu"])
def test_fused_matmul_gradient_matches_finite_differences(ta, tb, act):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4) if ta else (4, 3))
    b = rng.standard_normal((5, 3) if tb else (3, 5))
    c = rng.standard_normal(5) * 0.3
    prim = FusedMatMulBiasAdd(ta, tb, act)
    w = rng.standard_normal((4, 5))

    def loss(a, b, c):
        return (prim(a, b, c) * ms.Tensor(w)).sum()
    grads = ms.grad(loss, grad_position=(0, 1, 2))(*(ms.Tensor(v) for v in (a, b, c)))
    for k, (v, g) in enumerate(zip((a, b, c), grads)):
        num = np.zeros_like(v)
        for idx in np.ndindex(v.shape):
            hi, lo = [x.copy() for x in (a, b, c)], [x.copy() for x in (a, b, c)]
            hi[k][idx] += 1e-6
            lo[k][idx] -= 1e-6
            num[idx] = (float(loss(*map(ms.Tensor, hi)).asnumpy())
                        - float(loss(*map(ms.Tensor, lo)).asnumpy())) / 2e-6
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-6, atol=1e-7)


def test_value_and_grad_through_a_compiled_network_equals_eager():
    net, x = _MLP(), t((6, 8))
    label = t((6, 4), seed=5)
    params = net.trainable_params()

    def loss_fn(x):
        return ((net(x) - label) ** 2).mean()
    eager_loss, eager_grads = ms.value_and_grad(loss_fn, None, params)(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_loss, graph_grads = ms.value_and_grad(loss_fn, None, params)(x)
        assert "FusedMatMulBiasAdd" in names(ms.jit(type(net).construct).graph(net, x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph_loss.asnumpy(), eager_loss.asnumpy(), rtol=1e-6)
    for g, e in zip(graph_grads, eager_grads):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_fused_elemwise_gradient_equals_the_unfused_chain():
    prog = (("Mul", (0, ("c", 2.0)), None), ("Sub", (("t", 0), 1), None),
            ("Sigmoid", (("t", 1),), None), ("Mul", (("t", 2), ("t", 1)), None),
            ("Maximum", (("t", 3), 1), None))
    fused = FusedElemwise(prog, 2)

    def unfused(x, y):
        a = x * 2.0 - y
        return ops.maximum(ops.sigmoid(a) * a, y)
    x, y = t((3, 4), np.float64), t((4,), np.float64, seed=1)
    np.testing.assert_array_equal(fused(x, y).asnumpy(), unfused(x, y).asnumpy())
    got = ms.grad(lambda x, y: fused(x, y).sum(), grad_position=(0, 1))(x, y)
    want = ms.grad(lambda x, y: unfused(x, y).sum(), grad_position=(0, 1))(x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-12)


def test_fused_primitives_are_complete():
    for cls in (FusedElemwise, FusedMatMulBiasAdd):
        assert cls.infer is not Primitive.infer and cls in BPROPS
        assert {"numpy", "cpp"} <= {k.provider for k in registry.kernels_for(cls.__name__)}
    assert "numba" in {k.provider for k in registry.kernels_for("FusedElemwise")}


ARITH = (("Mul", (0, 1), None), ("Add", (("t", 0), ("c", 1.5)), None),
         ("Maximum", (("t", 1), 0), None), ("ReLU", (("t", 2),), None),
         ("Cast", (("t", 3),), "float64"), ("Neg", (("t", 4),), None))
TRANSC = (("Exp", (0,), None), ("Tanh", (("t", 0),), None), ("Sigmoid", (1,), None),
          ("Mul", (("t", 1), ("t", 2)), None), ("Log", (("t", 3),), None),
          ("Rsqrt", (("t", 3),), None), ("Sub", (("t", 4), ("t", 5)), None))


@pytest.mark.parametrize("provider", ["numba", "numpy", "cpp"])
def test_every_kernel_equals_eager(provider):
    x = ms.Tensor(np.array([[0.5, -0.0, np.nan, np.inf], [-np.inf, 3.0, -2.0, 1e-3]],
                           np.float32))
    y = ms.Tensor(np.array([0.0, -1.0, 2.0, np.nan], np.float32))
    for prog, exact in ((ARITH, True), (TRANSC, False)):
        want = FusedElemwise(prog, 2)(x, y).asnumpy()            # default: the cpp kernel
        steps = []                                               # eager, op by op
        for name, refs, extra in prog:
            args = [(x, y)[r] if type(r) is int else steps[r[1]] if r[0] == "t" else r[1]
                    for r in refs]
            op = getattr(ops.operations, name)()
            steps.append(op(*args, getattr(ms, extra)) if extra else op(*args))
        np.testing.assert_array_equal(want, steps[-1].asnumpy())
        prim = FusedElemwise(prog, 2).add_prim_attr("kernel_provider", provider)
        got = prim(x, y).asnumpy()
        if exact:
            np.testing.assert_array_equal(got, want)
        else:   # libm / numpy transcendental functions: within a few ulp of the C++ loops
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30, equal_nan=True)


def test_bad_programs_and_inputs_raise_at_the_call():
    with pytest.raises(ValueError, match="FusedElemwise.*step 0"):
        FusedElemwise((("Softmax", (0,), None),), 1)
    with pytest.raises(ValueError, match="FusedElemwise.*ref"):
        FusedElemwise((("Neg", (("t", 0),), None),), 1)
    with pytest.raises(TypeError, match="FusedElemwise.*expected 2 inputs"):
        FusedElemwise((("Add", (0, 1), None),), 2)(t((2,)))
    with pytest.raises(TypeError, match="FusedElemwise.*float32/float64"):
        FusedElemwise((("Neg", (0,), None),), 1)(ms.Tensor(np.arange(3, dtype=np.int32)))
    with pytest.raises(ValueError, match="FusedMatMulBiasAdd.*bias"):
        FusedMatMulBiasAdd()(t((2, 3)), t((3, 4)), t((3,)))
    with pytest.raises(ValueError, match="activation"):
        FusedMatMulBiasAdd(False, False, "gelu")


EXP = (("Exp", (0,), None),)


def test_c_entry_checks_every_argument():
    x = np.linspace(-1, 1, 8).astype(np.float32)
    out = np.empty(8, np.float32)
    call = _C.fused_elemwise_call
    call(x, out, EXP, ("float32",))
    ref = np.empty_like(x)
    _C.UNARY_KERNELS["Exp"](x, ref)
    np.testing.assert_array_equal(out, ref)
    bad = [((("Softmax", (0,), None),), "unknown op"), ((("Exp", (1,), None),), "missing input"),
           ((("Exp", (("t", 0),), None),), "later step"), ((("Exp", (("q", 0),), None),), "ref"),
           ((("Add", (0,), None),), "unknown op"), ((), "tuple of 1..64")]
    for prog, msg in bad:
        with pytest.raises(ValueError, match=f"fused_elemwise_call.*{msg}"):
            call(x, out, prog, ("float32",) * len(prog))
    with pytest.raises(ValueError, match="dtype names|'float32' or 'float64'"):
        call(x, out, EXP, ("int32",))
    with pytest.raises(ValueError, match="step 0"):           # a float64 step on float32 x
        call(x, np.empty(8), EXP, ("float64",))
    with pytest.raises(TypeError, match="last step's dtype"):
        call(x, np.empty(8), (("Exp", (0,), None),), ("float32",))
    with pytest.raises(TypeError, match="float32 or float64"):
        call(np.ones(8, np.int32), out, EXP, ("float32",))
    with pytest.raises(TypeError, match="expected"):
        call(x, out)
    with pytest.raises(ValueError):                          # not broadcastable to out
        call(np.ones(3, np.float32), out, EXP, ("float32",))
    assert np.array_equal(out, ref)                          # failed calls wrote nothing


SQ_ADD_RELU = (("Square", (0,), None), ("Add", (("t", 0), ("c", 1.0)), None),
               ("ReLU", (("t", 1),), None))


def test_c_kernel_reads_an_input_that_is_its_output():
    x = np.linspace(-2, 2, 5000).astype(np.float32)
    want = np.maximum(x * x + np.float32(1), 0)
    _C.fused_elemwise_call(x, x, SQ_ADD_RELU, ("float32",) * 3)     # out is x itself
    np.testing.assert_array_equal(x, want)
    y = np.linspace(-2, 2, 5001).astype(np.float32)
    want = np.maximum(y[:-1] * y[:-1] + np.float32(1), 0)
    _C.fused_elemwise_call(y[:-1], y[1:], SQ_ADD_RELU, ("float32",) * 3)   # shifted overlap
    np.testing.assert_array_equal(y[1:], want)


def test_kernel_caches_are_bounded(monkeypatch):
    x, out = np.ones(4), np.empty(4)
    for k in range(300):
        _C.fused_elemwise_call(x, out, (("Add", (0, ("c", float(k))), None),), ("float64",))
        assert out[0] == 1 + k
    assert 0 < _C.fused_program_cache_size() <= 256
    from mindlite.kernels.cpu import _fused_jit
    monkeypatch.setattr(_fused_jit, "CACHE_SIZE", 2)
    for k in range(3):
        _fused_jit.launch([x], out, (("Mul", (0, ("c", float(k))), None),), ("float64",))
        assert out[0] == k
    assert len(_fused_jit._CACHE) <= 2


@pytest.mark.parametrize("shape", [(3, 5, 4), (40, 48, 36)])      # C++ loop / BLAS sizes
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_matmul_kernels_equal_eager_on_edge_values(shape, dtype):
    m, k, n = shape
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(dtype)
    a[0, 0] = np.nan
    b = rng.standard_normal((n, k)).astype(dtype)
    b[1, :] = 0.0
    bias = rng.standard_normal(n).astype(dtype)
    bias[1], bias[2] = -0.0, np.inf
    x, w, c = ms.Tensor(a), ms.Tensor(b), ms.Tensor(bias)
    for act in ("none", "relu"):
        y = ops.bias_add(ops.MatMul(transpose_b=True)(x, w), c)
        want = (ops.relu(y) if act == "relu" else y).asnumpy()
        for provider in (None, "numpy"):
            prim = FusedMatMulBiasAdd(False, True, act)
            if provider:
                prim.add_prim_attr("kernel_provider", provider)
            got = prim(x, w, c).asnumpy()
            np.testing.assert_array_equal(got, want)
            assert np.array_equal(np.signbit(got), np.signbit(want))


def test_c_matmul_bias_act_checks_its_arguments():
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    bias, out = np.ones(4, np.float32), np.empty((2, 4), np.float32)
    _C.matmul_bias_act(a, b, bias, out, False, False, True)
    np.testing.assert_array_equal(out, np.full((2, 4), 4, np.float32))
    with pytest.raises(ValueError, match="matmul_bias_act.*shapes"):
        _C.matmul_bias_act(a, b, np.ones(3, np.float32), out, False, False, True)
    with pytest.raises(TypeError, match="matmul_bias_act.*'b'"):
        _C.matmul_bias_act(a, b.astype(np.float64), bias, out, False, False, True)
    with pytest.raises(TypeError, match="relu"):
        _C.matmul_bias_act(a, b, bias, out, False, False, 1)
    with pytest.raises(TypeError, match="expected 7"):
        _C.matmul_bias_act(a, b, bias, out)
