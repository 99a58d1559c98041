"""FusedInvertedResidual (ops/operations/inverted_residual_ops.py): the fused kernel
(_C.inverted_residual_forward) against the three FusedConvAct kernels it replaces, bit for
bit; the Lite runtime's inverted_residual_fusion pass on a converted model."""
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import _C, nn, ops
from mindlite.backend.interpreter import run_graph
from mindlite.ir.manager import FuncGraphManager, lint
from mindlite.jit.passes import fuse_inverted_residual
from mindlite.ops.operations.inverted_residual_ops import FusedInvertedResidual

from gradcheck import check_grad
from lite_models import nhwc, round_trip


def _plane(h, k, s, p, d=1):
    return (h + 2 * p - d * (k - 1) - 1) // s + 1


def _unfused(x, w1, b1, w2, b2, w3, b3, res, stride, dil, pads, acts):
    n, _, h, w = x.shape
    e = w2.shape[0]
    t = x                                   # w1 None: no expansion
    if w1 is not None:
        t = np.empty((n, e, h, w), x.dtype)
        _C.conv_forward_fused(x, w1, b1, None, t, (1, 1), (1, 1), (0, 0, 0, 0), 1, acts[0])
    kh, kw = w2.shape[2:]
    oh = (h + pads[0] + pads[1] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + pads[2] + pads[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    d = np.empty((n, e, oh, ow), x.dtype)
    _C.conv_forward_fused(t, w2, b2, None, d, stride, dil, pads, e, acts[1])
    o = np.empty((n, w3.shape[0], oh, ow), x.dtype)
    _C.conv_forward_fused(d, w3, b3, res, o, (1, 1), (1, 1), (0, 0, 0, 0), 1, acts[2])
    return o


def _operands(rng, dt, n, c, e, o, h, w, k, s, p, residual, biases=(True, True, True),
              specials=False):
    x = rng.standard_normal((n, c, h, w)).astype(dt)
    if specials and x.size >= 4:
        x.reshape(-1)[:4] = [np.nan, np.inf, -0.0, -np.inf]
    ws = [rng.standard_normal(shape).astype(dt) for shape in
          ((e, c, 1, 1), (e, 1, k, k), (o, e, 1, 1))]
    bs = [rng.standard_normal(m).astype(dt) if has else None
          for m, has in zip((e, e, o), biases)]
    oh, ow = _plane(h, k, s, p), _plane(w, k, s, p)
    res = rng.standard_normal((n, o, oh, ow)).astype(dt) if residual else None
    return x, ws[0], bs[0], ws[1], bs[1], ws[2], bs[2], res


def _fused(ops, stride, pads, acts, threads, dil=(1, 1)):
    x, w1, b1, w2, b2, w3, b3, res = ops
    n, _, h, w = x.shape
    kh, kw = w2.shape[2:]
    oh = (h + pads[0] + pads[1] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + pads[2] + pads[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.full((n, w3.shape[0], oh, ow), 7.0, x.dtype)
    _C.set_num_threads(threads)
    try:
        ok = _C.inverted_residual_forward(x, w1, b1, w2, b2, w3, b3, res, out, stride, dil,
                                          pads, acts)
    finally:
        _C.set_num_threads(0)
    return ok, out


def _same_bits(a, b):
    assert a.shape == b.shape
    ints = np.uint32 if a.dtype == np.float32 else np.uint64
    np.testing.assert_array_equal(a.view(ints), b.view(ints))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 40), mult=st.integers(1, 6),
       o=st.integers(1, 40), h=st.integers(1, 40), w=st.integers(9, 60), s=st.sampled_from([1, 2]),
       k=st.sampled_from([3, 5]), residual=st.booleans(), threads=st.sampled_from([1, 2, 3]),
       acts=st.tuples(*[st.sampled_from([0, 1, 2])] * 3),
       biases=st.tuples(*[st.booleans()] * 3), f64=st.booleans(), seed=st.integers(0, 99))
def test_fused_block_is_the_unfused_kernels_bit_for_bit(n, c, mult, o, h, w, s, k, residual,
                                                       threads, acts, biases, f64, seed):
    """Channel counts, planes (odd, one row, narrow), stride 1 / 2, 3 x 3 / 5 x 5, with and
    without residual and biases, NaN / inf / -0 inputs, 1-3 threads."""
    rng = np.random.default_rng(seed)
    dt = np.float64 if f64 else np.float32
    p = k // 2
    ops = _operands(rng, dt, n, c, c * mult, o, h, w, k, s, p, residual, biases, seed % 3 == 0)
    pads = (p, p, p, p)
    ok, got = _fused(ops, (s, s), pads, acts, threads)
    want = _unfused(*ops, (s, s), (1, 1), pads, acts)
    if not ok:               # a geometry the kernel leaves to the unfused kernels
        assert _plane(w, k, s, p) <= 8 or n > 1
        assert (got == 7.0).all()
        return
    _same_bits(want, got)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 40), o=st.integers(1, 40), h=st.integers(1, 40),
       w=st.integers(9, 60), s=st.sampled_from([1, 2]), k=st.sampled_from([3, 5]),
       residual=st.booleans(), threads=st.sampled_from([1, 2, 3]),
       acts=st.tuples(*[st.sampled_from([0, 1, 2])] * 2), biases=st.tuples(*[st.booleans()] * 2),
       f64=st.booleans(), seed=st.integers(0, 99))
def test_block_without_expansion_is_the_unfused_kernels_bit_for_bit(n, c, o, h, w, s, k,
                                                                    residual, threads, acts,
                                                                    biases, f64, seed):
    """w1 None (MobileNetV2's block 0: depthwise -> project, the depthwise layer reading x's
    rows in place): the two unfused kernels' bits, NaN / inf / -0 inputs, 1-3 threads."""
    rng = np.random.default_rng(seed)
    dt = np.float64 if f64 else np.float32
    p = k // 2
    ops = list(_operands(rng, dt, n, c, c, o, h, w, k, s, p, residual, (False,) + biases,
                         seed % 3 == 0))
    ops[1] = None
    pads, acts = (p, p, p, p), (0,) + acts
    ok, got = _fused(ops, (s, s), pads, acts, threads)
    if not ok:
        assert _plane(w, k, s, p) <= 8 or n > 1
        assert (got == 7.0).all()
        return
    _same_bits(_unfused(*ops, (s, s), (1, 1), pads, acts), got)


@pytest.mark.parametrize("threads", [1, 2])
def test_mobilenet_v2_block0_without_expansion(threads):
    ops = list(_operands(np.random.default_rng(0), np.float32, 1, 32, 32, 16, 112, 112, 3, 1,
                         1, False))
    ops[1], ops[2] = None, None
    ok, got = _fused(ops, (1, 1), (1, 1, 1, 1), (0, 2, 0), threads)
    assert ok
    _same_bits(_unfused(*ops, (1, 1), (1, 1), (1, 1, 1, 1), (0, 2, 0)), got)
    with pytest.raises(ValueError, match="b1"):
        bad = ops.copy()
        bad[2] = np.zeros(32, np.float32)
        _C.inverted_residual_forward(*bad, got, (1, 1), (1, 1), (1, 1, 1, 1), (0, 2, 0))


@pytest.mark.parametrize("c, e, o, h, s, residual", [
    (16, 96, 24, 112, 2, False), (24, 144, 24, 56, 1, True), (24, 144, 32, 56, 2, False),
    (32, 192, 32, 28, 1, True), (64, 384, 64, 14, 1, True), (96, 576, 96, 14, 1, True),
    (96, 576, 160, 14, 2, False), (160, 960, 160, 7, 1, True)])
@pytest.mark.parametrize("threads", [1, 2])
def test_mobilenet_v2_blocks(c, e, o, h, s, residual, threads):
    """MobileNetV2's block shapes at 224 (bands of several rows, halo rows kept, the
    pointwise tails' dot-product columns; 7 x 7 outputs on the small-plane path, AVX-512)."""
    ops = _operands(np.random.default_rng(h + s), np.float32, 1, c, e, o, h, h, 3, s, 1,
                    residual)
    ok, got = _fused(ops, (s, s), (1, 1, 1, 1), (2, 2, 0), threads)
    assert ok or (h // s <= 8 and _C.kernel_isa() != "avx512")
    if not ok:
        return
    _same_bits(_unfused(*ops, (s, s), (1, 1), (1, 1, 1, 1), (2, 2, 0)), got)


def test_dilation_and_asymmetric_padding():
    ops = _operands(np.random.default_rng(5), np.float32, 1, 8, 24, 8, 23, 31, 3, 1, 0, False)
    ok, got = _fused(ops, (2, 1), (0, 3, 2, 1), (1, 2, 1), 2, dil=(2, 1))
    assert ok
    _same_bits(_unfused(*ops, (2, 1), (2, 1), (0, 3, 2, 1), (1, 2, 1)), got)


def test_bad_arguments_raise_before_touching_out():
    ops = list(_operands(np.random.default_rng(1), np.float32, 1, 4, 8, 4, 12, 12, 3, 1, 1,
                         False))
    out = np.zeros((1, 4, 12, 12), np.float32)
    bad = ops.copy()
    bad[1] = bad[1][:, :3]                                 # w1 with 3 input channels, not 4
    with pytest.raises(ValueError, match="w1"):
        _C.inverted_residual_forward(*bad, out, (1, 1), (1, 1), (1, 1, 1, 1), (2, 2, 0))
    with pytest.raises(ValueError, match="out"):
        _C.inverted_residual_forward(*ops, out[:, :, :11], (1, 1), (1, 1), (1, 1, 1, 1),
                                     (2, 2, 0))
    with pytest.raises(ValueError, match="acts"):
        _C.inverted_residual_forward(*ops, out, (1, 1), (1, 1), (1, 1, 1, 1), (2, 9, 0))
    with pytest.raises(TypeError):
        _C.inverted_residual_forward(*ops[:7], out, (1, 1), (1, 1), (1, 1, 1, 1), (2, 2, 0))
    assert not out.any()


def test_primitive_infer_and_errors():
    prim = FusedInvertedResidual(12, 5, 3, "pad", 1, 2)
    x = ms.Tensor(np.zeros((1, 4, 9, 10), np.float32))
    args = [np.zeros(s, np.float32) for s in ((12, 4, 1, 1), (12,), (12, 1, 3, 3), (12,),
                                               (5, 12, 1, 1), (5,))]
    out = prim(x, *[ms.Tensor(a) for a in args])
    assert out.shape == (1, 5, 5, 5)
    with pytest.raises(ValueError, match="activations"):
        FusedInvertedResidual(12, 5, 3, activations=("relu6", "gelu", "none"))
    with pytest.raises(TypeError, match="FusedInvertedResidual"):
        prim(x, *[ms.Tensor(a) for a in args[:-1]])


class Block(nn.Cell):
    """MobileNetV2's inverted residual (BatchNorm folded: biased convolutions)."""

    def __init__(self, c, e, o, stride):
        super().__init__()
        self.expand = nn.Conv2d(c, e, 1, has_bias=True) if e != c else None
        self.dw = nn.Conv2d(e, e, 3, stride, pad_mode="pad", padding=1, group=e,
                            has_bias=True)
        self.project = nn.Conv2d(e, o, 1, has_bias=True)
        self.act = nn.ReLU6()
        self.residual = stride == 1 and c == o

    def construct(self, x):
        t = self.act(self.expand(x)) if self.expand is not None else x
        y = self.project(self.act(self.dw(t)))
        return x + y if self.residual else y


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        # block 0's form first: no expansion (its 1 x 1 of 2**21 multiply-adds or more, so a
        # FusedConvAct on the engine, as MobileNetV2's 32 -> 16 at 112 x 112)
        self.z = Block(24, 24, 48, 1)
        self.a = Block(48, 144, 48, 1)
        self.b = Block(48, 144, 32, 2)

    def construct(self, x):
        return self.b(self.a(self.z(x)))


def _steps(model):
    units = [u for u in model._session.main.units if getattr(u, "program", None) is not None]
    return Counter(type(s.prim).__name__ for u in units for s in u.program.kg.steps
                   if s.prim is not None)


def test_lite_runtime_fuses_the_blocks(monkeypatch):
    """Converted to .ms and run by the Lite runtime: the three blocks fused (one without
    expansion), the output bit for bit the runtime's without the pass, and eager mindlite's
    within float32 rounding."""
    net = Net()
    x = np.random.default_rng(0).standard_normal((1, 24, 45, 41)).astype(np.float32)
    got, want, model = round_trip(net, x)
    assert _steps(model)["FusedInvertedResidual"] == 3
    monkeypatch.setattr(fuse_inverted_residual, "run", lambda g, m: False)
    plain, _, model0 = round_trip(net, x)
    assert _steps(model0)["FusedInvertedResidual"] == 0
    _same_bits(plain[0], got[0])
    np.testing.assert_allclose(got[0], nhwc(want[0]) if got[0].shape != want[0].shape
                               else want[0], rtol=1e-4, atol=1e-4)


def _block_fn(x, w1, b1, w2, b2, w3, b3):
    t = ops.relu6(ops.bias_add(ops.conv2d(x, w1), b1))
    d = ops.relu6(ops.bias_add(ops.conv2d(t, w2, pad_mode="pad", padding=1, stride=2,
                                          groups=w2.shape[0]), b2))
    return ops.bias_add(ops.conv2d(d, w3), b3), t


def _jit_graph(fn, args):
    graph = ms.jit(fn).graph(*args)
    changed = fuse_inverted_residual.run(graph, FuncGraphManager(graph))
    lint(graph)
    return graph, changed, Counter(type(n.inputs[0].value).__name__ for n in graph.order)


def test_pass_on_a_graph_and_what_it_leaves():
    """The pass on a graph mode program (the Lite runtime runs it the same way): the block
    becomes one node giving the same bits; a returned expansion stays a node of its own, the
    depthwise -> project pair after it fused without expansion; an intermediate under
    MIN_EXPANDED_BYTES keeps the three nodes."""
    rng = np.random.default_rng(2)
    args = [ms.Tensor(a) for a in _operands(rng, np.float32, 1, 24, 144, 32, 56, 56, 3, 2, 1,
                                            False)[:7]]
    graph, changed, kinds = _jit_graph(lambda *a: _block_fn(*a)[0], args)
    assert changed and kinds["FusedInvertedResidual"] == 1 and kinds["FusedConvAct"] == 0
    got = run_graph(graph, args)
    _same_bits(got.asnumpy(), _block_fn(*args)[0].asnumpy())
    graph, changed, kinds = _jit_graph(_block_fn, args)              # t is returned too
    assert changed and kinds["FusedConvAct"] == 1 and kinds["FusedInvertedResidual"] == 1
    got = run_graph(graph, args)
    for a, b in zip(got, _block_fn(*args)):
        _same_bits(a.asnumpy(), b.asnumpy())
    big = fuse_inverted_residual.MIN_EXPANDED_BYTES
    fuse_inverted_residual.MIN_EXPANDED_BYTES = 144 * 56 * 56 * 4 + 1
    try:
        _, changed, _ = _jit_graph(lambda *a: _block_fn(*a)[0], args)
    finally:
        fuse_inverted_residual.MIN_EXPANDED_BYTES = big
    assert not changed


@pytest.mark.parametrize("residual, acts, biases, expand", [
    (True, ("relu6", "relu6", "none"), (True, True, True), True),
    (False, ("relu", "none", "relu6"), (False, True, False), True),
    (True, ("none", "relu6", "none"), (False, True, True), False)])
def test_float64_gradients(residual, acts, biases, expand):
    rng = np.random.default_rng(11)
    e = 4 if expand else 2
    ops_ = list(_operands(rng, np.float64, 1, 2, e, 2, 3, 10, 3, 1, 1, residual, biases))
    if not expand:
        ops_[1] = None
    prim = FusedInvertedResidual(e, 2, 3, "pad", 1, 1, 1, biases, residual, acts, expand)
    arrays = [a for a in ops_ if a is not None]

    def fn(*args):
        return prim(*args)
    check_grad(fn, *arrays)


def test_block_without_expansion_rejects_an_expansion_bias_or_activation():
    with pytest.raises(ValueError, match="without expansion"):
        FusedInvertedResidual(4, 2, 3, has_biases=(True, True, True), expand=False)
    with pytest.raises(ValueError, match="without expansion"):
        FusedInvertedResidual(4, 2, 3, has_biases=(False, True, True),
                              activations=("relu6", "relu6", "none"), expand=False)


def test_concurrent_callers_get_their_own_results():
    """Four Python threads at once (the loops run without the GIL, on per-thread buffers)."""
    from concurrent.futures import ThreadPoolExecutor
    cases = [_operands(np.random.default_rng(s), np.float32, 1, 8, 48, 8, 20 + s, 17 + s, 3,
                       1 + s % 2, 1, s % 2 == 0) for s in range(4)]
    stride = [(1 + s % 2,) * 2 for s in range(4)]
    want = [_unfused(*ops_, st, (1, 1), (1, 1, 1, 1), (2, 2, 0)) for ops_, st in
            zip(cases, stride)]

    def work(i):
        return [_fused(cases[i], stride[i], (1, 1, 1, 1), (2, 2, 0), 1 + i % 2)[1]
                for _ in range(20)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(4)))
    for w, got in zip(want, results):
        for g in got:
            _same_bits(w, g)
