"""Runtime: the CPU kernel runtime and its memory pool."""
