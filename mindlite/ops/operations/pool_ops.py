"""pool_ops primitives."""
__all__ = []
