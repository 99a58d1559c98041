"""nn layers of conv_nd.py, pool_nd.py, resize_layers.py, group_norm.py, cell_dict.py and the
Cell hooks: outputs equal MindSpore 2.10's on seeded inputs (tests/data/layers_mindspore.json,
written by running the `*_cases` functions below with mindspore's nn and Tensor), numpy /
PyTorch references where MindSpore's CPU build has no kernel (InstanceNorm, Unfold) or the
layer only moves values (pads, pixel shuffles), gradients, hooks, errors."""
import json
import os

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn, ops
from gradcheck import check_grad

WANT = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                   "layers_mindspore.json")))


def _conv_layers(nn, Tensor, t, pm, s, k, p, weights, inputs):  # noqa: N803
    w1, wt, wt1, w3, b = weights
    x1, x2, x3 = inputs
    return {
        "conv/c1_" + t: lambda: nn.Conv1d(3, 4, k, s, pm, p, has_bias=True,
                                          weight_init=Tensor(w1), bias_init=b)(Tensor(x1)),
        "conv/ct_" + t: lambda: nn.Conv2dTranspose(3, 4, k, s, pm, p, has_bias=True,
                                                   weight_init=Tensor(wt), bias_init=b)(
            Tensor(x2)),
        "conv/ct1_" + t: lambda: nn.Conv1dTranspose(3, 4, k, s, pm, p,
                                                    weight_init=Tensor(wt1))(Tensor(x1)),
        "conv/c3_" + t: lambda: nn.Conv3d(3, 4, k, s, pm, p, has_bias=True,
                                          weight_init=Tensor(w3), bias_init=b)(Tensor(x3))}


def conv_cases(nn, Tensor):  # noqa: N803  (the framework's nn and Tensor are passed in)
    r = np.random.default_rng(0)
    x1 = r.standard_normal((2, 3, 7)).astype(np.float32)
    x2 = r.standard_normal((2, 3, 5, 6)).astype(np.float32)
    x3 = r.standard_normal((1, 3, 5, 6, 4)).astype(np.float32)
    out = {}
    for pm in ["same", "valid", "pad"]:
        for s in [1, 2, 3]:
            for k in [2, 3]:
                p = 1 if pm == "pad" else 0
                w1 = r.standard_normal((4, 3, k)).astype(np.float32)
                wt = r.standard_normal((3, 4, k, k)).astype(np.float32)
                wt1 = r.standard_normal((3, 4, k)).astype(np.float32)
                w3 = r.standard_normal((4, 3, k, k, k)).astype(np.float32)
                b = Tensor(r.standard_normal(4).astype(np.float32))
                out.update(_conv_layers(nn, Tensor, f"{pm}_{s}_{k}", pm, s, k, p,
                                        (w1, wt, wt1, w3, b), (x1, x2, x3)))
    return out


def _pool_layers(nn, t, pm, k, s, p, x1, x3):
    return {"pool/mp1_" + t: lambda: nn.MaxPool1d(k, s, pm, p)(x1),
            "pool/ap1_" + t: lambda: nn.AvgPool1d(k, s, pm, p)(x1),
            "pool/mp3_" + t: lambda: nn.MaxPool3d(k, s, pm, p)(x3),
            "pool/ap3_" + t: lambda: nn.AvgPool3d(k, s, pm, p)(x3),
            "pool/ap3nc_" + t: lambda: nn.AvgPool3d(k, s, pm, p, count_include_pad=False)(x3)}


def pool_cases(nn, Tensor):  # noqa: N803
    r = np.random.default_rng(0)
    x1 = Tensor(r.standard_normal((2, 3, 9)).astype(np.float32))
    x3 = Tensor(r.standard_normal((1, 2, 5, 6, 7)).astype(np.float32))
    x2 = Tensor(r.standard_normal((2, 3, 7, 5)).astype(np.float32))
    out = {}
    for pm in ["valid", "same", "pad"]:
        for k, s in [(2, 1), (3, 2), (2, 3)]:
            out.update(_pool_layers(nn, f"{pm}_{k}_{s}", pm, k, s, 1 if pm == "pad" else 0,
                                    x1, x3))
    out["pool/mp1_ceil"] = lambda: nn.MaxPool1d(2, 2, "pad", 1, ceil_mode=True)(x1)
    out["pool/mp1_idx"] = lambda: nn.MaxPool1d(3, 2, "pad", 1, return_indices=True)(x1)[1]
    out["pool/mp1_unbatched"] = lambda: nn.MaxPool1d(3, 2)(x1[0])
    out["pool/mp3_dil"] = lambda: nn.MaxPool3d(2, 1, "pad", 0, dilation=2)(x3)
    for o in [1, 3]:
        out[f"pool/aap1_{o}"] = lambda o=o: nn.AdaptiveAvgPool1d(o)(x1)
    for o in [(2, 3), 3, (None, 2), (4, 4)]:
        out[f"pool/aap2_{o}"] = lambda o=o: nn.AdaptiveAvgPool2d(o)(x2)
        out[f"pool/amp2_{o}"] = lambda o=o: nn.AdaptiveMaxPool2d(o)(x2)
    out["pool/amp2_idx"] = lambda: nn.AdaptiveMaxPool2d((2, 3), True)(x2)[1]
    return out


def norm_cases(nn, Tensor):  # noqa: N803
    r = np.random.default_rng(0)
    x4 = Tensor(r.standard_normal((2, 6, 3, 4)).astype(np.float32) * 3 + 1)
    x3 = Tensor(r.standard_normal((2, 6, 5)).astype(np.float32))
    g = Tensor(r.standard_normal(6).astype(np.float32))
    b = Tensor(r.standard_normal(6).astype(np.float32))
    x = Tensor(np.random.default_rng(0).standard_normal((2, 8, 5, 6)).astype(np.float32))
    return {"norm/gn": lambda: nn.GroupNorm(3, 6, gamma_init=g, beta_init=b)(x4),
            "norm/gn1": lambda: nn.GroupNorm(1, 6, eps=1e-3)(x3),
            "misc/up_b": lambda: nn.Upsample(size=(7, 9), mode="bilinear",
                                             align_corners=True)(x)}


ALL = {**conv_cases(nn, Tensor), **pool_cases(nn, Tensor), **norm_cases(nn, Tensor)}


@pytest.mark.parametrize("case", sorted(WANT))
def test_values_equal_mindspores(case):
    got = ALL[case]()
    got = got[0] if isinstance(got, tuple) else got
    np.testing.assert_allclose(got.asnumpy(), WANT[case], rtol=1e-5, atol=2e-6)


def test_pads_and_shuffles_move_values_as_numpy():
    x = np.random.default_rng(3).standard_normal((2, 8, 5, 6)).astype(np.float32)
    t = Tensor(x)
    pads = ((0, 0), (1, 2), (2, 1), (0, 3))
    np.testing.assert_array_equal(nn.Pad(pads)(t).asnumpy(), np.pad(x, pads))
    refl = ((0, 0), (0, 0), (2, 1), (1, 3))
    np.testing.assert_array_equal(nn.Pad(refl, "REFLECT")(t).asnumpy(),
                                  np.pad(x, refl, "reflect"))
    every = ((1, 0), (2, 1), (2, 1), (1, 3))       # every axis (MindSpore's MirrorPad)
    np.testing.assert_array_equal(nn.Pad(every, "REFLECT")(t).asnumpy(),
                                  np.pad(x, every, "reflect"))
    sym = ((0, 0), (1, 0), (2, 1), (1, 3))
    np.testing.assert_array_equal(nn.Pad(sym, "SYMMETRIC")(t).asnumpy(),
                                  np.pad(x, sym, "symmetric"))
    lrtb = ((0, 0), (0, 0), (3, 1), (1, 2))
    np.testing.assert_array_equal(nn.ZeroPad2d((1, 2, 3, 1))(t).asnumpy(), np.pad(x, lrtb))
    np.testing.assert_array_equal(nn.ConstantPad2d((1, 2, 3, 1), 1.5)(t).asnumpy(),
                                  np.pad(x, lrtb, constant_values=1.5))
    np.testing.assert_array_equal(nn.ReflectionPad2d((1, 2, 3, 1))(t).asnumpy(),
                                  np.pad(x, lrtb, "reflect"))
    np.testing.assert_array_equal(nn.ReplicationPad2d((1, 2, 3, 1))(t).asnumpy(),
                                  np.pad(x, lrtb, "edge"))
    shuffled = nn.PixelShuffle(2)(t)
    assert shuffled.shape == (2, 2, 10, 12)
    assert shuffled.asnumpy()[0, 1, 3, 4] == x[0, 1 * 4 + (3 % 2) * 2 + 4 % 2, 1, 2]
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(shuffled).asnumpy(), x)


def test_unfold_is_extract_image_patches():
    """MindSpore's CPU build has no ExtractImagePatches kernel: a direct numpy reference."""
    x = np.random.default_rng(4).standard_normal((2, 3, 6, 7)).astype(np.float32)
    got = nn.Unfold([1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1])(Tensor(x)).asnumpy()
    kh, kw, sh, sw, rh, rw = 2, 3, 2, 1, 1, 2
    oh, ow = (6 - (kh - 1) * rh - 1) // sh + 1, (7 - (kw - 1) * rw - 1) // sw + 1
    want = np.zeros((2, 3 * kh * kw, oh, ow), np.float32)
    for i in range(kh):
        for j in range(kw):
            for c in range(3):
                want[:, (i * kw + j) * 3 + c] = x[:, c, i * rh::sh, j * rw::sw][:, :oh, :ow]
    np.testing.assert_array_equal(got, want)
    assert nn.Unfold([1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "same")(Tensor(x)).shape == \
        (2, 27, 3, 4)


def test_instance_norm_equals_torch_and_group_norm_gradients():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(5).standard_normal((2, 4, 3, 5))
    g, b = np.linspace(0.5, 2, 4), np.linspace(-1, 1, 4)
    got = nn.InstanceNorm2d(4, gamma_init=Tensor(g), beta_init=Tensor(b),
                            dtype=ms.float64)(Tensor(x)).asnumpy()
    want = torch.nn.functional.instance_norm(torch.tensor(x), weight=torch.tensor(g),
                                             bias=torch.tensor(b), eps=1e-5).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(
        nn.InstanceNorm1d(4)(Tensor(x[:, :, 0])).asnumpy(),
        torch.nn.functional.instance_norm(torch.tensor(x[:, :, 0]), eps=1e-5).numpy(),
        rtol=1e-5, atol=1e-6)
    gn = nn.GroupNorm(2, 4, dtype=ms.float64)
    check_grad(lambda t: gn(t), x[:1, :, :2, :3])
    assert [p.name for p in nn.InstanceNorm2d(3).get_parameters()] == \
        ["mean", "variance", "gamma", "beta"]


def test_conv_and_pool_gradients():
    r = np.random.default_rng(6)
    conv = nn.Conv2dTranspose(2, 3, 3, 2, "same", dtype=ms.float64,
                              weight_init=Tensor(r.standard_normal((2, 3, 3, 3))))
    check_grad(lambda t: conv(t), r.standard_normal((1, 2, 3, 2)))
    c1 = nn.Conv1d(2, 3, 3, 2, "same", dtype=ms.float64,
                   weight_init=Tensor(r.standard_normal((3, 2, 3))))
    check_grad(lambda t: c1(t), r.standard_normal((1, 2, 5)))
    check_grad(lambda t: nn.AvgPool3d(2, 2, "same", count_include_pad=False)(t),
               r.standard_normal((1, 1, 3, 3, 3)))


def test_cell_dict_and_hooks():
    d = nn.CellDict({"a": nn.ReLU(), "b": nn.Dense(2, 3)})
    assert list(d) == ["a", "b"] and "a" in d and len(d) == 2
    assert [p.name for p in d.get_parameters()] == ["b.weight", "b.bias"]
    with pytest.raises(TypeError, match="the type of cell should be Cell, but got int"):
        d["x"] = 3
    with pytest.raises(TypeError, match="the type of key should be string but got int"):
        nn.CellDict({1: nn.ReLU()})
    with pytest.raises(NotImplementedError):
        d(Tensor(np.ones(2, np.float32)))
    assert type(d.pop("a")) is nn.ReLU and list(d.keys()) == ["b"]

    net = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
    seen = []
    h_pre = net.register_forward_pre_hook(lambda c, a: (a[0] * 0.5,))
    h_fwd = net.register_forward_hook(lambda c, a, o: o * 2)
    h_bwd = net.register_backward_hook(
        lambda c, gi, go: seen.append((gi[0].asnumpy(), go[0].asnumpy())) or (gi[0] * 10,))
    x = Tensor(np.array([[1.0, 2.0]], np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), [[3.0, 3.0]])     # (0.5 x) W^T * 2
    g = ms.grad(lambda t: net(t).sum())(x)
    # grad_output = 2 (the forward hook's doubling comes after); grad_input = W^T 2 = 4,
    # replaced by 40, then the pre-hook's 0.5
    np.testing.assert_array_equal(seen[0][1], [[2.0, 2.0]])
    np.testing.assert_array_equal(seen[0][0], [[4.0, 4.0]])
    np.testing.assert_array_equal(g.asnumpy(), [[20.0, 20.0]])
    for h in (h_pre, h_fwd, h_bwd):
        h.remove()
    assert net._hooks is None
    np.testing.assert_array_equal(net(x).asnumpy(), [[3.0, 3.0]])
    with pytest.raises(TypeError, match="'hook_fn' must be a function"):
        net.register_forward_hook(3)
    hb = ops.HookBackward(lambda grad: grad * 3)
    np.testing.assert_array_equal(ms.grad(lambda t: (hb(t) * t).sum())(x).asnumpy(),
                                  [[4.0, 8.0]])            # 3 x (through the hook) + x


def test_layer_errors():
    with pytest.raises(ValueError, match="'pad_mode' must be one of"):
        nn.Conv3d(3, 4, 3, pad_mode="full")
    with pytest.raises(ValueError, match="must have rank 3 and 3 channels"):
        nn.Conv1d(3, 4, 3)(Tensor(np.ones((2, 4, 5), np.float32)))
    with pytest.raises(ValueError, match="'weight_init' must have shape \\[4, 3, 3\\]"):
        nn.Conv1d(3, 4, 3, weight_init=Tensor(np.ones((4, 3, 1, 3), np.float32)))
    with pytest.raises(ValueError, match="'padding' must be 0 when 'pad_mode' is not 'pad'"):
        nn.MaxPool3d(2, 2, "same", 1)
    with pytest.raises(ValueError, match="'num_channels' must be divisible by 'num_groups'"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="'mode' must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC'"):
        nn.Pad(((1, 1),), "EDGE")
    with pytest.raises(ValueError, match="'upscale_factor' must be a positive int"):
        nn.PixelShuffle(0)
    with pytest.raises(ValueError, match="'p' must be a float in \\[0, 1\\]"):
        nn.Dropout2d(1.5)
    x = Tensor(np.ones((2, 3, 4, 4), np.float32))
    drop = nn.Dropout2d(0.5)
    np.testing.assert_array_equal(drop(x).asnumpy(), x.asnumpy())      # inference: identity
    drop.set_train()
    kept = drop(x).asnumpy()
    assert set(np.unique(kept)) <= {0.0, 2.0}
    assert all(len(np.unique(kept[n, c])) == 1 for n in range(2) for c in range(3))
