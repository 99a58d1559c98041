"""Tokenizers of mindspore.dataset.text on numpy string columns (a 0-d string or a 1-D
array of words): WhitespaceTokenizer, UnicodeCharTokenizer, RegexTokenizer, BasicTokenizer
(BERT's: punctuation and CJK characters split off, optional lower case with accents
stripped, [CLS] / [SEP] / [UNK] / [PAD] / [MASK] / [unusedN] kept whole), WordpieceTokenizer
(greedy longest match against a Vocab, `##` continuations), BertTokenizer (both) and
PythonTokenizer. With `with_offsets=True` each returns (tokens, offsets_start,
offsets_limit): UTF-8 byte offsets, uint32, in the text the tokenizer saw after its own
normalisation (as MindSpore's)."""
import re
import unicodedata

import numpy as np

from .transforms import NormalizeForm, strings

__all__ = ["WhitespaceTokenizer", "UnicodeCharTokenizer", "RegexTokenizer", "BasicTokenizer",
           "WordpieceTokenizer", "BertTokenizer", "PythonTokenizer"]

_UNUSED = re.compile(r"\[CLS\]|\[SEP\]|\[UNK\]|\[PAD\]|\[MASK\]|\[unused\d+\]")


def _blen(s):
    return len(s.encode("utf-8"))


def _result(tokens, with_offsets):
    """tokens: [(text, byte start, byte limit)] -> the column(s) MindSpore returns."""
    words = np.array([t for t, _, _ in tokens] or [""], dtype=str)
    if not tokens:
        words = np.array([""], dtype=str)
        starts, limits = np.zeros(1, np.uint32), np.zeros(1, np.uint32)
    else:
        starts = np.array([a for _, a, _ in tokens], np.uint32)
        limits = np.array([b for _, _, b in tokens], np.uint32)
    return (words, starts, limits) if with_offsets else words


def _one_text(op, data):
    arr = strings(op, data)
    if arr.ndim != 0 and arr.size != 1:
        raise ValueError(f"For '{op}', the input must be one string (a 0-d array), but got "
                         f"shape {arr.shape}")
    return str(arr.reshape(-1)[0])


def _is_space(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch):
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def _split(text, base, keep_whitespace, split_punct):
    """Tokens of `text` (starting at byte `base`): whitespace runs separate (kept as tokens
    with keep_whitespace), punctuation and CJK characters stand alone."""
    out, word, start, pos = [], "", base, base
    for ch in text:
        n = _blen(ch)
        if _is_space(ch):
            if word:
                out.append((word, start, pos))
                word = ""
            if keep_whitespace:
                if out and out[-1][2] == pos and _is_space(out[-1][0][-1]):
                    out[-1] = (out[-1][0] + ch, out[-1][1], pos + n)
                else:
                    out.append((ch, pos, pos + n))
        elif split_punct and (_is_punct(ch) or _is_cjk(ch)):
            if word:
                out.append((word, start, pos))
                word = ""
            out.append((ch, pos, pos + n))
        else:
            if not word:
                start = pos
            word += ch
        pos += n
    if word:
        out.append((word, start, pos))
    return out


class WhitespaceTokenizer:
    def __init__(self, with_offsets=False):
        self.with_offsets = bool(with_offsets)

    def __call__(self, data):
        text = _one_text("WhitespaceTokenizer", data)
        return _result(_split(text, 0, False, False), self.with_offsets)


class UnicodeCharTokenizer:
    def __init__(self, with_offsets=False):
        self.with_offsets = bool(with_offsets)

    def __call__(self, data):
        text = _one_text("UnicodeCharTokenizer", data)
        out, pos = [], 0
        for ch in text:
            out.append((ch, pos, pos + _blen(ch)))
            pos += _blen(ch)
        return _result(out, self.with_offsets)


class RegexTokenizer:
    """Split at matches of delim_pattern; delimiters that also match keep_delim_pattern
    become tokens."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        self.delim = re.compile(delim_pattern)
        self.keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None
        self.with_offsets = bool(with_offsets)

    def __call__(self, data):
        text = _one_text("RegexTokenizer", data)
        out, last = [], 0
        for m in self.delim.finditer(text):
            if m.start() > last:
                out.append((text[last:m.start()], last, m.start()))
            if self.keep is not None and self.keep.fullmatch(m.group()):
                out.append((m.group(), m.start(), m.end()))
            last = m.end()
        if last < len(text):
            out.append((text[last:], last, len(text)))
        # character offsets -> byte offsets
        out = [(t, _blen(text[:a]), _blen(text[:b])) for t, a, b in out]
        return _result(out, self.with_offsets)


def _normalise(text, lower_case, form):
    if lower_case:
        text = unicodedata.normalize("NFD", text.casefold())
        return "".join(c for c in text if unicodedata.category(c) != "Mn")
    if form is not NormalizeForm.NONE:
        return unicodedata.normalize(form.name, text)
    return text


class BasicTokenizer:
    def __init__(self, lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        if not isinstance(normalization_form, NormalizeForm):
            raise TypeError(f"For 'BasicTokenizer', 'normalization_form' must be a "
                            f"NormalizeForm, but got {normalization_form!r}")
        self.lower_case, self.keep_whitespace = bool(lower_case), bool(keep_whitespace)
        self.form, self.preserve = normalization_form, bool(preserve_unused_token)
        self.with_offsets = bool(with_offsets)

    def tokens(self, text):
        """[(token, byte start, byte limit)] of one string."""
        pieces = []
        last = 0
        if self.preserve:
            for m in _UNUSED.finditer(text):
                pieces.append((text[last:m.start()], False))
                pieces.append((m.group(), True))
                last = m.end()
        pieces.append((text[last:], False))
        out, pos = [], 0
        for piece, whole in pieces:
            if whole:
                out.append((piece, pos, pos + _blen(piece)))
                pos += _blen(piece)
                continue
            norm = _normalise(piece, self.lower_case, self.form)
            norm = "".join(c for c in norm if not (unicodedata.category(c) == "Cc" and
                                                   c not in "\t\n\r") and c != "\ufffd")
            out += _split(norm, pos, self.keep_whitespace, True)
            pos += _blen(norm)
        return out

    def __call__(self, data):
        return _result(self.tokens(_one_text("BasicTokenizer", data)), self.with_offsets)


class WordpieceTokenizer:
    """Each word split greedily into the longest vocabulary pieces (later pieces prefixed
    with suffix_indicator); a word with no split, or longer than max_bytes_per_token bytes,
    becomes unknown_token (the word itself when unknown_token is '')."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", with_offsets=False):
        from .vocab import Vocab
        if not isinstance(vocab, Vocab):
            raise TypeError(f"For 'WordpieceTokenizer', 'vocab' must be a Vocab, but got "
                            f"{type(vocab).__name__}")
        self.vocab, self.suffix = vocab, suffix_indicator
        self.max_bytes, self.unknown = int(max_bytes_per_token), unknown_token
        self.with_offsets = bool(with_offsets)

    def pieces(self, word):
        """[(piece, byte start, byte limit)] of one word (offsets within the word)."""
        if _blen(word) > self.max_bytes:
            return [(self.unknown or word, 0, _blen(word))]
        out, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while start < end:
                sub = word[start:end]
                if start > 0:
                    sub = self.suffix + sub
                if sub in self.vocab:
                    found = sub
                    break
                end -= 1
            if found is None:
                return [(self.unknown or word, 0, _blen(word))]
            out.append((found, _blen(word[:start]), _blen(word[:end])))
            start = end
        return out

    def __call__(self, data):
        words = strings("WordpieceTokenizer", data).reshape(-1).tolist()
        out = [p for w in words for p in self.pieces(w)]
        return _result(out, self.with_offsets)


class BertTokenizer:
    """BasicTokenizer, then WordpieceTokenizer on its words (offsets in the text)."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form,
                                    preserve_unused_token)
        self.wordpiece = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token,
                                            unknown_token)
        self.with_offsets = bool(with_offsets)

    def __call__(self, data):
        out = []
        for word, start, _ in self.basic.tokens(_one_text("BertTokenizer", data)):
            out += [(p, start + a, start + b) for p, a, b in self.wordpiece.pieces(word)]
        return _result(out, self.with_offsets)


class PythonTokenizer:
    """tokenizer(str) -> list of str, applied to one string."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError(f"For 'PythonTokenizer', 'tokenizer' must be callable, but got "
                            f"{type(tokenizer).__name__}")
        self.tokenizer = tokenizer

    def __call__(self, data):
        return np.array(list(self.tokenizer(_one_text("PythonTokenizer", data))), dtype=str)
