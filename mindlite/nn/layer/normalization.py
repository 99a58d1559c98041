"""nn/layer/normalization."""
__all__ = []
