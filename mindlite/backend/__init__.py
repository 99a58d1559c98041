"""Backend: session factory, single-op KernelGraphs and the CPU session."""
