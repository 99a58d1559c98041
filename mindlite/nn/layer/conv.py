"""nn/layer/conv."""
__all__ = []
