"""nn/layer/activation."""
__all__ = []
