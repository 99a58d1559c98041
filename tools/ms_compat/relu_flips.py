"""ReLU units MindSpore's float32 forward puts on the other side of 0 than mindlite's float64
one: the diagnosis run_mindcv.py runs for a model whose gradients disagree.

    python tools/ms_compat/relu_flips.py --engine ms|ml|masked --model NAME --work DIR
        --mindcv DIR [--seed 1]

Both engines load MindSpore's checkpoint of the model (WORK/<model>/ms.ckpt, written by
run_mindcv.py) and run its eval-mode forward on the saved batch, recording the input of
every nn.ReLU / nn.ReLU6 cell call (in call order; functional relus are not seen):
MindSpore in float32 (relu_in_ms.npz), mindlite in float64 (relu_in_ml.npz). The mindlite
run then counts, per call, the units whose sign differs. A unit whose exact pre-activation
lies within float32 rounding of 0 takes either branch in a float32 engine, and every
gradient behind it changes by that unit's share: with few positions per channel (small
images, late stages) one unit is a percent of a weight's gradient. A flip where mindlite's
float64 value is far from 0 (relative to the call's largest) would be a real difference;
the report gives that ratio. Prints and writes relu_flips.json:
{"calls": n, "flips": [[call, cell, count, ms value, mindlite float64 value, max], ...]}.

`--engine masked` (after both): mindlite's float64 eval-mode gradient with every ReLU cell's
mask taken from MindSpore's float32 forward (relu_in_ms.npz, call by call: y = x * [x_ms > 0],
so a flipped unit passes or blocks the gradient as in MindSpore; the forward values move by
at most the flipped units' |x|), compared with MindSpore's eval-mode gradient by the
runner's rule. Where the gradients that missed now agree, the flips are the whole cause.
Writes relu_masked.json: {"over": [parameters still off], "worst": max relative error}.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def record(ms, net, x):
    """Eval-mode forward of net on x; the inputs of its ReLU cells, in call order."""
    from mindspore import nn
    names = {id(c): n for n, c in net.cells_and_names()}
    acts, saved = [], {}
    for cls in (nn.ReLU, nn.ReLU6):
        saved[cls] = cls.construct

        def construct(self, inp, _orig=saved[cls]):
            acts.append((names.get(id(self), "?"), inp.asnumpy()))
            return _orig(self, inp)
        cls.construct = construct
    try:
        net.set_train(False)
        net(ms.Tensor(x))
    finally:
        for cls, orig in saved.items():
            cls.construct = orig
    return acts


def masked_grads(ms, net, x, y, ref):
    """Eval-mode gradients with the ReLU masks of MindSpore's forward (the docstring's)."""
    from mindspore import nn
    from run_mindcv import _grads
    calls, saved = [0], {}
    keys = sorted(ref.files, key=lambda k: int(k.split(":")[0]))
    for cls in (nn.ReLU, nn.ReLU6):
        saved[cls] = cls.construct

        def construct(self, inp, _relu6=cls is nn.ReLU6):
            xm = ref[keys[calls[0]]]
            calls[0] += 1
            if tuple(inp.shape) != xm.shape:
                raise ValueError(f"ReLU call {calls[0] - 1}: shape {tuple(inp.shape)}, "
                                 f"MindSpore's {xm.shape}")
            keep = (xm > 0) & (xm < 6) if _relu6 else xm > 0
            out = inp * ms.Tensor(keep.astype(np.float64))
            return out + ms.Tensor(6.0 * (xm >= 6)) if _relu6 else out
        cls.construct = construct
    try:
        return _grads(ms, net, False, x, y)[1]
    finally:
        for cls, orig in saved.items():
            cls.construct = orig


def compare(work):
    ref, got = np.load(os.path.join(work, "relu_in_ms.npz")), \
        np.load(os.path.join(work, "relu_in_ml.npz"))
    flips = []
    for key in ref.files:
        a, b = ref[key], got[key]
        diff = (a > 0) != (b > 0)
        if a.shape == b.shape and diff.any():
            i = tuple(np.argwhere(diff)[np.argmax(np.abs(b[diff]))])   # the farthest from 0
            flips.append([int(key.split(":")[0]), key.split(":", 1)[1], int(diff.sum()),
                          float(a[i]), float(b[i]), float(np.abs(b).max())])
    return {"calls": len(ref.files), "flips": flips}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--engine", "--model", "--work", "--mindcv"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--seed", type=int, default=0, help="1: the runner's second batch")
    args = ap.parse_args()
    if args.engine == "ms":        # this folder (first on sys.path) holds the alias package
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    import mindspore as ms
    sys.path.insert(0, args.mindcv)
    sys.path.insert(1, HERE)
    import mindcv
    from run_mindcv import _build, _load_net
    work = os.path.join(args.work, args.model, *(["seed1"] if args.seed else []))
    net = _build(ms, mindcv, args.model)
    x = np.load(os.path.join(work, "inputs.npz"))["x"]
    if args.engine == "ms":
        ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(work, "ms.ckpt")))
    else:
        _load_net(ms, net, work, {p.name: p for p in net.get_parameters()})
        for p in net.get_parameters():
            if p.dtype == ms.float32:
                p.set_dtype(ms.float64)
        x = x.astype(np.float64)
    if args.engine == "masked":
        import run_mindcv
        run_mindcv.np = np                  # (run_mindcv imports numpy only as a script)
        from run_mindcv import _grad_check, _grad_rel
        grads = masked_grads(ms, net, x, np.load(os.path.join(work, "inputs.npz"))["y"],
                             np.load(os.path.join(work, "relu_in_ms.npz")))
        ref = dict(np.load(os.path.join(work, "grads_eval.npz")))
        over, _ = _grad_check(ref, None, grads, None)
        res = {"over": over, "worst": max(_grad_rel(grads[k], ref[k]) for k in ref)}
        json.dump(res, open(os.path.join(work, "relu_masked.json"), "w"), indent=1)
        print(json.dumps(res))
        return
    acts = record(ms, net, x)
    np.savez(os.path.join(work, f"relu_in_{args.engine}.npz"),
             **{f"{i}:{name}": a for i, (name, a) in enumerate(acts)})
    if args.engine == "ml":
        res = compare(work)
        json.dump(res, open(os.path.join(work, "relu_flips.json"), "w"), indent=1)
        print(json.dumps(res))


if __name__ == "__main__":
    import numpy as np
    main()
