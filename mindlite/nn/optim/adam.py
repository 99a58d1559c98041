"""nn/optim/adam."""
__all__ = []
