"""Metrics of text, vector and segmentation similarity and of ranking (mindspore.train /
mindspore.nn): BleuScore (corpus BLEU with n-gram clipping and the brevity penalty;
`smooth` adds one to each n-gram count), CosineSimilarity (pairwise similarity of the rows
of the accumulated input), Dice (the Dice coefficient of predictions and a one-hot
target), ROC (false and true positive rates per threshold, one curve per class with
`class_num`). Evaluation-side metrics: they accumulate numpy arrays on the host, as
MindSpore's."""
import collections
import math

import numpy as np

from .metrics import Metric, rearrange_inputs

__all__ = ["BleuScore", "CosineSimilarity", "Dice", "ROC"]


def _ngrams(tokens, n):
    return collections.Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


class BleuScore(Metric):
    """BLEU over a corpus: update(candidates, references) with a token list per candidate
    and a list of reference token lists per candidate."""

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        if isinstance(n_gram, bool) or not isinstance(n_gram, int) or not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', 'n_gram' must be an int in [1, 4], but got "
                             f"{n_gram!r}")
        self.n_gram, self.smooth = n_gram, bool(smooth)
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._pred_len = 0.0
        self._ref_len = 0.0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'BleuScore.update', it needs 2 inputs (candidates, "
                             f"references), but got {len(inputs)}")
        cands, refs = inputs
        if len(cands) != len(refs):
            raise ValueError("For 'BleuScore.update', 'candidates' and 'references' must have "
                             f"the same length, but got {len(cands)} and {len(refs)}")
        for cand, ref_list in zip(cands, refs):
            self._pred_len += len(cand)
            lens = [len(r) for r in ref_list]
            self._ref_len += min(lens, key=lambda r: (abs(r - len(cand)), r))
            for n in range(1, self.n_gram + 1):
                counts = _ngrams(cand, n)
                best = collections.Counter()
                for r in ref_list:
                    best |= _ngrams(r, n)
                self._numerator[n - 1] += sum((counts & best).values())
                self._denominator[n - 1] += max(len(cand) - n + 1, 0)

    def eval(self):
        if self._pred_len == 0 and self._ref_len == 0:
            raise RuntimeError("For 'BleuScore', call 'update' before 'eval'")
        if min(self._numerator) == 0.0:
            return 0.0
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        log_p = np.log(precision).sum() / self.n_gram
        bp = 1.0 if self._pred_len > self._ref_len else \
            math.exp(1 - self._ref_len / self._pred_len)
        return float(bp * math.exp(log_p))


class CosineSimilarity(Metric):
    """Pairwise similarity of the rows of the accumulated (N, D) input: 'cosine' or 'dot';
    reduction 'none' (the N x N matrix), 'sum' or 'mean' (per row); zero_diagonal zeroes
    each row's similarity with itself."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        if similarity not in ("cosine", "dot"):
            raise ValueError(f"For 'CosineSimilarity', 'similarity' must be 'cosine' or "
                             f"'dot', but got {similarity!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"For 'CosineSimilarity', 'reduction' must be 'none', 'sum' or "
                             f"'mean', but got {reduction!r}")
        self.similarity, self.reduction = similarity, reduction
        self.zero_diagonal = bool(zero_diagonal)
        self.clear()

    def clear(self):
        self._rows = []

    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"For 'CosineSimilarity.update', it needs 1 input, but got "
                             f"{len(inputs)}")
        self._rows.append(np.asarray(self._convert_data(inputs[0]), np.float64))

    def eval(self):
        if not self._rows:
            raise RuntimeError("For 'CosineSimilarity', call 'update' before 'eval'")
        x = np.concatenate(self._rows, 0)
        if self.similarity == "cosine":
            x = x / np.linalg.norm(x, axis=1, keepdims=True)
        sim = x @ x.T
        if self.zero_diagonal:
            np.fill_diagonal(sim, 0)
        if self.reduction == "sum":
            return sim.sum(-1)
        if self.reduction == "mean":
            return sim.mean(-1)
        return sim


class Dice(Metric):
    """Dice coefficient 2 |y_pred * y| / (|y_pred|^2 + |y|^2 + smooth) of each update,
    summed and divided by the number of rows seen (MindSpore 2.10's normalisation)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, (int, float)) or isinstance(smooth, bool) or smooth <= 0:
            raise ValueError(f"For 'Dice', 'smooth' must be a positive float, but got "
                             f"{smooth!r}")
        self.smooth = float(smooth)
        self.clear()

    def clear(self):
        self._dice_sum, self._samples = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'Dice.update', it needs 2 inputs (y_pred, y), but got "
                             f"{len(inputs)}")
        y_pred = np.asarray(self._convert_data(inputs[0]), np.float64)
        y = np.asarray(self._convert_data(inputs[1]), np.float64)
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'Dice.update', 'y_pred' and 'y' must have the same shape, "
                             f"but got {y_pred.shape} and {y.shape}")
        inter = (y_pred.reshape(-1) * y.reshape(-1)).sum()
        union = (y_pred.reshape(-1) ** 2).sum() + (y.reshape(-1) ** 2).sum()
        self._dice_sum += 2 * inter / (union + self.smooth)
        self._samples += y.shape[0] if y.ndim else 1   # MindSpore 2.10 divides by the rows

    def eval(self):
        if self._samples == 0:
            raise RuntimeError("For 'Dice', call 'update' before 'eval'")
        return float(self._dice_sum / self._samples)


def _roc(scores, labels):
    """fpr, tpr, thresholds of one binary problem (thresholds descending, the first one
    max + 1, no intermediate point dropped)."""
    order = np.argsort(-scores, kind="mergesort")
    s, y = scores[order], labels[order]
    distinct = np.where(np.diff(s))[0]
    idx = np.r_[distinct, y.size - 1]
    tps = np.cumsum(y)[idx]
    fps = 1 + idx - tps
    thresholds = s[idx]
    tps, fps = np.r_[0, tps], np.r_[0, fps]
    thresholds = np.r_[thresholds[0] + 1, thresholds]
    fpr = fps / fps[-1] if fps[-1] > 0 else np.full(fps.shape, np.nan)
    tpr = tps / tps[-1] if tps[-1] > 0 else np.full(tps.shape, np.nan)
    return fpr, tpr, thresholds


class ROC(Metric):
    """The receiver operating characteristic: binary (scores and labels, `pos_label` the
    positive label) or per class (`class_num`: (N, C) scores and int labels)."""

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        if class_num is not None and (not isinstance(class_num, int) or class_num < 1):
            raise ValueError(f"For 'ROC', 'class_num' must be a positive int or None, but got "
                             f"{class_num!r}")
        self.class_num, self.pos_label = class_num, pos_label
        self.clear()

    def clear(self):
        self._preds, self._labels = [], []

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'ROC.update', it needs 2 inputs (y_pred, y), but got "
                             f"{len(inputs)}")
        self._preds.append(np.asarray(self._convert_data(inputs[0])))
        self._labels.append(np.asarray(self._convert_data(inputs[1])))

    def eval(self):
        if not self._preds:
            raise RuntimeError("For 'ROC', call 'update' before 'eval'")
        pred = np.concatenate(self._preds, 0)
        label = np.concatenate(self._labels, 0)
        if self.class_num is None or pred.ndim == 1:
            pos = 1 if self.pos_label is None else self.pos_label
            return _roc(pred.reshape(-1), (label.reshape(-1) == pos).astype(np.float64))
        fprs, tprs, ths = [], [], []
        for c in range(self.class_num):
            f, t, th = _roc(pred[:, c], (label == c).astype(np.float64))
            fprs.append(f)
            tprs.append(t)
            ths.append(th)
        return fprs, tprs, ths
