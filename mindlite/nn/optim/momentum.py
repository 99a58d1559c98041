"""nn/optim/momentum."""
__all__ = []
