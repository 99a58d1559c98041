"""nn/layer/pooling."""
__all__ = []
