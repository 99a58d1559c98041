"""nn/loss/loss."""
__all__ = []
