"""The fuzzer's MindSpore mode: the same generated programs run in real MindSpore 2.x
GRAPH_MODE (a side venv's python, one subprocess for a batch of programs), compared with
mindlite's eager results: outputs (dtype, shape, values within 1e-4), Parameter values
after each call. A program MindSpore refuses is counted, not reported; a difference is
listed for review (either side may be wrong: MindSpore is the spec, eager the oracle).

    compare_with_mindspore(python, seed, n) -> text summary
"""
import json
import os
import subprocess
import tempfile

import numpy as np

from .paths import STATIC_B, inputs, module_of, run_calls
from .program import RandomChoices, generate

_RUNNER = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms
ms.set_context(mode=ms.GRAPH_MODE)
for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[-1][:-3]
    data = np.load(path[:-3] + ".npz")
    calls = [[data[f"c{k}_{i}"] for i in range(int(data["n"]))] for k in range(2)]
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        net = mod.Net()
        results = []
        for args in calls:
            out = net(*[ms.Tensor(a) for a in args])
            out = out if isinstance(out, tuple) else (out,)
            results.append({"outputs": [[str(o.dtype), list(o.shape), o.asnumpy().tolist()]
                                        for o in out],
                            "params": {p.name: p.asnumpy().tolist()
                                       for p in net.get_parameters()}})
        mine = {}
        try:                                   # a MINDIR written by mindlite, run here
            cell = ms.nn.GraphCell(ms.load(path[:-3] + ".mindir"))
            out = cell(*[ms.Tensor(a) for a in calls[0]])
            out = out if isinstance(out, tuple) else (out,)
            mine = {"outputs": [[str(o.dtype), list(o.shape), o.asnumpy().tolist()]
                                for o in out]}
        except Exception as e:
            mine = {"error": type(e).__name__ + ": " + str(e).splitlines()[0][:200]}
        try:                                   # a MINDIR written here, for mindlite
            ms.export(mod.Net(), *[ms.Tensor(a) for a in calls[0]],
                      file_name=path[:-3] + "_ms", file_format="MINDIR")
        except Exception:
            pass
        print("@@" + json.dumps({"name": name, "results": results, "mindir": mine}),
              flush=True)
    except Exception as e:
        print("@@" + json.dumps({"name": name, "error": type(e).__name__ + ": " +
                                 str(e).splitlines()[0][:200]}), flush=True)
'''


def compare_with_mindspore(python, seed, n, timeout=1800):
    if not os.path.exists(python):
        return f"mindspore mode: {python} not found (skipped)"
    tmp = tempfile.mkdtemp(prefix="mindlite_ms_fuzz_")
    oracle, files = {}, []
    for k in range(n):
        program = generate(RandomChoices(seed * 100003 + k))
        mod = module_of(program)
        calls = [inputs(program, STATIC_B, 1), inputs(program, STATIC_B, 2)]
        net = mod.Net()
        want = run_calls(net.construct, calls, net)
        if any(w.error is not None for w in want):
            continue
        name = mod.__name__.replace("mindlite_fuzz", "ms_fuzz")
        path = os.path.join(tmp, name + ".py")
        with open(path, "w") as f:
            f.write(program.source.replace("import mindlite as ms", "import mindspore as ms")
                    .replace("from mindlite import", "from mindspore import"))
        arrays = {f"c{c}_{i}": t.asnumpy() for c, args in enumerate(calls)
                  for i, t in enumerate(args)}
        np.savez(path[:-3] + ".npz", n=len(calls[0]), **arrays)
        oracle[name] = (program, want)
        files.append(path)
        try:
            from ..train.export_api import export
            export(mod.Net(), *calls[0], file_name=path[:-3], file_format="MINDIR")
        except Exception:                      # noqa: BLE001 (refused: counted below)
            pass
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["GLOG_v"] = "3"
    r = subprocess.run([python, "-c", _RUNNER] + files, capture_output=True, text=True,
                       env=env, timeout=timeout, cwd=tmp)
    refused, same, differ = 0, 0, []
    files_ms = {"equal": 0, "refused": 0, "differ": 0}    # mindlite's MINDIR in MindSpore
    files_ml = {"equal": 0, "refused": 0, "differ": 0}    # MindSpore's MINDIR in mindlite
    for line in r.stdout.splitlines():
        if not line.startswith("@@"):
            continue
        got = json.loads(line[2:])
        program, want = oracle[got["name"]]
        if "error" in got:
            refused += 1
            continue
        diff = _differs(want, got["results"])
        if diff is None:
            same += 1
        else:
            differ.append((diff, program))
        mine = got.get("mindir", {})
        if "outputs" in mine:
            d = _differs(want[:1], [dict(mine, params={})], params=False)
            files_ms["equal" if d is None else "differ"] += 1
            if d is not None:
                differ.append(("mindlite's MINDIR in MindSpore: " + d, program))
        else:
            files_ms["refused"] += 1
        verdict = _load_theirs(os.path.join(tmp, got["name"] + "_ms.mindir"), want, program)
        files_ml[verdict] += 1
        if verdict == "differ":
            note = " (MindSpore's own GRAPH_MODE result differs too)" if diff else ""
            differ.append((f"MindSpore's MINDIR in mindlite differs from eager{note}",
                           program))
    lines = [f"mindspore mode: {len(files)} programs, {same} equal, {refused} refused by "
             f"MindSpore, {len(differ)} differ (rc {r.returncode})",
             f"  MINDIR written by mindlite, run by MindSpore: {files_ms}",
             f"  MINDIR written by MindSpore, run by mindlite: {files_ml}"]
    for diff, program in differ[:10]:
        lines.append(f"--- differs: {diff}\n{program.source.split('def construct')[-1]}")
    return "\n".join(lines)


def _load_theirs(path, want, program):
    """'equal' / 'refused' / 'differ': MindSpore's MINDIR of the program run by mindlite."""
    from ..nn import GraphCell
    from ..train.export_api import load
    if not os.path.exists(path):
        return "refused"
    try:
        out = GraphCell(load(path))(*inputs(program, STATIC_B, 1))
    except Exception:                          # noqa: BLE001 (a load or run refusal)
        return "refused"
    got = [(str(t.dtype), t.shape, t.asnumpy()) for t in
           (out if isinstance(out, tuple) else (out,))]
    w = want[0].outputs
    if len(got) != len(w) or any(
            not np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-4, atol=1e-4,
                            equal_nan=True) or tuple(sa) != tuple(sb)
            for (_, sa, a), (_, sb, b) in zip(w, got)):
        return "differ"
    return "equal"


def _differs(want, got, params=True):
    for k, (w, g) in enumerate(zip(want, got)):
        if len(w.outputs) != len(g["outputs"]):
            return f"call {k}: {len(g['outputs'])} outputs vs {len(w.outputs)}"
        for i, ((wd, ws, wa), (gd, gs, ga)) in enumerate(zip(w.outputs, g["outputs"])):
            ga = np.asarray(ga)
            if wd.lower() != gd.lower() or tuple(ws) != tuple(gs):
                return f"call {k} output {i}: MindSpore {gd}{gs}, mindlite {wd}{list(ws)}"
            if not np.allclose(wa.astype(np.float64), ga.astype(np.float64), rtol=1e-4,
                               atol=1e-4, equal_nan=True):
                return f"call {k} output {i}: MindSpore {ga.tolist()}, mindlite {wa.tolist()}"
        for name, wv in (w.params.items() if params else ()):
            gv = np.asarray(g["params"].get(name))
            if gv.shape != wv.shape or not np.allclose(wv, gv, rtol=1e-4, atol=1e-4,
                                                       equal_nan=True):
                return f"call {k}: Parameter {name} MindSpore {gv.tolist()}, mindlite " \
                       f"{wv.tolist()}"
    return None
