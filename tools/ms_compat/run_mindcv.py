"""Run mindcv's model zoo (MindSpore's vision models, `pip download --no-deps mindcv==0.3.0`,
unpacked outside this repository) on real MindSpore and on mindlite, and compare.

    python tools/ms_compat/run_mindcv.py --mindcv DIR --work DIR [--models a,b | --all]
        [--ms-python /opt/msvenv/bin/python] [--only ms|ml] [--timeout 900] [--out table.md]

DIR of --mindcv holds the `mindcv` package. Per model, each engine in its own process:
1. MindSpore (`--ms-python`, mindcv on its path): `mindcv.create_model(name)` after
   set_seed(0); save_checkpoint; an input batch (2 images of the model's default size, or
   of SMALL_INPUT's for convolutional models that take one; normal(0, 1), fixed seed) and
   labels; the eval-mode output; the gradient of the loss
   sparse-softmax-cross-entropy(net(x)[0], y) for every trainable parameter in eval mode and
   in train mode (dropout and drop-path cells left in eval mode, so both engines compute the
   same function), and the train-mode gradient once more for the batch in reverse order; all
   saved in WORK/<model>/.
2. mindlite (the `mindspore` alias package of this folder first on the path, the same
   mindcv): builds the model with mindcv's own code, loads the MindSpore checkpoint
   (load_param_into_net, strict; the parameter names must be MindSpore's), runs the same
   steps, then the gradients once more with the parameters cast to float64.
Agreement: every eval output with max|ml - ms| <= 1e-4 max|ms|; every eval-mode gradient
with max|ml - ms| <= 1e-3 max|ms|. A gradient where mindlite's float32 value misses but its
float64 value meets the bound counts as agreeing, and the table says how many did: a ReLU or
max-pool unit whose float32 input lies within rounding of zero or of a tie takes the other
branch in one engine (seen on squeezenet1_0: two ReLU units of mindlite's float32 forward
flip against float64, none of MindSpore's; its float32 gradient then matches mindlite's
float64 one within 1e-6). Train-mode gradients are compared the same way with a float32
noise term added to the bound: twice the largest of MindSpore's own spread (its gradient for
the reversed batch against its own: equal in exact arithmetic) and mindlite's (its float32
gradients for the batch and the reversed batch against each other and its float64 one).
Where some gradient still disagrees, both engines run once more on a second batch (seed 1):
a unit within rounding of a ReLU kink on the first batch may have flipped in MindSpore's
float32 forward only (seen on shufflenet_v1_g3_05: the residual sum of features[6] is
+4.1e-7 in MindSpore, -3.2e-7 in mindlite, whose float64 forward agrees), which no noise
bound of mindlite's can see; a difference of semantics shows on the second batch too.
Batch-norm statistics of a batch of 2 make train-mode gradients ill-conditioned: e.g. a
BN gamma followed by ReLU and another BN has an exactly
zero gradient in exact arithmetic (positive homogeneity), pure rounding in float32, and on
mobilenet_v2 MindSpore's gradient for the reversed batch differs from its own by 200%.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback

from mindcv_table import stored, table

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# one variant per module of mindcv 0.3.0's registry (the smallest; two where the module
# holds two families: resnet / resnext, convnext / convnextv2, regnet x / y)
MODELS = [
    "resnet18", "resnext50_32x4d", "mobilenet_v1_025", "mobilenet_v2_035_224",
    "mobilenet_v3_small_075", "efficientnet_b0", "squeezenet1_0", "shufflenet_v1_g3_05",
    "shufflenet_v2_x0_5", "densenet121", "vgg11", "googlenet", "inception_v3", "inception_v4",
    "ghostnet_050", "regnet_x_200mf", "regnet_y_200mf", "convnext_tiny", "convnextv2_atto",
    "vit_b_32_224", "swin_tiny", "swinv2_tiny_window8", "mobilevit_xx_small", "pvt_tiny",
    "pvt_v2_b0", "BiT_resnet50", "cait_xxs24_224", "cmt_tiny", "coat_lite_tiny",
    "convit_tiny", "crossvit_9", "dpn92", "edgenext_xx_small", "halonet_50t", "hrnet_w32",
    "mae_b_16_224_finetune", "mixnet_s", "mlp_mixer_s_p32", "mnasnet_050", "nasnet_a_4x1056",
    "pit_ti", "pnasnet", "poolformer_s12", "repmlp_t224", "repvgg_a0", "res2net50",
    "resnest14", "resnetv2_50", "rexnet_09", "seresnet18", "skresnet18", "visformer_tiny",
    "volo_d1", "xception", "xcit_tiny_12_p16_224",
]
# convolutional models whose global pooling takes a smaller image: run at this size (the
# 2 shared cores make 224x224 batches in MindSpore's PyNative mode take minutes per model)
SMALL_INPUT = dict.fromkeys(
    ("resnet18", "resnext50_32x4d", "mobilenet_v1_025", "mobilenet_v2_035_224",
     "mobilenet_v3_small_075", "efficientnet_b0", "squeezenet1_0", "shufflenet_v1_g3_05",
     "shufflenet_v2_x0_5", "densenet121", "googlenet", "ghostnet_050", "regnet_x_200mf",
     "regnet_y_200mf", "convnext_tiny", "convnextv2_atto", "mobilevit_xx_small",
     "BiT_resnet50", "dpn92", "edgenext_xx_small", "hrnet_w32", "mixnet_s", "mnasnet_050",
     "poolformer_s12", "repvgg_a0", "res2net50", "resnest14", "resnetv2_50", "rexnet_09",
     "seresnet18", "skresnet18", "xception"), 64) | {"inception_v3": 96, "inception_v4": 96}
# models whose registry entry needs arguments (swinv2 to run on its own default-size input)
CREATE_KWARGS = {"swinv2_tiny_window8": {"image_size": 256}}
# attributes set after the build: inception_v3 runs on SMALL_INPUT's images with its
# auxiliary head off (the head's 5x5 pool and 5x5 conv need 299x299 images; its parameters
# stay in the checkpoint, with zero gradients in both engines)
AFTER_BUILD = {"inception_v3": {"aux_logits": False}}
EVAL_RTOL, GRAD_RTOL = 1e-4, 1e-3
DROP_CELLS = ("Dropout", "DropPath", "DropBlock")


# ---- the part that runs inside one engine --------------------------------------------------
def _flat(out):
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _flat(o)]
    return [out]


def _input_size(mindcv, name):
    if name in SMALL_INPUT:
        return (3, SMALL_INPUT[name], SMALL_INPUT[name])
    if name in CREATE_KWARGS and "image_size" in CREATE_KWARGS[name]:
        return (3,) + (CREATE_KWARGS[name]["image_size"],) * 2
    from mindcv.models.registry import _model_to_module
    module = sys.modules[f"mindcv.models.{_model_to_module[name]}"]
    cfg = getattr(module, "default_cfgs", {}).get(name, {})
    return tuple(cfg.get("input_size", (3, 224, 224)))


def _build(ms, mindcv, name):
    ms.set_seed(0)
    net = mindcv.create_model(name, pretrained=False, **CREATE_KWARGS.get(name, {}))
    for attr, value in AFTER_BUILD.get(name, {}).items():
        setattr(net, attr, value)
    return net


def _loss_function(ms, net, train):
    """loss(x, y) = sparse softmax cross-entropy of the first output; in train mode the
    dropout-like cells stay in eval mode (both engines then compute the same function)."""
    net.set_train(train)
    if train:
        for _, cell in net.cells_and_names():
            if any(k in type(cell).__name__ for k in DROP_CELLS):
                cell.set_train(False)
    ce = ms.ops.SparseSoftmaxCrossEntropyWithLogits()

    def loss(x, y):
        return ce(_flat(net(x))[0], y)
    return loss


def _grads(ms, net, train, x, y):
    weights = net.trainable_params()
    loss, grads = ms.value_and_grad(_loss_function(ms, net, train), None, weights)(
        ms.Tensor(x), ms.Tensor(y))
    return float(loss.asnumpy()), {w.name: g.asnumpy() for w, g in zip(weights, grads)}


def _save(work, name, arrays):
    np.savez(os.path.join(work, name), **arrays)


def _load_net(ms, net, work, params):
    want = json.load(open(os.path.join(work, "params.json")))
    if sorted(params) != want:
        missing = sorted(set(want) - set(params))[:5]
        extra = sorted(set(params) - set(want))[:5]
        raise AssertionError(f"parameter names differ: MindSpore's not here {missing}, here "
                             f"not MindSpore's {extra}")
    not_loaded, unused = ms.load_param_into_net(net, ms.load_checkpoint(
        os.path.join(work, "ms.ckpt")), strict_load=True)
    if not_loaded or unused:
        raise AssertionError(f"checkpoint: not loaded {not_loaded[:5]}, unused {unused[:5]}")


def engine_main(args):
    if args.engine == "ms":        # this folder (first on sys.path) holds the alias package
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    import mindspore as ms
    sys.path.insert(0, args.mindcv)
    import mindcv
    name = args.model
    work = os.path.join(args.work, name, *([f"seed{args.seed}"] if args.seed else []))
    os.makedirs(work, exist_ok=True)
    result = {"model": name, "engine": args.engine, "stage": "import"}
    t0 = time.time()
    try:
        result["stage"] = "build"
        net = _build(ms, mindcv, name)
        params = {p.name: p for p in net.get_parameters()}
        if args.engine == "ms":
            ms.save_checkpoint(net, os.path.join(work, "ms.ckpt"))
            rng = np.random.default_rng(args.seed)
            x = rng.standard_normal((2,) + _input_size(mindcv, name)).astype(np.float32)
            y = rng.integers(0, 1000, 2).astype(np.int32)
            np.savez(os.path.join(work, "inputs.npz"), x=x, y=y)
            json.dump(sorted(params), open(os.path.join(work, "params.json"), "w"))
        else:
            result["stage"] = "load"
            _load_net(ms, net, work, params)
            data = np.load(os.path.join(work, "inputs.npz"))
            x, y = data["x"], data["y"]
        tag = "" if args.engine == "ms" else "_ml"
        result["stage"] = "eval"
        net.set_train(False)
        np.savez(os.path.join(work, f"outputs{tag}.npz"),
                 *[o.asnumpy() for o in _flat(net(ms.Tensor(x)))])
        result["stage"] = "eval-mode gradient"
        _save(work, f"grads_eval{tag}.npz", _grads(ms, net, False, x, y)[1])
        result["stage"] = "train-mode gradient"
        result["loss"], grads = _grads(ms, net, True, x, y)
        _save(work, f"grads{tag}.npz", grads)
        # the same batch in reverse order: the same gradient in exact arithmetic, so the
        # difference is the engine's own float32 spread on this model
        _save(work, f"grads_rev{tag}.npz", _grads(ms, net, True, x[::-1].copy(),
                                                  y[::-1].copy())[1])
        if args.engine == "ml":
            result["stage"] = "gradients in float64"
            try:                                # the checkpoint again: BN's moving stats moved
                _load_net(ms, net, work, params)
                for p in net.get_parameters():
                    if p.dtype == ms.float32:
                        p.set_dtype(ms.float64)
                x64 = x.astype(np.float64)
                _save(work, "grads_eval_ml64.npz", _grads(ms, net, False, x64, y)[1])
                _save(work, "grads_ml64.npz", _grads(ms, net, True, x64, y)[1])
            except Exception as e:              # noqa: BLE001  (the arbiter is optional)
                result["float64"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        result["seconds"] = round(time.time() - t0, 1)
        result["stage"] = "done"
        if args.engine == "ml":
            result.update(compare(work))
    except Exception as e:                      # noqa: BLE001  (reported per model)
        result["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        result["trace"] = traceback.format_exc()[-3000:]
        result["seconds"] = round(time.time() - t0, 1)
    json.dump(result, open(os.path.join(work, f"result_{args.engine}.json"), "w"), indent=1)


def _npz(work, name):
    path = os.path.join(work, name)
    return dict(np.load(path)) if os.path.exists(path) else None


def _maxdiff(a, b):
    return float(np.abs(a.astype(np.float64) - b).max()) if b.size else 0.0


def _rel(a, b):
    scale = float(np.abs(b).max()) if b.size else 0.0
    err = _maxdiff(a, b)
    return err / scale if scale > 0 else (0.0 if err <= 1e-6 else float("inf"))


def _grad_rel(a, b):
    """max|a - b| / max(max|b|, 1e-3): at most 1e-3 exactly where the gradient bound (1e-3
    of max|b|, at least 1e-6) holds; a gradient zero in exact arithmetic (a bias before a
    normalisation) is rounding noise of about 1e-9, not a relative error of 100%."""
    scale = float(np.abs(b).max()) if b.size else 0.0
    return _maxdiff(a, b) / max(scale, 1e-6 / GRAD_RTOL)


def compare(work):
    """The agreement checks of the module docstring, from the arrays both engines saved."""
    res = {}
    outs, ref = _npz(work, "outputs_ml.npz"), _npz(work, "outputs.npz")
    if sorted(outs) != sorted(ref) or any(outs[k].shape != ref[k].shape for k in ref):
        res["error"] = (f"eval outputs differ in structure: {[a.shape for a in outs.values()]} "
                        f"vs MindSpore's {[b.shape for b in ref.values()]}")
        return res
    res["eval_rel"] = max(_rel(outs[k], ref[k]) for k in ref)
    ge, ge_ref = _npz(work, "grads_eval_ml.npz"), _npz(work, "grads_eval.npz")
    if sorted(ge) != sorted(ge_ref):
        res["error"] = f"gradients of different parameters: {sorted(set(ge) ^ set(ge_ref))[:5]}"
        return res
    res["grad_eval_rel"] = max((_grad_rel(ge[k], ge_ref[k]) for k in ge_ref), default=0.0)
    res["grad_eval_over"], res["grads_eval_by64"] = _grad_check(
        ge_ref, None, ge, _npz(work, "grads_eval_ml64.npz"))
    ref, rev = _npz(work, "grads.npz"), _npz(work, "grads_rev.npz")
    g32 = _npz(work, "grads_ml.npz")
    res["grad_train_over"], res["grads_train_by64"] = _grad_check(
        ref, rev, g32, _npz(work, "grads_ml64.npz"), _npz(work, "grads_rev_ml.npz"))
    res.update(grad_train_rel=max((_grad_rel(g32[k], ref[k]) for k in ref), default=0.0),
               ms_spread=max((_grad_rel(rev[k], ref[k]) for k in ref), default=0.0),
               grads=len(ref))
    res["agree"] = (res["eval_rel"] <= EVAL_RTOL and not res["grad_eval_over"]
                    and not res["grad_train_over"])
    return res


def _grad_check(ref, rev, g32, g64, rev32=None):
    """Parameters whose gradient disagrees, and how many agree only through float64 (the
    module docstring's rule): eval mode (rev None) within 1e-3 of max|MindSpore's|, train
    mode within that plus twice the float32 noise of that gradient, the largest of
    MindSpore's spread and mindlite's (float32 for the batch and the reversed batch, float64)
    differences; mindlite's float32 gradient, or else its float64 one."""
    over, by64 = [], 0
    for k in ref:
        scale = float(np.abs(ref[k]).max()) if ref[k].size else 0.0
        tol = max(GRAD_RTOL * scale, 1e-6)
        if rev is not None:
            noise = _maxdiff(rev[k], ref[k])
            for a, b in ((g32, g64), (rev32, g32), (rev32, g64)):
                if a is not None and b is not None:
                    noise = max(noise, _maxdiff(a[k], b[k]))
            tol += 2 * noise
        if _maxdiff(g32[k], ref[k]) <= tol:
            continue
        if g64 is not None and _maxdiff(g64[k], ref[k]) <= tol:
            by64 += 1
        else:
            over.append(k)
    return over, by64


# ---- the driver ----------------------------------------------------------------------------
def run_engine(engine, model, args, seed=0):
    env = dict(os.environ)
    if engine == "ml":
        python = sys.executable
        env["PYTHONPATH"] = os.pathsep.join([HERE, ROOT])
    else:
        python = args.ms_python
        env.pop("PYTHONPATH", None)
    cmd = [python, os.path.abspath(__file__), "--engine", engine, "--model", model,
           "--mindcv", args.mindcv, "--work", args.work, "--seed", str(seed)]
    path = os.path.join(args.work, model, *([f"seed{seed}"] if seed else []),
                        f"result_{engine}.json")
    if os.path.exists(path):
        os.remove(path)
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                              timeout=args.timeout, cwd=args.work)
    except subprocess.TimeoutExpired:
        return {"model": model, "engine": engine, "error": f"timeout after {args.timeout} s"}
    if os.path.exists(path):
        return json.load(open(path))
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"model": model, "engine": engine, "error": f"crashed: {tail[0][:300]}"}


def relu_flips(model, args):
    """relu_flips.py's diagnosis of batch 1 (MindSpore float32 against mindlite float64)."""
    path = os.path.join(args.work, model, "relu_flips.json")
    if os.path.exists(path):
        os.remove(path)
    for engine, python in (("ms", args.ms_python), ("ml", sys.executable)):
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if engine == "ml":
            env["PYTHONPATH"] = os.pathsep.join([HERE, ROOT])
        try:
            subprocess.run([python, os.path.join(HERE, "relu_flips.py"), "--engine", engine,
                            "--model", model, "--work", args.work, "--mindcv", args.mindcv],
                           env=env, capture_output=True, timeout=args.timeout, cwd=args.work)
        except subprocess.TimeoutExpired:
            return None
    return json.load(open(path)) if os.path.exists(path) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mindcv", required=True, help="folder holding the mindcv package")
    ap.add_argument("--work", required=True, help="scratch folder for checkpoints and arrays")
    ap.add_argument("--models", default="", help="comma-separated model names")
    ap.add_argument("--all", action="store_true", help="every model of MODELS")
    ap.add_argument("--ms-python", default="/opt/msvenv/bin/python")
    ap.add_argument("--only", choices=("ms", "ml"), help="run one engine (ms: regenerate)")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--out", help="write the table (markdown) here too")
    ap.add_argument("--report", action="store_true",
                    help="run nothing: the table of the results stored in --work")
    ap.add_argument("--engine", choices=("ms", "ml"), help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.mindcv, args.work = os.path.abspath(args.mindcv), os.path.abspath(args.work)
    if args.engine:
        return engine_main(args)
    models = MODELS if args.all else [m for m in args.models.split(",") if m]
    rows = []
    for model in models:
        if args.report:                 # the stored arrays compared again (this file's rules)
            rows.append(stored(args.work, model, compare))
            continue
        ms_path = os.path.join(args.work, model, "result_ms.json")
        if args.only == "ml" and os.path.exists(ms_path):
            ms_r = json.load(open(ms_path))
        else:
            ms_r = run_engine("ms", model, args)
        ml_r = {} if args.only == "ms" or ms_r.get("error") else run_engine("ml", model, args)
        if ml_r and not ml_r.get("error") and not ml_r.get("agree"):
            # a second batch: a unit within rounding of a ReLU kink or a max-pool tie on the
            # first batch (which the float32 noise bound cannot see when only MindSpore's
            # forward flips it) is not there on another; a difference of semantics is
            again = run_engine("ms", model, args, seed=1)
            again = again if again.get("error") else run_engine("ml", model, args, seed=1)
            ml_r["seed1"] = again
            if not again.get("agree"):
                ml_r["relu_flips"] = relu_flips(model, args)
        rows.append((ms_r, ml_r))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    text = table(rows)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    import numpy as np
    main()
