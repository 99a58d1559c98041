"""Is a gradient difference MindSpore's or mindlite's? One sub-cell of a mindcv model, in
and out of the model: the diagnosis behind mindcv.md's mobilevit row.

    python tools/ms_compat/subcell_check.py --model NAME --cell PATH --work DIR --mindcv DIR
        [--ms-python /opt/msvenv/bin/python]

Both engines build the model with mindcv's code and load MindSpore's checkpoint
(WORK/<model>/ms.ckpt from run_mindcv.py), then:
1. MindSpore: the eval-mode loss gradient of the whole model on the runner's batch 1, with a
   forward hook on the sub-cell (its input x) and a backward hook (the gradient g of its
   output), and the sub-cell's parameter gradients as part of the model;
2. MindSpore in a fresh process: the sub-cell alone, the gradient of sum(cell(x) * g) for its
   parameters (the same function of the same tensors: equal in exact arithmetic). NOTE: run
   in the first process after the hooked whole-model pass, MindSpore gave the in-model values
   bit for bit on mobilevit, in a fresh one the float64 values.
3. mindlite: the sub-cell alone on the same x and g, parameters cast to float64.
Prints, per parameter, max|a - b| / max|b| for (MindSpore in the model, MindSpore alone),
(MindSpore alone, mindlite float64), (MindSpore in the model, mindlite float64): where
MindSpore's in-model value differs from its own value alone and from float64 while the two
values alone agree, the difference is MindSpore's (a function of its whole-model run, not
of the sub-cell's arithmetic).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _model(ms, mindcv, args):
    ms.set_seed(0)
    net = mindcv.create_model(args.model, pretrained=False)
    work = os.path.join(args.work, args.model)
    ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(work, "ms.ckpt")),
                           strict_load=True)
    net.set_train(False)
    return net, dict(net.cells_and_names())[args.cell], work


def _alone(ms, cell, x, g, prefix):
    params = cell.trainable_params()
    grads = ms.grad(lambda t: (cell(t) * ms.Tensor(g)).sum(), None, params)(ms.Tensor(x))
    return {p.name[len(prefix):]: a.asnumpy() for p, a in zip(params, grads)}


def engine(args):
    if args.engine != "ml":
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    import numpy as np
    import mindspore as ms
    sys.path.insert(0, args.mindcv)
    import mindcv
    net, cell, work = _model(ms, mindcv, args)
    prefix = args.cell + "."
    out = os.path.join(work, f"subcell_{args.cell}.npz")
    if args.engine == "ms-alone":
        saved = dict(np.load(out))
        saved.update({"alone:" + k: v for k, v in
                      _alone(ms, cell, saved["x"], saved["g"], prefix).items()})
        np.savez(out, **saved)
        return
    if args.engine == "ms":
        cap = {}
        cell.register_forward_hook(lambda c, inp, o: cap.update(x=inp[0].asnumpy()))
        cell.register_backward_hook(lambda c, gin, gout: cap.update(g=gout[0].asnumpy()))
        data = np.load(os.path.join(work, "inputs.npz"))
        ce = ms.ops.SparseSoftmaxCrossEntropyWithLogits()
        params = cell.trainable_params()
        grads = ms.grad(lambda x, y: ce(net(x), y), None, params)(
            ms.Tensor(data["x"]), ms.Tensor(data["y"]))
        saved = {"x": cap["x"], "g": cap["g"]}
        saved.update({"model:" + p.name[len(prefix):]: a.asnumpy()
                      for p, a in zip(params, grads)})
        np.savez(out, **saved)
        return
    saved = dict(np.load(out))
    for p in cell.get_parameters():
        if p.dtype == ms.float32:
            p.set_dtype(ms.float64)
    ml = _alone(ms, cell, saved["x"].astype(np.float64), saved["g"].astype(np.float64),
                prefix)

    def rel(a, b):
        return float(np.abs(a.astype(np.float64) - b).max() / max(np.abs(b).max(), 1e-12))
    rows = {k: [rel(saved["model:" + k], saved["alone:" + k]),
                rel(saved["alone:" + k], ml[k]), rel(saved["model:" + k], ml[k])] for k in ml}
    print(json.dumps({"model": args.model, "cell": args.cell,
                      "columns": ["MS model vs MS alone", "MS alone vs ml float64",
                                  "MS model vs ml float64"], "rows": rows}, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--model", "--cell", "--work", "--mindcv"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--ms-python", default="/opt/msvenv/bin/python")
    ap.add_argument("--engine", choices=("ms", "ms-alone", "ml"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.work, args.mindcv = os.path.abspath(args.work), os.path.abspath(args.mindcv)
    if args.engine:
        return engine(args)
    base = [os.path.abspath(__file__), "--model", args.model, "--cell", args.cell, "--work",
            args.work, "--mindcv", args.mindcv, "--engine"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for step in ("ms", "ms-alone"):
        subprocess.run([args.ms_python] + base + [step], env=env, check=True,
                       stderr=subprocess.DEVNULL)
    subprocess.run([sys.executable] + base + ["ml"], check=True,
                   env=dict(env, PYTHONPATH=os.pathsep.join([HERE, ROOT])))


if __name__ == "__main__":
    main()
