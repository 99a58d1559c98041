"""GradExecutor: the grad recorder the forward executor reports every op to.

`recording` is read by every cached runner after its kernel ran; while it is
False (no gradient being taken) recording costs one attribute read. The
autograd issue fills in `record` and the backward pass.
"""


class GradExecutor:
    def __init__(self):
        self.recording = False
        self.tape = None

    def record(self, prim, inputs, output):
        """Called after an op ran while `recording` is True."""
        if self.tape is not None:
            self.tape.append((prim, inputs, output))


GRAD_EXECUTOR = GradExecutor()
