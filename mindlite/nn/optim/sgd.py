"""nn/optim/sgd."""
__all__ = []
