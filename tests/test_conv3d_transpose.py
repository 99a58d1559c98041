"""Conv3DTranspose (conv3d_transpose_ops.py): values against PyTorch's conv_transpose3d for
every pad mode (MindSpore 2.10's output sizes, checked against MindSpore: 'same' D s, 'valid'
(D - 1) s + max(e, s)), groups, dilation, output_padding, non-contiguous and float16 inputs;
float64 gradients by finite differences; the batch rule against a loop; MindSpore's checks."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops import operations as P

from gradcheck import check_grad


def _torch(x, w, stride, dilation, heads, outs, group):
    """conv_transpose3d without padding, then MindSpore's window [head, head + out)."""
    y = torch.nn.functional.conv_transpose3d(torch.from_numpy(x.astype(np.float64)),
                                             torch.from_numpy(w.astype(np.float64)),
                                             stride=stride, dilation=dilation, groups=group)
    y = y.numpy()
    big = np.zeros(y.shape[:2] + tuple(max(y.shape[2 + i], heads[i] + outs[i])
                                       for i in range(3)))
    big[:, :, :y.shape[2], :y.shape[3], :y.shape[4]] = y
    return big[:, :, heads[0]:heads[0] + outs[0], heads[1]:heads[1] + outs[1],
               heads[2]:heads[2] + outs[2]]


def _sizes(mode, sp, k, s, d, pads, op):
    eff = [d[i] * (k - 1) + 1 for i in range(3)]
    if mode == "pad":
        return pads[0::2], [(sp[i] - 1) * s[i] - pads[2 * i] - pads[2 * i + 1] + eff[i] + op
                            for i in range(3)]
    if mode == "same":
        return [max(0, eff[i] - s[i]) // 2 for i in range(3)], [sp[i] * s[i] for i in range(3)]
    return [0, 0, 0], [(sp[i] - 1) * s[i] + max(eff[i], s[i]) for i in range(3)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["pad", "same", "valid"]), st.integers(1, 2), st.integers(1, 3),
       st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)),
       st.tuples(st.just(1), st.integers(1, 2), st.integers(1, 2)), st.integers(0, 1),
       st.booleans(), st.integers(0, 2 ** 31 - 1))
def test_equals_torch(mode, group, k, s, d, pad, strided, seed):
    rs = np.random.RandomState(seed)
    pads = tuple(rs.randint(0, 2, 6)) if mode == "pad" else 0
    op = 1 if mode == "pad" and min(max(a, b) for a, b in zip(s, d)) > 1 else 0
    x = rs.randn(2, 2 * group, 2, 3, 2).astype(np.float32)
    w = rs.randn(2 * group, 2, k, k, k).astype(np.float32)
    heads, outs = _sizes(mode, x.shape[2:], k, s, d, pads if pads else (0,) * 6, op)
    if min(outs) <= 0:
        return
    prim = P.Conv3DTranspose(2 * group, 2 * group, k, pad_mode=mode, pad=pads, stride=s,
                             dilation=d, group=group, output_padding=op)
    xt = Tensor(np.repeat(x, 2, axis=-1)[..., ::2]) if strided else Tensor(x)
    got = prim(xt, Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, _torch(x, w, s, d, heads, outs, group), rtol=1e-4,
                               atol=1e-4)


def test_mindspore_values_and_float16():
    x = np.arange(54, dtype=np.float32).reshape(1, 2, 3, 3, 3)
    prim = P.Conv3DTranspose(2, 2, 2, pad_mode="pad", pad=1)
    got = prim(Tensor(x), Tensor(np.ones((2, 2, 2, 2, 2), np.float32))).asnumpy()
    np.testing.assert_array_equal(got[0, 0], [[[320, 336], [368, 384]],
                                              [[464, 480], [512, 528]]])   # MindSpore's
    half = prim(Tensor(x.astype(np.float16)), Tensor(np.ones((2, 2, 2, 2, 2), np.float16)))
    assert half.dtype == ms.float16
    np.testing.assert_allclose(half.asnumpy(), got, rtol=1e-3)


@pytest.mark.parametrize("kw", [dict(pad_mode="pad", pad=(1, 0, 0, 1, 1, 0), stride=2,
                                     dilation=(1, 2, 1), output_padding=1),
                                dict(pad_mode="same", stride=(1, 2, 3), group=2),
                                dict(pad_mode="valid", stride=(2, 1, 3))])
def test_gradients(kw):
    g = kw.get("group", 1)
    prim = P.Conv3DTranspose(4, 2 * g, 2, **kw)
    rs = np.random.RandomState(0)
    check_grad(lambda a, b: prim(a, b), rs.randn(2, 4, 2, 3, 2), rs.randn(4, 2, 2, 2, 2))


def test_batch_rule_equals_a_loop():
    prim = P.Conv3DTranspose(2, 4, 2, pad_mode="same", stride=2, group=2)
    rs = np.random.RandomState(1)
    x, w = rs.randn(3, 1, 2, 2, 3, 2), rs.randn(3, 2, 2, 2, 2, 2)
    for axes in [(0, None), (None, 0), (0, 0)]:
        xs = [x[i] if axes[0] is not None else x[0] for i in range(3)]
        ws = [w[i] if axes[1] is not None else w[0] for i in range(3)]
        want = np.stack([prim(Tensor(a), Tensor(b)).asnumpy() for a, b in zip(xs, ws)])
        got = ops.vmap(prim, axes)(Tensor(x if axes[0] is not None else x[0]),
                                   Tensor(w if axes[1] is not None else w[0]))
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


def test_checks():
    with pytest.raises(ValueError, match="Conv3DTranspose.*depth of parameter 'dilation'"):
        P.Conv3DTranspose(2, 2, 2, dilation=2)
    with pytest.raises(ValueError, match="Conv3DTranspose.*output_padding"):
        P.Conv3DTranspose(2, 2, 2, pad_mode="pad", output_padding=1)
    with pytest.raises(ValueError, match="Conv3DTranspose.*'pad'"):
        P.Conv3DTranspose(2, 2, 2, pad=1)
    prim = P.Conv3DTranspose(2, 2, 2)
    with pytest.raises(ValueError, match="Conv3DTranspose.*channels"):
        prim(Tensor(np.ones((1, 3, 2, 2, 2), np.float32)),
             Tensor(np.ones((2, 2, 2, 2, 2), np.float32)))
    with pytest.raises(TypeError, match="Conv3DTranspose"):
        prim(Tensor(np.ones((1, 2, 2, 2, 2), np.int32)),
             Tensor(np.ones((2, 2, 2, 2, 2), np.int32)))
