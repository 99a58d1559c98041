"""loss_ops primitives."""
__all__ = []
