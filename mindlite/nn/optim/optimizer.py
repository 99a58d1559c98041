"""nn/optim/optimizer."""
__all__ = []
