"""Slicing and indexing primitives: Slice, StridedSlice, Gather, OneHot, Unique, MaskedSelect."""
__all__ = []
