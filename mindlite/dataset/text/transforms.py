"""String transforms of mindspore.dataset.text on numpy columns: CaseFold, NormalizeUTF8 and
the NormalizeForm enum, RegexReplace, ToNumber, Truncate, TruncateSequencePair,
SlidingWindow, Ngram, AddToken, and to_str / to_bytes (MindSpore's outputs on the same
inputs, tests/test_dataset_text.py)."""
import enum
import numbers
import re
import unicodedata

import numpy as np

__all__ = ["CaseFold", "NormalizeForm", "NormalizeUTF8", "RegexReplace", "ToNumber",
           "Truncate", "TruncateSequencePair", "SlidingWindow", "Ngram", "AddToken", "to_str",
           "to_bytes"]


def strings(op, data):
    """A numpy column of str (bytes decoded as UTF-8)."""
    arr = np.asarray(data)
    if arr.dtype.kind == "S":
        arr = np.char.decode(arr, "utf-8")
    if arr.dtype.kind != "U":
        raise TypeError(f"For '{op}', the input must be strings, but got {arr.dtype}")
    return arr


def _map(fn, arr):
    out = [fn(s) for s in arr.reshape(-1).tolist()]
    return np.array(out, dtype=str).reshape(arr.shape) if out else arr


class NormalizeForm(enum.Enum):
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class CaseFold:
    """Unicode case folding (lower case, also of ß and other special cases)."""

    def __call__(self, data):
        return _map(str.casefold, strings("CaseFold", data))


class NormalizeUTF8:
    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError(f"For 'NormalizeUTF8', 'normalize_form' must be a NormalizeForm, "
                            f"but got {normalize_form!r}")
        self.form = normalize_form

    def __call__(self, data):
        arr = strings("NormalizeUTF8", data)
        if self.form is NormalizeForm.NONE:
            return arr
        return _map(lambda s: unicodedata.normalize(self.form.name, s), arr)


class RegexReplace:
    def __init__(self, pattern, replace, replace_all=True):
        self.pattern, self.replace = re.compile(pattern), replace
        self.count = 0 if replace_all else 1

    def __call__(self, data):
        return _map(lambda s: self.pattern.sub(self.replace, s, count=self.count),
                    strings("RegexReplace", data))


class ToNumber:
    """Strings -> numbers of `data_type` (a mindlite dtype); a string that is not a number
    of that type is a ValueError."""

    def __init__(self, data_type):
        from ...common import dtype as mstype
        self.np_dtype = mstype.to_type(data_type).np

    def __call__(self, data):
        arr = strings("ToNumber", data)
        try:
            kind = np.dtype(self.np_dtype).kind
            vals = [int(s) if kind in "iu" else float(s) for s in arr.reshape(-1).tolist()]
            out = np.array(vals, dtype=object)
            info = np.iinfo(self.np_dtype) if kind in "iu" else None
            if info is not None and any(v < info.min or v > info.max for v in vals):
                raise ValueError("out of range")
            return out.astype(self.np_dtype).reshape(arr.shape)
        except ValueError as e:
            raise ValueError(f"For 'ToNumber', the strings {arr.tolist()} are not all numbers "
                             f"of type {np.dtype(self.np_dtype).name}: {e}") from None


def _positive(op, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {value!r}")
    return int(value)


class Truncate:
    """The first max_seq_len entries of a 1-D (or the last axis of a 2-D) column."""

    def __init__(self, max_seq_len):
        self.n = _positive("Truncate", "max_seq_len", max_seq_len)

    def __call__(self, data):
        arr = np.asarray(data)
        if arr.ndim not in (1, 2):
            raise ValueError(f"For 'Truncate', the column must be 1-D or 2-D, but got shape "
                             f"{arr.shape}")
        return arr[..., :self.n]


class TruncateSequencePair:
    """Shorten the longer of two columns, one entry at a time, until their total length is
    at most max_length."""

    def __init__(self, max_length):
        self.n = _positive("TruncateSequencePair", "max_length", max_length)

    def __call__(self, a, b):
        a, b = np.asarray(a), np.asarray(b)
        la, lb = len(a), len(b)
        while la + lb > self.n:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la], b[:lb]


class SlidingWindow:
    """Windows of `width` consecutive entries along `axis` (a new leading window axis)."""

    def __init__(self, width, axis=0):
        self.width, self.axis = _positive("SlidingWindow", "width", width), axis

    def __call__(self, data):
        arr = np.moveaxis(np.asarray(data), self.axis, 0)
        n = arr.shape[0] - self.width + 1
        if n <= 0:
            return np.empty((0, self.width) + arr.shape[1:], arr.dtype)
        out = np.stack([arr[k:k + self.width] for k in range(n)])
        return np.moveaxis(out, 1, self.axis + 1) if self.axis else out


class Ngram:
    """The n-grams (for each n in `n`) of a 1-D string column, joined by `separator`, with
    left_pad / right_pad = (token, count) added at the ends first (count capped at n - 1)."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        self.ns = [n] if isinstance(n, numbers.Integral) else list(n)
        for k in self.ns:
            _positive("Ngram", "n", k)
        self.left, self.right, self.sep = tuple(left_pad), tuple(right_pad), separator

    def __call__(self, data):
        words = strings("Ngram", data).reshape(-1).tolist()
        out = []
        for n in self.ns:
            seq = [self.left[0]] * min(self.left[1], n - 1) + words + \
                [self.right[0]] * min(self.right[1], n - 1)
            out += [self.sep.join(seq[k:k + n]) for k in range(len(seq) - n + 1)]
        return np.array(out, dtype=str)


class AddToken:
    """`token` added at the beginning (begin=True) or the end of a 1-D string column."""

    def __init__(self, token, begin=True):
        if not isinstance(token, str):
            raise TypeError(f"For 'AddToken', 'token' must be a str, but got {token!r}")
        self.token, self.begin = token, bool(begin)

    def __call__(self, data):
        words = strings("AddToken", data).reshape(-1).tolist()
        words = [self.token] + words if self.begin else words + [self.token]
        return np.array(words, dtype=str)


def to_str(array, encoding="utf8"):
    """A bytes array decoded to str."""
    arr = np.asarray(array)
    if arr.dtype.kind != "S":
        raise TypeError(f"For 'to_str', the input must be a bytes array, but got {arr.dtype}")
    return np.char.decode(arr, encoding)


def to_bytes(array, encoding="utf8"):
    """A str array encoded to bytes."""
    arr = np.asarray(array)
    if arr.dtype.kind != "U":
        raise TypeError(f"For 'to_bytes', the input must be a str array, but got {arr.dtype}")
    return np.char.encode(arr, encoding)
