"""norm_ops primitives."""
__all__ = []
