"""Vocabularies of mindspore.dataset.text: Vocab (token <-> id maps built from a list, a
dict, a file or a dataset's columns) and Lookup (tokens -> ids, unknown tokens mapped to
`unknown_token`'s id)."""
import collections

import numpy as np

from .transforms import strings

__all__ = ["Vocab", "Lookup"]


class Vocab:
    """A token -> id map. Build it with Vocab.from_list / from_dict / from_file /
    from_dataset."""

    def __init__(self):
        self._ids = {}

    def __contains__(self, token):
        return token in self._ids

    def __len__(self):
        return len(self._ids)

    @classmethod
    def _build(cls, words, special_tokens, special_first):
        special = list(special_tokens or [])
        if len(set(special)) != len(special):
            raise ValueError(f"For 'Vocab', 'special_tokens' must be unique, but got {special}")
        words = [w for w in dict.fromkeys(words) if w not in special]
        order = special + words if special_first else words + special
        v = cls()
        v._ids = {w: i for i, w in enumerate(order)}
        return v

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order (special tokens first or last); a repeated word is an error."""
        if len(set(word_list)) != len(word_list):
            raise ValueError("For 'Vocab.from_list', 'word_list' must not repeat a word")
        return cls._build(word_list, special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict):
        """The given ids (non-negative ints)."""
        if not all(isinstance(i, int) and i >= 0 for i in word_dict.values()):
            raise ValueError("For 'Vocab.from_dict', the ids must be non-negative ints")
        v = cls()
        v._ids = dict(word_dict)
        return v

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None,
                  special_first=True):
        """One word per line (the text before `delimiter` when given), the first vocab_size
        lines."""
        words = []
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n").rstrip("\r")
                word = line.split(delimiter)[0] if delimiter else line
                if word:
                    words.append(word)
                if vocab_size is not None and len(words) >= vocab_size:
                    break
        return cls._build(words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None,
                     special_tokens=None, special_first=True):
        """Words of the dataset's string columns, by falling frequency (ties alphabetical),
        those within freq_range = (min, max) counts, the top_k most frequent."""
        counts = collections.Counter()
        cols = [columns] if isinstance(columns, str) else columns
        for row in dataset.create_dict_iterator(output_numpy=True):
            for name, value in row.items():
                if cols is None or name in cols:
                    counts.update(strings("Vocab.from_dataset", value).reshape(-1).tolist())
        lo, hi = freq_range if freq_range is not None else (0, None)
        items = [(w, c) for w, c in counts.items() if c >= (lo or 0) and (hi is None or
                                                                          c <= hi)]
        items.sort(key=lambda wc: (-wc[1], wc[0]))
        if top_k is not None:
            items = items[:top_k]
        return cls._build([w for w, _ in items], special_tokens, special_first)

    def vocab(self):
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """An id per token (-1 for a token not in the vocabulary); a str gives an int."""
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(t, -1) for t in np.asarray(tokens).reshape(-1).tolist()]

    def ids_to_tokens(self, ids):
        """A token per id ('' for an unknown id); an int gives a str."""
        rev = {i: w for w, i in self._ids.items()}
        if isinstance(ids, (int, np.integer)):
            return rev.get(int(ids), "")
        return [rev.get(int(i), "") for i in np.asarray(ids).reshape(-1).tolist()]


class Lookup:
    """Tokens -> ids of `data_type` (int32); a token not in the vocabulary gets
    unknown_token's id, or is a ValueError when unknown_token is None."""

    def __init__(self, vocab, unknown_token=None, data_type=None):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"For 'Lookup', 'vocab' must be a Vocab, but got "
                            f"{type(vocab).__name__}")
        if unknown_token is not None and unknown_token not in vocab:
            raise ValueError(f"For 'Lookup', 'unknown_token' {unknown_token!r} is not in the "
                             f"vocabulary")
        from ...common import dtype as mstype
        self.vocab, self.unknown = vocab, unknown_token
        self.np_dtype = mstype.int32.np if data_type is None else \
            mstype.to_type(data_type).np

    def __call__(self, data):
        arr = strings("Lookup", data)
        ids = []
        default = self.vocab._ids.get(self.unknown) if self.unknown is not None else None
        for t in arr.reshape(-1).tolist():
            i = self.vocab._ids.get(t, default)
            if i is None:
                raise ValueError(f"For 'Lookup', the token {t!r} is not in the vocabulary and "
                                 f"no 'unknown_token' was given")
            ids.append(i)
        return np.array(ids, self.np_dtype).reshape(arr.shape)
