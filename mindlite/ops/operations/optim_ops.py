"""optim_ops primitives."""
__all__ = []
