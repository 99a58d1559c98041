"""PyNative execution: the executor singleton, the forward executor and the grad recorder."""
