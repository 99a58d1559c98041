"""The markdown table of run_mindcv.py's results: one row per model, the verdict from the
agreement checks (run_mindcv.compare), batch 2's counts and relu_flips.py's diagnosis; and
the results a run left in its work folder (`run_mindcv.py --report`)."""
import json
import os


def _flip_note(flips):
    if not flips:
        return ""
    if not flips["flips"]:
        return f"; no ReLU unit flipped in {flips['calls']} ReLU calls"
    units = sum(f[2] for f in flips["flips"])
    worst = max(abs(f[4]) / f[5] for f in flips["flips"] if f[5] > 0)
    return (f"; MindSpore's float32 forward flips {units} ReLU unit(s) against mindlite's "
            f"float64 (|x| <= {worst:.0e} of the call's max), in "
            f"{[f[1] for f in flips['flips']][:3]}")


def _graph_note(folder):
    """ms_graph_grads.py's check where it ran: mindlite's eval-mode gradients against
    MindSpore's GRAPH_MODE ones (the runner's relative measure, the better of float32 and
    float64 per parameter)."""
    import numpy as np
    paths = [os.path.join(folder, n) for n in ("grads_eval_graph.npz", "grads_eval_ml.npz",
                                               "grads_eval_ml64.npz")]
    if not all(os.path.exists(p) for p in paths):
        return ""
    graph, g32, g64 = (np.load(p) for p in paths)
    worst = max(min(float(np.abs(g[k].astype(np.float64) - graph[k]).max()) for g in (g32, g64))
                / max(float(np.abs(graph[k]).max()), 1e-3) for k in graph.files)
    return f"; against MindSpore's GRAPH_MODE gradient (ms_graph_grads.py): max {worst:.1e}"


def stored(work, model, compare):
    """The (MindSpore, mindlite) results a run left in work/<model>/ (seed 1's as the
    driver attaches them), its arrays compared again by `compare`."""
    def load(*parts):
        path = os.path.join(work, model, *parts)
        return json.load(open(path)) if os.path.exists(path) else {}
    ms_r = load("result_ms.json") or {"model": model, "error": "not run"}
    ml_r = load("result_ml.json")
    if ml_r and not ml_r.get("error"):
        ml_r.update(compare(os.path.join(work, model)))
    again = load("seed1", "result_ml.json") or load("seed1", "result_ms.json")
    if again and again.get("engine") == "ml" and not again.get("error"):
        again.update(compare(os.path.join(work, model, "seed1")))
    if ml_r and again:
        ml_r["seed1"] = again
    if ml_r and load("relu_flips.json"):
        ml_r["relu_flips"] = load("relu_flips.json")
    if ml_r:
        ml_r["graph_note"] = _graph_note(os.path.join(work, model))
    return ms_r, ml_r


def _fmt(v):
    return "-" if v is None else f"{v:.1e}"


def table(rows):
    lines = ["| model | MS s | ml s | eval out | eval grad | train grad | MS spread | result |",
             "|---|---|---|---|---|---|---|---|"]
    for ms_r, ml_r in rows:
        if ms_r.get("error"):
            verdict = f"MindSpore fails: {ms_r['error']}"
        elif ml_r.get("error"):
            verdict = f"mindlite fails at {ml_r.get('stage')}: {ml_r['error']}"
        elif ml_r.get("agree"):
            verdict = "agrees"
        elif ml_r.get("seed1", {}).get("agree"):
            bad = ml_r["grad_eval_over"] + ml_r["grad_train_over"]
            verdict = (f"agrees on batch 2 (batch 1: {len(bad)} gradients off, e.g. "
                       f"{bad[:1]})")
        else:
            bad = ml_r["grad_eval_over"] + ml_r["grad_train_over"]
            verdict = f"differs: {len(bad)} gradients, e.g. {bad[:2]}" if bad else \
                "differs: eval output"
            again = ml_r.get("seed1", {})
            if bad and "grad_eval_over" in again:
                verdict += (f"; batch 2: {len(again['grad_eval_over'])} eval-mode, "
                            f"{len(again['grad_train_over'])} train-mode")
            verdict += _flip_note(ml_r.get("relu_flips")) + ml_r.get("graph_note", "")
        if ml_r.get("float64"):
            verdict += f" (float64 check: {ml_r['float64'][:60]})"
        by64 = ml_r.get("grads_eval_by64", 0) + ml_r.get("grads_train_by64", 0)
        if by64:
            verdict += f" ({by64} gradients through float64)"
        lines.append(f"| {ms_r['model']} | {ms_r.get('seconds', '-')} | "
                     f"{ml_r.get('seconds', '-')} | {_fmt(ml_r.get('eval_rel'))} | "
                     f"{_fmt(ml_r.get('grad_eval_rel'))} | {_fmt(ml_r.get('grad_train_rel'))} | "
                     f"{_fmt(ml_r.get('ms_spread'))} | {verdict} |")
    return "\n".join(lines)
