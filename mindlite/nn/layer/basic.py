"""nn/layer/basic."""
__all__ = []
