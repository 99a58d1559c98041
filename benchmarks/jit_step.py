"""Whole training steps compiled (issue 12): mindlite eager vs mindlite @jit vs PyTorch eager vs
torch.compile (vs JAX's jit when installed), side by side in one run.

    python benchmarks/jit_step.py [--seconds 2] [--no-torch-compile] [--profile]

Workloads (float32, batch 64; the nets of benchmarks/train_step.py and the digits demo):
- MLP 64-128-10 (Dense -> ReLU -> Dense), SGD momentum 0.9;
- the LeNet-style CNN on 1x8x8 digits (2 conv + 2 pool + 2 dense), SGD momentum 0.9.
mindlite eager: nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD) in PYNATIVE_MODE;
mindlite @jit: the same cell under GRAPH_MODE: forward, backward (graph autodiff) and the
optimizer's in-place updates are one compiled graph. The PyTorch twins start from copies of
mindlite's initial weights; the first steps' losses are compared before timing (mindlite @jit
against mindlite eager, PyTorch against mindlite). JAX: the same MLP as a pure function, its
step under jax.jit (an optional dependency; the column is '-' without it).

Prints a markdown table: median µs per step (mindlite's two sides take turns in rounds; the
PyTorch/JAX sides run in a child process, taking turns among themselves: two libraries'
spinning thread pools in one process starve each other on 2 cores), the ratios, the first-call
(compile) time of each compiled side. `--profile` prints cProfile's top functions of one
@jit step of each net.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import mindlite as ms
from mindlite import Tensor, nn

_spec = importlib.util.spec_from_file_location(
    "train_step_bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_step.py"))
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)
torch = ts.torch
WORKLOADS = (("MLP 64-128-10", ts.mindlite_mlp, (ts.BATCH, 64)),
             ("CNN 1x8x8 (2 conv, 2 dense)", ts.mindlite_cnn, (ts.BATCH, 1, 8, 8)))
try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None


def mindlite_step(net, x, y, graph):
    """A TrainOneStepCell step, run under GRAPH_MODE when graph (compiled into one graph)."""
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), learning_rate=ts.LR, momentum=ts.MOMENTUM)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    train.set_train()
    xt, yt = Tensor(x), Tensor(y)
    mode = ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE

    def step():
        ms.set_context(mode=mode)
        try:
            return train(xt, yt)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return step


def jax_mlp_step(ms_net, x, y):
    """The MLP's SGD-momentum step as a pure function under jax.jit (weights from mindlite)."""
    params = [jnp.asarray(p.asnumpy()) for p in ms_net.trainable_params()]
    moments = [jnp.zeros_like(p) for p in params]
    xj, yj = jnp.asarray(x), jnp.asarray(y)

    def loss_fn(ps):
        w1, b1, w2, b2 = ps
        h = jax.nn.relu(xj @ w1.T + b1)
        logits = h @ w2.T + b2
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, yj[:, None], 1))

    @jax.jit
    def update(ps, ms_):
        loss, grads = jax.value_and_grad(loss_fn)(ps)
        ms_ = [ts.MOMENTUM * m + g for m, g in zip(ms_, grads)]
        return loss, [p - ts.LR * m for p, m in zip(ps, ms_)], ms_

    state = [params, moments]

    def step():
        loss, state[0], state[1] = update(state[0], state[1])
        return loss.block_until_ready()
    return step


def first_call_ms(step):
    t0 = time.perf_counter()
    step()
    return (time.perf_counter() - t0) * 1e3


def _losses(step, n=5):
    out = []
    for _ in range(n):
        v = step()
        out.append(float(v.asnumpy() if hasattr(v, "asnumpy") else v.item()
                         if hasattr(v, "item") else v))
    return out


def run_twins(cases, args):
    """The PyTorch / JAX sides in a child process (their thread pools and mindlite's must not
    share one process's cores), from the same initial weights, data and reference losses;
    without mindlite's malloc policy (csrc/runtime/malloc_policy.cc), as their users run."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, init_net, x, y, ref) in enumerate(cases):
            np.savez(os.path.join(tmp, f"{i}.npz"), x=x, y=y, ref=np.asarray(ref),
                     *[p.asnumpy() for p in init_net.trainable_params()])
        cmd = [sys.executable, os.path.abspath(__file__), "--twins", tmp,
               "--seconds", str(args.seconds)] + (["--no-torch-compile"]
                                                  if args.no_torch_compile else [])
        env = dict(os.environ, MINDLITE_MALLOC_TUNE="0")   # glibc's defaults, as theirs
        out = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if out.returncode:
        raise SystemExit(f"the PyTorch/JAX side failed:\n{out.stdout}{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["us"], [tuple(c) for c in result["compiles"]]


def twins_main(folder, args):
    us, compiles = {}, []
    for i, (name, make, _) in enumerate(WORKLOADS):
        data = np.load(os.path.join(folder, f"{i}.npz"))
        net = make()
        for k, p in enumerate(net.trainable_params()):
            p.set_data(Tensor(data[f"arr_{k}"]))
        x, y, ref = data["x"], data["y"], list(data["ref"])
        twins = {}
        if torch:
            twins["torch eager"] = ts.torch_step(ts.torch_like(net), x, y)
            if not args.no_torch_compile:
                twins["torch.compile"] = ts.torch_step(torch.compile(ts.torch_like(net)), x, y)
        if jax is not None and name.startswith("MLP"):
            twins["jax jit"] = jax_mlp_step(net, x, y)
        for side in ("torch.compile", "jax jit"):
            if side in twins:
                compiles.append((name, side, first_call_ms(twins[side])))
        for side, step in twins.items():
            if side == "torch eager":
                _losses(step, 1)             # the compiled sides made theirs at the first call
            other = _losses(step, 4)
            if max(abs(a - b) for a, b in zip(ref[1:], other)) > 1e-3:
                raise SystemExit(f"{name}: {side} disagrees with mindlite: {ref[1:]} vs {other}")
        us[name] = ts.median_us(twins, args.seconds) if twins else {}
    print(json.dumps({"us": us, "compiles": compiles}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="timing budget per side and net")
    p.add_argument("--no-torch-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--profile", action="store_true", help="cProfile one @jit step of each net")
    p.add_argument("--twins", help=argparse.SUPPRESS)       # the child process's mode
    args = p.parse_args()
    if args.twins:
        return twins_main(args.twins, args)
    rng = np.random.default_rng(0)
    cases, compiles, jits, us = [], [], {}, {}
    # mindlite first, for every net, before any PyTorch op starts its thread pool: spinning
    # OpenMP and BLAS pools of two libraries in one process starve each other on 2 cores
    for name, make, shape in WORKLOADS:
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, 10, ts.BATCH).astype(np.int32)
        ms.set_seed(0)
        eager_net, jit_net, init_net = make(), make(), make()
        for net in (jit_net, init_net):
            for a, b in zip(net.trainable_params(), eager_net.trainable_params()):
                a.set_data(Tensor(b.asnumpy().copy()))
        eager_step = mindlite_step(eager_net, x, y, False)
        jit_step = mindlite_step(jit_net, x, y, True)
        compiles.append((name, "mindlite @jit", first_call_ms(jit_step)))
        ref = _losses(eager_step)
        got = _losses(jit_step, 4)            # the jit side made its first step compiling
        if max(abs(a - b) for a, b in zip(ref[1:], got)) > 1e-4:
            raise SystemExit(f"{name}: mindlite @jit and eager disagree: {ref[1:]} vs {got}")
        jits[name] = jit_step
        us[name] = ts.median_us({"mindlite eager": eager_step, "mindlite @jit": jit_step},
                                args.seconds)
        cases.append((name, init_net, x, y, ref))
    if torch or jax is not None:
        twin_us, twin_compiles = run_twins(cases, args)
        for name in twin_us:
            us[name].update(twin_us[name])
        compiles += twin_compiles
    rows = []
    cols = ["mindlite eager", "mindlite @jit", "torch eager", "torch.compile", "jax jit"]
    for name, *_ in cases:
        u = us[name]
        cells = [f"{u[c]:.1f}" if c in u else "-" for c in cols]
        ratios = [f"{u['mindlite @jit'] / u[c]:.2f}" if c in u else "-"
                  for c in ("mindlite eager", "torch eager", "jax jit")]
        rows.append(f"| {name}, batch {ts.BATCH} | " + " | ".join(cells + ratios) + " |")
    print(f"One training step (forward + backward + SGD momentum {ts.MOMENTUM}), float32, "
          f"median µs; torch threads {torch.get_num_threads() if torch else '-'}\n")
    print("| workload | mindlite eager | mindlite @jit | torch eager | torch.compile | jax jit "
          "| @jit/eager | @jit/torch eager | @jit/jax |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print("\nFirst call (compile + one step), ms\n")
    print("| workload | side | ms |")
    print("|---|---|---:|")
    for name, side, t in compiles:
        print(f"| {name} | {side} | {t:.0f} |")
    if args.profile:
        for name, step in jits.items():
            ts.profile(f"{name} @jit", step)


if __name__ == "__main__":
    main()
