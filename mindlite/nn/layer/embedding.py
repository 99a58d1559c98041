"""nn/layer/embedding."""
__all__ = []
