"""conv_ops primitives."""
__all__ = []
