"""mindlite.experimental: MindSpore's `mindspore.experimental` namespace (the PyTorch-style
optimizers and learning-rate schedulers of `experimental.optim`)."""
