"""mindlite.dataset.text: MindSpore's text transforms on numpy string columns.

Tokenizers (tokenizers.py): WhitespaceTokenizer, UnicodeCharTokenizer, RegexTokenizer,
BasicTokenizer (BERT's), WordpieceTokenizer, BertTokenizer, PythonTokenizer; each with
`with_offsets=True` returns (tokens, offsets_start, offsets_limit) in UTF-8 bytes, uint32.
Vocabularies (vocab.py): Vocab (from_list / from_dict / from_file / from_dataset) and Lookup.
String transforms (transforms.py): CaseFold, NormalizeUTF8 (NormalizeForm), RegexReplace,
ToNumber, Truncate, TruncateSequencePair, SlidingWindow, Ngram, AddToken, to_str, to_bytes.
"""
from .tokenizers import (BasicTokenizer, BertTokenizer, PythonTokenizer, RegexTokenizer,
                         UnicodeCharTokenizer, WhitespaceTokenizer, WordpieceTokenizer)
from .transforms import (AddToken, CaseFold, Ngram, NormalizeForm, NormalizeUTF8,
                         RegexReplace, SlidingWindow, ToNumber, Truncate, TruncateSequencePair,
                         to_bytes, to_str)
from .vocab import Lookup, Vocab

__all__ = ["AddToken", "BasicTokenizer", "BertTokenizer", "CaseFold", "Lookup", "Ngram",
           "NormalizeForm", "NormalizeUTF8", "PythonTokenizer", "RegexReplace",
           "RegexTokenizer", "SlidingWindow", "ToNumber", "Truncate", "TruncateSequencePair",
           "UnicodeCharTokenizer", "Vocab", "WhitespaceTokenizer", "WordpieceTokenizer",
           "to_bytes", "to_str"]
