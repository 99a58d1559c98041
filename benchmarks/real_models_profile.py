"""Where the time of a real CNN goes, layer by layer (issue 33): each convolution and BatchNorm
of ResNet18 / MobileNetV2 timed as the kernels mindlite's registry selects for it, next to
PyTorch's own kernels for the same layer, both on one thread, in thread CPU time (the
load-robust clock on a shared machine; min of `--reps` calls).

    python benchmarks/real_models_profile.py [--net resnet18] [--infer] [--reps 7] [--top 15]
    python benchmarks/real_models_profile.py --lite [--net resnet18] [--threads 2] [--insitu]

Train mode (3x32x32, batch 16): per layer the forward, input gradient and filter gradient
(PyTorch: conv2d and aten.convolution_backward; BatchNorm: native_batch_norm and its
backward), then the whole train step of each library on one thread in process CPU time, so
the share outside these kernels shows. --infer (1x3x224x224): forward kernels only.

--lite: the Lite runtime's own inference at 1x3x224x224 (the .ms real_models.py builds, run
by mindlite.lite on one thread): the whole predict in thread CPU time, then every kernel step
of its compiled program (after the runtime's fusions) replayed alone on arrays of its shapes,
grouped by kind (pointwise / depthwise / dense convolutions by plane, the other ops), so the
per-layer shares of what the runtime runs show (alone, a step's operands are warm in cache:
the sum is below the whole predict, whose weights stream from memory). --insitu: each step also
timed inside the real predict (its kernel wrapped by a timer, min over the calls), so the gap
between a step alone and the same step in the predict shows step by step, and what the predict
spends outside its kernel steps (Python, the runner, the input and output copies) shows as the
whole predict less the in-situ steps.
"""
import argparse
import tempfile
import time

import torch  # before mindlite: libgomp's static TLS (see csrc/kernels/conv_gemm.h)
import numpy as np

import cnn_nets
import mindlite as ms
from mindlite import Tensor, _C, nn
from mindlite.abstract import abstract_tensor
from mindlite.kernels.registry import select_kernel

F = torch.nn.functional


CLOCK = time.thread_time_ns      # --threads N > 1: time.perf_counter_ns (wall)


def cpu_us(fn, reps):
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = CLOCK()
        fn()
        best = min(best, CLOCK() - t0)
    return best / 1e3


def layers(net, shape):
    """[(kind, name, cell, input shape)] of every Conv2d / BatchNorm2d, in call order."""
    found = []
    for name, cell in net.cells_and_names():
        if isinstance(cell, (nn.Conv2d, nn.BatchNorm2d)):
            orig = cell.construct

            def spy(x, _cell=cell, _name=name, _orig=orig):
                found.append((type(_cell).__name__, _name, _cell, tuple(x.shape)))
                return _orig(x)
            cell.construct = spy
    net(Tensor(np.zeros(shape, np.float32)))
    return found


def _kernel(op, arrays, params):
    abstracts = tuple(abstract_tensor(ms.float32, a.shape) if isinstance(a, np.ndarray) else a
                      for a in arrays)
    k = select_kernel(op, "CPU", ms.float32, input_abstracts=abstracts)
    return k.bind(params), k.name


def conv_row(cell, shape, train, reps):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    w = cell.weight.asnumpy()
    prim = cell.conv2d
    (oh, ow), _ = prim.geometry(shape)
    out = np.empty((shape[0], w.shape[0], oh, ow), np.float32)
    params = prim.kernel_params(x, w)
    fwd, fname = _kernel("Conv2D", (x, w), params)
    row = {"fwd": cpu_us(lambda: fwd(x, w, out), reps), "kernel": fname}
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)
    st, dl, grp = tuple(params["stride"]), tuple(params["dilation"]), params["group"]
    pads = params["pads"]
    tpad = (pads[0], pads[2])
    row["t_fwd"] = cpu_us(lambda: F.conv2d(tx, tw, None, st, tpad, dl, grp), reps)
    if train:
        dout = rng.standard_normal(out.shape).astype(np.float32)
        dx, dw = np.empty_like(x), np.empty_like(w)
        bi, _ = _kernel("Conv2DBackpropInput", (dout, w, shape), params)
        bf, _ = _kernel("Conv2DBackpropFilter", (dout, x, w.shape), params)
        row["dx"] = cpu_us(lambda: bi(dout, w, dx), reps)
        row["dw"] = cpu_us(lambda: bf(dout, x, dw), reps)
        td = torch.from_numpy(dout)
        row["t_bwd"] = cpu_us(lambda: torch.ops.aten.convolution_backward(
            td, tx, tw, None, st, tpad, dl, False, (0, 0), grp, (True, True, False)), reps)
    return row


def bn_row(shape, train, reps):
    rng = np.random.default_rng(1)
    c = shape[1]
    x = rng.standard_normal(shape).astype(np.float32)
    one, zero = np.ones(c, np.float32), np.zeros(c, np.float32)
    y, st = np.empty_like(x), [np.empty(c, np.float32) for _ in range(2)]
    row = {"kernel": "batch_norm"}
    row["fwd"] = cpu_us(lambda: _C.batch_norm(x, one, zero, zero.copy(), one.copy(), y, *st, 0,
                                              train, 1e-5, 0.1), reps)
    tx, tone, tzero = torch.from_numpy(x), torch.from_numpy(one), torch.from_numpy(zero)
    row["t_fwd"] = cpu_us(lambda: torch.native_batch_norm(
        tx, tone, tzero, tzero.clone(), tone.clone(), train, 0.1, 1e-5), reps)
    if train:
        dy, dx = rng.standard_normal(shape).astype(np.float32), np.empty_like(x)
        ds, db = np.empty(c, np.float32), np.empty(c, np.float32)
        row["dx"] = cpu_us(lambda: _C.batch_norm_grad(dy, x, None, one, st[0], st[1], dx, ds,
                                                      db, 0, True, 1e-5), reps)
        row["dw"] = 0.0
        _, sm, sv = torch.native_batch_norm(tx, tone, tzero, None, None, True, 0.1, 1e-5)
        tdy = torch.from_numpy(dy)
        row["t_bwd"] = cpu_us(lambda: torch.ops.aten.native_batch_norm_backward(
            tdy, tx, tone, None, None, sm, sv, True, 1e-5, (True, True, True)), reps)
    return row


def step_cpu_ms(net_name, reps):
    """(mindlite, PyTorch) one-thread train step, process CPU ms (min of reps)."""
    ms.set_seed(0)
    net = cnn_nets.mindlite_net(net_name)
    twin = cnn_nets.torch_net(net_name)
    cnn_nets.load_torch_weights(twin, cnn_nets.weights(net))
    x = np.random.default_rng(0).standard_normal((16, 3, 32, 32)).astype(np.float32)
    y = np.random.default_rng(1).integers(0, 1000, 16).astype(np.int32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                                nn.SGD(net.trainable_params(), 0.01, 0.9))
    train.set_train()
    xt, yt = Tensor(x), Tensor(y)
    opt = torch.optim.SGD(twin.parameters(), lr=0.01, momentum=0.9)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))

    def torch_step():
        opt.zero_grad()
        F.cross_entropy(twin(tx), ty).backward()
        opt.step()

    def best(fn):
        fn()
        t = []
        for _ in range(reps):
            t0 = time.process_time()
            fn()
            t.append(time.process_time() - t0)
        return min(t) * 1e3
    return best(lambda: train(xt, yt)), best(torch_step)


def _step_kind(step, ins):
    name = step.prim.name
    if name == "FusedInvertedResidual":
        x, st = ins[0].shape, step.prim.attrs["stride"]
        st = st[0] if isinstance(st, tuple) else st
        return f"inverted residual at {x[2]}x{x[3]}, stride {st}"
    if name != "FusedConvAct" or len(ins) < 2:
        return name
    x, w = ins[0].shape, ins[1].shape
    if w[1] == 1 and w[0] == x[1] and x[1] > 1:
        return f"depthwise {w[2]}x{w[3]} at {x[2]}x{x[3]}"
    if w[2] == w[3] == 1:
        return f"1x1 at {x[2]}x{x[3]}"
    return f"{w[2]}x{w[3]} {x[1]}->{w[0]} at {x[2]}x{x[3]}"


def insitu_us(prog, call, reps):
    """{step index: min CLOCK us of that kernel step inside the real predict}: the program's
    kernels wrapped by a timer (a program of its own, so the model's is untouched)."""
    from mindlite.backend.program import GraphProgram
    kg, best = prog.kg, {}

    def timed(i, fn):
        def run(*args, **kwargs):
            t0 = CLOCK()
            out = fn(*args, **kwargs)
            best[i] = min(best.get(i, float("inf")), CLOCK() - t0)
            return out
        return run
    fns = [s.fn for s in kg.steps]
    for i, s in enumerate(kg.steps):
        s.fn = timed(i, s.fn)
    try:
        wrapped = GraphProgram(kg, prog.prog.epoch)
    finally:
        for s, fn in zip(kg.steps, fns):
            s.fn = fn
    own, prog.prog = prog.prog, wrapped
    direct = call.model._session.direct          # the direct run holds the runner itself
    if direct is not None and direct.runner is not own.runner:
        direct = None
    if direct is not None:
        direct.runner, direct.pool = wrapped.runner, []
    try:
        for _ in range(reps + 1):
            call()
    finally:
        prog.prog = own
        if direct is not None:
            direct.runner, direct.pool = own.runner, []
    return {i: t / 1e3 for i, t in best.items()}


def lite_profile(net_name, reps, threads=1, insitu=False):
    """The Lite runtime's predict and its kernel steps, one thread, thread CPU ms (threads > 1:
    wall ms)."""
    import _real_models_child
    import real_models
    from mindlite.backend.lowering import KERNEL
    from mindlite.lite.kernel import SubGraphKernel
    folder = tempfile.mkdtemp(prefix="lite_profile_")
    real_models.prepare(net_name, folder, (1,))
    call, _ = _real_models_child._lite_infer(net_name, folder, 1, threads)
    whole = cpu_us(call, reps) / 1e3
    model = call.model
    rows, situ = {}, {}
    for unit in model._session.main.units:
        prog = getattr(unit, "program", None) if isinstance(unit, SubGraphKernel) else None
        if prog is None or prog.kg is None:
            continue
        kg, arrays = prog.kg, {}
        inside = insitu_us(prog, call, reps) if insitu and prog.prog is not None else {}

        def array(i):
            if i not in arrays:
                v = kg.values[i]
                arrays[i] = v.const.asnumpy() if hasattr(v.const, "asnumpy") else \
                    v.const if v.const is not None else \
                    np.random.default_rng(i).standard_normal(v.abstract.shape).astype(
                        v.abstract.np)
            return arrays[i]
        for i, s in enumerate(kg.steps):
            if s.kind != KERNEL:
                continue
            ins, outs = [array(i) for i in s.ins], [array(o) for o in s.outs]
            nk = len(s.kwnames or ())
            pos, kw = s.params[:len(s.params) - nk], dict(zip(s.kwnames or (),
                                                              s.params[len(s.params) - nk:]))
            us = cpu_us(lambda: s.fn(*ins, *outs, *pos, **kw), reps)
            kind = _step_kind(s, ins)
            n, t = rows.get(kind, (0, 0.0))
            rows[kind] = (n + 1, t + us)
            situ[kind] = situ.get(kind, 0.0) + inside.get(i, 0.0)
    total = sum(t for _, t in rows.values())
    how = "one thread, thread CPU" if threads == 1 else f"{threads} threads, wall"
    print(f"{net_name} Lite inference 1x3x224x224, {how} (min of {reps}): "
          f"whole predict {whole:.2f} ms; its kernel steps alone {total / 1e3:.2f} ms")
    if insitu:
        inside = sum(situ.values())
        print(f"its kernel steps in the predict {inside / 1e3:.2f} ms; outside the steps "
              f"{whole - inside / 1e3:.2f} ms")
    print("\n| kernel steps | count | ms | share |" + (" in situ ms | in situ - alone |"
                                                      if insitu else ""))
    print("|---|---:|---:|---:|" + ("---:|---:|" if insitu else ""))
    for kind, (n, t) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        more = f" {situ[kind] / 1e3:.2f} | {(situ[kind] - t) / 1e3:+.2f} |" if insitu else ""
        print(f"| {kind} | {n} | {t / 1e3:.2f} | {t / total:.1%} |{more}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--net", default="resnet18", choices=("resnet18", "mobilenet_v2"))
    p.add_argument("--infer", action="store_true")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--lite", action="store_true", help="the Lite runtime's inference steps")
    p.add_argument("--threads", type=int, default=1,
                   help="--lite: threads (> 1: wall clock; run it in an autogroup of its own)")
    p.add_argument("--insitu", action="store_true",
                   help="--lite: also time each step inside the real predict")
    args = p.parse_args()
    torch.set_num_threads(1)
    _C.set_num_threads(args.threads if args.lite else 1)
    if args.lite:
        global CLOCK
        if args.threads > 1:
            CLOCK = time.perf_counter_ns
        return lite_profile(args.net, args.reps, args.threads, args.insitu)
    train = not args.infer
    shape = (16, 3, 32, 32) if train else (1, 3, 224, 224)
    net = cnn_nets.mindlite_net(args.net)
    net.set_train(train)
    rows = []
    for kind, name, cell, xshape in layers(net, shape):
        row = conv_row(cell, xshape, train, args.reps) if kind == "Conv2d" \
            else bn_row(xshape, train, args.reps)
        row.update(name=name, shape=xshape, kind=kind)
        row["ours"] = row["fwd"] + row.get("dx", 0) + row.get("dw", 0)
        row["theirs"] = row["t_fwd"] + row.get("t_bwd", 0)
        rows.append(row)
    total = sum(r["ours"] for r in rows)
    t_total = sum(r["theirs"] for r in rows)
    print(f"{args.net}, {'train 16x3x32x32' if train else 'inference 1x3x224x224'}, one "
          f"thread, thread CPU us (min of {args.reps})\n")
    cols = "fwd | dx | dw" if train else "fwd"
    print(f"| layer | input | mindlite kernel | mindlite {cols} | torch fwd"
          f"{' | torch bwd' if train else ''} | mindlite / torch | share of mindlite |")
    print("|---|---|---|" + "---:|" * (7 if train else 4))
    for r in sorted(rows, key=lambda r: -r["ours"])[:args.top]:
        mine = f"{r['fwd']:.0f}" + (f" | {r['dx']:.0f} | {r['dw']:.0f}" if train else "")
        theirs = f"{r['t_fwd']:.0f}" + (f" | {r['t_bwd']:.0f}" if train else "")
        print(f"| {r['name']} | {r['shape']} | {r['kernel']} | {mine} | {theirs} | "
              f"{r['ours'] / r['theirs']:.2f} | {r['ours'] / total:.1%} |")
    for kind in ("Conv2d", "BatchNorm2d"):
        a = sum(r["ours"] for r in rows if r["kind"] == kind)
        b = sum(r["theirs"] for r in rows if r["kind"] == kind)
        print(f"\n{kind}: mindlite {a / 1e3:.1f} ms, torch {b / 1e3:.1f} ms ({a / b:.2f}x)")
    print(f"all layers above: mindlite {total / 1e3:.1f} ms, torch {t_total / 1e3:.1f} ms")
    if train:
        ours, theirs = step_cpu_ms(args.net, args.reps)
        print(f"whole train step, one thread, process CPU: mindlite {ours:.1f} ms, torch "
              f"{theirs:.1f} ms ({ours / theirs:.2f}x); outside the layers above: mindlite "
              f"{ours - total / 1e3:.1f} ms, torch {theirs - t_total / 1e3:.1f} ms")


if __name__ == "__main__":
    main()
