"""Cases of tests/test_fix_resize.py and the writer of their MindSpore 2.10 values.

    cd /tmp && /opt/msvenv/bin/python /work/main/tests/data/make_resize_fixtures.py \
        /work/main/tests/data/resize_mindspore.json

CASES (importable without MindSpore) lists every resize the test checks: the primitives
ResizeBilinearV2 and ResizeNearestNeighborV2 over all align_corners / half_pixel_centers
flags (up, down, to one pixel, sizes whose align_corners sources fall on .5 ties),
ResizeLinear1D's two modes, and ops.interpolate's nearest / linear / bilinear / area modes
with `size` and with `scale_factor`. Inputs are deterministic (sines of the flat index),
so the writer and the test build the same ones. For the primitives the writer also stores
the gradient of sum(out * w) with respect to x.
"""
import json
import sys

import numpy as np

_SIZES4 = [((1, 2, 3, 4), (5, 7)), ((1, 1, 6, 7), (4, 3)), ((2, 1, 3, 5), (1, 6)),
           ((1, 1, 3, 4), (5, 7)), ((1, 1, 4, 2), (7, 5))]
_SIZES3 = [((1, 2, 4), (7,)), ((2, 1, 7), (3,)), ((1, 1, 3), (5,))]
_SIZES5 = [((1, 1, 2, 3, 4), (3, 5, 7)), ((1, 2, 4, 3, 5), (2, 2, 3))]


def _cases():
    cases = []
    for i, (shape, size) in enumerate(_SIZES4):
        for ac, hp in [(False, False), (False, True), (True, False)]:
            cases.append((f"bilinear_v2/{i}_{int(ac)}{int(hp)}", "bilinear_v2", (ac, hp),
                          shape, size))
        for ac, hp in [(False, False), (False, True), (True, False)]:
            cases.append((f"nearest_v2/{i}_{int(ac)}{int(hp)}", "nearest_v2", (ac, hp),
                          shape, size))
    for i, (shape, size) in enumerate(_SIZES3):
        for mode in ["align_corners", "half_pixel"]:
            cases.append((f"linear1d/{i}_{mode}", "linear1d", mode, shape, size))
    for i, (shape, size) in enumerate(_SIZES3 + _SIZES4 + _SIZES5):
        cases.append((f"interp/nearest_size_{i}", "interp", ("nearest", None), shape,
                      {"size": size}))
    for i, (shape, size) in enumerate(_SIZES4):
        for ac in [None, False, True]:
            cases.append((f"interp/bilinear_size_{i}_{ac}", "interp", ("bilinear", ac), shape,
                          {"size": size}))
    for i, (shape, size) in enumerate(_SIZES3):
        for ac in [None, False, True]:
            cases.append((f"interp/linear_size_{i}_{ac}", "interp", ("linear", ac), shape,
                          {"size": size}))
    scaled = [((1, 2, 3, 4), (2.0, 1.5)), ((1, 1, 6, 7), (0.5, 0.75)), ((1, 1, 3, 5), (1.7, 2.3))]
    for i, (shape, sf) in enumerate(scaled):
        kw = {"scale_factor": sf, "recompute_scale_factor": True}
        cases.append((f"interp/nearest_scale_{i}", "interp", ("nearest", None), shape, kw))
        for ac in [False, True]:
            cases.append((f"interp/bilinear_scale_{i}_{ac}", "interp", ("bilinear", ac), shape,
                          kw))
    cases.append(("interp/nearest_scale5", "interp", ("nearest", None), (1, 1, 2, 3, 4),
                  {"scale_factor": (1.5, 2.0, 0.5)}))
    cases.append(("interp/area_size", "interp", ("area", None), (1, 2, 6, 4), {"size": (3, 2)}))
    return cases


CASES = _cases()


def make_input(shape):
    n = int(np.prod(shape))
    k = np.arange(n, dtype=np.float64)
    return (np.sin(k * 0.91) * 2 + np.cos(k * 0.37)).astype(np.float32).reshape(shape)


def grad_weight(shape):
    n = int(np.prod(shape))
    return (np.cos(np.arange(n, dtype=np.float64) * 1.3) + 0.5).astype(np.float32).reshape(shape)


def _mindspore_values():
    import mindspore as ms
    from mindspore import Tensor, ops
    out = {}
    for key, kind, flags, shape, arg in CASES:
        x = Tensor(make_input(shape))
        if kind == "interp":
            mode, ac = flags
            kw = dict(arg, mode=mode)
            if ac is not None:
                kw["align_corners"] = ac
            out[key] = ops.interpolate(x, **kw).asnumpy().tolist()
            continue
        if kind == "linear1d":
            prim = ops.ResizeLinear1D(coordinate_transformation_mode=flags)
            size = Tensor(np.array(arg, np.int64))
        elif kind == "bilinear_v2":
            prim = ops.ResizeBilinearV2(align_corners=flags[0], half_pixel_centers=flags[1])
            size = Tensor(np.array(arg, np.int32))
        else:
            prim = ops.ResizeNearestNeighborV2(align_corners=flags[0],
                                               half_pixel_centers=flags[1])
            size = Tensor(np.array(arg, np.int32))
        y = prim(x, size)
        out[key] = y.asnumpy().tolist()
        w = Tensor(grad_weight(y.shape))
        g = ms.grad(lambda v, p=prim, s=size, w=w: (p(v, s) * w).sum())(x)
        out[key + "/grad"] = g.asnumpy().tolist()
    return out


if __name__ == "__main__":
    values = _mindspore_values()
    with open(sys.argv[1], "w") as f:
        json.dump({k: np.round(np.asarray(v), 6).tolist() for k, v in values.items()}, f,
                  separators=(",", ":"))
    print(f"wrote {len(values)} values to {sys.argv[1]}")
