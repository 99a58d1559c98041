"""nn/wrap/cell_wrapper."""
__all__ = []
