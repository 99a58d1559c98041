"""nn/learning_rate_schedule."""
__all__ = []
