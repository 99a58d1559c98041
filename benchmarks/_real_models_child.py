"""The engines of benchmarks/real_models.py, each run in its own process by the parent:

    python benchmarks/_real_models_child.py KIND NET FOLDER [BATCH THREADS]

KIND: eager / jit (mindlite's train step), torch (PyTorch's), export (the PyTorch twin's ONNX
file and reference output), ort (onnxruntime inference), lite (mindlite's Lite runtime).
A child prints its first outputs (JSON), then times its call for each `seconds` line read
from stdin and answers with the per-call times (us).
"""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _torch_child import settle  # noqa: E402

LR, MOMENTUM, CLASSES = 0.01, 0.9, 1000


def _serve(call, first):
    """Prints `first` (JSON), then times `call` for each `seconds` line read from stdin."""
    print(json.dumps(first), flush=True)
    for line in sys.stdin:
        end = time.perf_counter() + json.loads(line)
        times = []
        while time.perf_counter() < end:
            t0 = time.perf_counter_ns()
            call()
            times.append((time.perf_counter_ns() - t0) / 1e3)
        settle()
        print(json.dumps(times), flush=True)


def _mindlite_train(net_name, folder, graph):
    import mindlite as ms
    import cnn_nets
    from mindlite import Tensor, nn
    data = np.load(os.path.join(folder, f"{net_name}_data.npz"))
    net = cnn_nets.mindlite_net(net_name, CLASSES)
    cnn_nets.load_weights(net, np.load(os.path.join(folder, f"{net_name}_w.npz")))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), learning_rate=LR, momentum=MOMENTUM)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    train.set_train()
    x, y = Tensor(data["train_x"]), Tensor(data["train_y"])
    if graph:
        ms.set_context(mode=ms.GRAPH_MODE)
    losses = [float(train(x, y).asnumpy()) for _ in range(3)]
    return lambda: train(x, y), losses


def _torch_train(net_name, folder):
    import torch
    import cnn_nets
    torch.set_num_threads(2)
    data = np.load(os.path.join(folder, f"{net_name}_data.npz"))
    net = cnn_nets.torch_net(net_name, CLASSES)
    cnn_nets.load_torch_weights(net, np.load(os.path.join(folder, f"{net_name}_w.npz")))
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.from_numpy(data["train_x"])
    y = torch.from_numpy(data["train_y"].astype(np.int64))

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss
    return step, [float(step().item()) for _ in range(3)]


def _torch_export(net_name, folder, batch):
    """Writes the PyTorch twin (eval mode) as ONNX and prints its logits on the input."""
    import torch
    import cnn_nets
    data = np.load(os.path.join(folder, f"{net_name}_data.npz"))
    net = cnn_nets.torch_net(net_name, CLASSES)
    cnn_nets.load_torch_weights(net, np.load(os.path.join(folder, f"{net_name}_w.npz")))
    net.eval()
    x = torch.from_numpy(data[f"infer_x{batch}"])
    path = os.path.join(folder, f"{net_name}_b{batch}.onnx")
    torch.onnx.export(net, x, path, dynamo=False, opset_version=13)
    with torch.no_grad():
        out = net(x).numpy()
    np.save(os.path.join(folder, f"{net_name}_b{batch}_ref.npy"), out)


def _ort_infer(net_name, folder, batch, threads):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads, opts.inter_op_num_threads = threads, 1
    sess = ort.InferenceSession(os.path.join(folder, f"{net_name}_b{batch}.onnx"), opts,
                                providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: np.load(os.path.join(folder, f"x{batch}.npy"))}
    call = lambda: sess.run(None, feed)[0]               # noqa: E731
    return call, call().reshape(-1).tolist()


def lite_model_bytes(net_name, folder, batch):
    """The .ms mindlite's converter makes of the mindlite net; of the ONNX file when the net
    does not convert. (bytes, how) or (None, why)."""
    import mindlite as ms
    import cnn_nets
    from mindlite.lite.converter import convert, convert_file
    data = np.load(os.path.join(folder, f"{net_name}_data.npz"))
    net = cnn_nets.mindlite_net(net_name, CLASSES)
    cnn_nets.load_weights(net, np.load(os.path.join(folder, f"{net_name}_w.npz")))
    net.set_train(False)
    errors = []
    try:
        return convert(net, ms.Tensor(data[f"infer_x{batch}"])), "net"
    except (NotImplementedError, ValueError, TypeError) as err:
        errors.append(f"net: {str(err)[:120]}")
    try:
        path = convert_file("ONNX", os.path.join(folder, f"{net_name}_b{batch}.onnx"),
                            os.path.join(folder, f"{net_name}_b{batch}_mindlite"))
        with open(path, "rb") as f:
            return f.read(), "onnx"
    except (NotImplementedError, ValueError, TypeError) as err:
        errors.append(f"onnx: {str(err)[:120]}")
    return None, "; ".join(errors)


def as_input_layout(x, shape):
    """x (NCHW) as a model input of `shape`: Lite converters make 4-D inputs NHWC (MindSpore
    Lite's --inputDataFormat default), and set_data_from_numpy takes any array of the right
    size, so NCHW bytes would be read as NHWC."""
    shape = [int(d) for d in shape]
    if x.ndim == 4 and list(x.shape) != shape and shape == [x.shape[i] for i in (0, 2, 3, 1)]:
        return np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    return x


def _lite_infer(net_name, folder, batch, threads):
    from mindlite import lite as mslite
    model_bytes, how = lite_model_bytes(net_name, folder, batch)
    if model_bytes is None:
        raise SystemExit(f"does not convert ({how})")
    ctx = mslite.Context()
    ctx.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_buffer(model_bytes, ctx, net_name)
    inputs = model.get_inputs()
    x = as_input_layout(np.load(os.path.join(folder, f"x{batch}.npy")), inputs[0].shape)

    def call():
        inputs[0].set_data_from_numpy(x)
        return model.predict(inputs)[0].get_data_to_numpy()
    call.model = model                    # real_models_profile.py --lite reads its program
    return call, call().reshape(-1).tolist()


def child_main(argv):
    kind, net_name, folder, *rest = argv
    sys.path.insert(0, HERE)
    if kind == "export":
        return _torch_export(net_name, folder, int(rest[0]))
    if kind in ("eager", "jit"):
        call, first = _mindlite_train(net_name, folder, kind == "jit")
    elif kind == "torch":
        call, first = _torch_train(net_name, folder)
    elif kind == "ort":
        call, first = _ort_infer(net_name, folder, int(rest[0]), int(rest[1]))
    elif kind == "lite":
        call, first = _lite_infer(net_name, folder, int(rest[0]), int(rest[1]))
    else:
        raise SystemExit(f"unknown child kind {kind!r}")
    _serve(call, first)


if __name__ == "__main__":
    child_main(sys.argv[1:])
