"""MindSpore's GRAPH_MODE gradient of a mindcv model as a second MindSpore reference: the
check behind mindcv.md's mobilevit row, where MindSpore's PyNative gradient (what
run_mindcv.py compares with) disagrees with MindSpore itself.

    python tools/ms_compat/ms_graph_grads.py --model NAME --work DIR --mindcv DIR
        [--ms-python /opt/msvenv/bin/python]

In the MindSpore 2.10 venv: the model built with mindcv's code (set_seed(0)), MindSpore's
checkpoint from run_mindcv.py (WORK/<model>/ms.ckpt) loaded, then the eval-mode gradient of
sparse-softmax cross-entropy on the runner's batch 1 for every trainable parameter, computed
by a GradOperation cell under GRAPH_MODE (one compiled graph); saved as
WORK/<model>/grads_eval_graph.npz. Then, here, the largest relative difference (the
runner's measure: max|a - b| / max(max|b|, 1e-3)) of that gradient against MindSpore's
PyNative one and mindlite's float32 and float64 ones (the runner's arrays).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def graph_grads(args):
    """Runs inside the MindSpore venv."""
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    import numpy as np
    import mindspore as ms
    from mindspore import nn, ops
    sys.path.insert(0, args.mindcv)
    import mindcv
    ms.set_context(mode=ms.GRAPH_MODE)
    work = os.path.join(args.work, args.model)
    ms.set_seed(0)
    net = mindcv.create_model(args.model, pretrained=False)
    ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(work, "ms.ckpt")),
                           strict_load=True)
    net.set_train(False)
    names = [p.name for p in net.trainable_params()]     # before the wrappers prefix them

    class Loss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net, self.ce = net, ops.SparseSoftmaxCrossEntropyWithLogits()

        def construct(self, x, y):
            return self.ce(self.net(x), y)

    loss = Loss()
    weights = ms.ParameterTuple(net.trainable_params())

    class Grad(nn.Cell):
        def __init__(self):
            super().__init__()
            self.loss, self.grad = loss, ops.GradOperation(get_by_list=True)

        def construct(self, x, y):
            return self.grad(self.loss, weights)(x, y)

    data = np.load(os.path.join(work, "inputs.npz"))
    grads = Grad()(ms.Tensor(data["x"]), ms.Tensor(data["y"]))
    np.savez(os.path.join(work, "grads_eval_graph.npz"),
             **{n: g.asnumpy() for n, g in zip(names, grads)})


def report(work):
    import numpy as np
    graph = np.load(os.path.join(work, "grads_eval_graph.npz"))
    for label, name in (("MindSpore PyNative", "grads_eval.npz"),
                        ("mindlite float32", "grads_eval_ml.npz"),
                        ("mindlite float64", "grads_eval_ml64.npz")):
        path = os.path.join(work, name)
        if not os.path.exists(path):
            continue
        other = np.load(path)
        worst = max((float(np.abs(other[k].astype(np.float64) - graph[k]).max())
                     / max(float(np.abs(graph[k]).max()), 1e-3), k) for k in graph.files)
        print(f"MindSpore GRAPH_MODE vs {label}: max {worst[0]:.1e} ({worst[1]})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--model", "--work", "--mindcv"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--ms-python", default="/opt/msvenv/bin/python")
    ap.add_argument("--in-ms", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.work, args.mindcv = os.path.abspath(args.work), os.path.abspath(args.mindcv)
    if args.in_ms:
        return graph_grads(args)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([args.ms_python, os.path.abspath(__file__), "--in-ms", "--model",
                    args.model, "--work", args.work, "--mindcv", args.mindcv],
                   env=env, check=True, stderr=subprocess.DEVNULL)
    report(os.path.join(args.work, args.model))


if __name__ == "__main__":
    main()
