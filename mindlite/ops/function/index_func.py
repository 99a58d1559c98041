"""Tensor indexing (t[...] and t[...] = v) expressed with primitives."""
__all__ = []
