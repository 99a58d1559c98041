"""Data-parallel training of train_digits.py's MLP and CNN over MPI, as a MindSpore
data-parallel script:

    msrun --worker_num=4 --local_worker_num=4 --join=True examples/train_digits_dp.py \
        [--quick] [--batch 16] [--out out_dp]
    msrun --worker_num=8 --local_worker_num=4 --hostfile hosts --join=True \
        examples/train_digits_dp.py                                    # several machines
    (or mpiexec -n 4 python examples/train_digits_dp.py; docs/distributed.md)

Every rank runs this script: `init()` joins the MPI job, the auto-parallel context turns on
DATA_PARALLEL with gradients_mean, the training set is sharded by num_shards/shard_id (each
rank reads its own 1/N of every epoch, shuffled alike on every rank by the common seed),
and train.Model averages the gradients across the ranks after every backward pass
(nn.DistributedGradReducer), so every rank holds the same weights; a step trains on
N x batch images (default: 64 whatever N, so the learning-rate schedule of train_digits.py
fits). Rank 0 prints the loss (averaged over the ranks with ops.AllReduce) and
the test accuracy per epoch, and alone saves checkpoints (ModelCheckpoint on rank 0 only);
the checkpoint is then loaded by one process into a fresh net, which must predict as the
trained one. Exit status 1 when a net misses its accuracy bar (train_digits.py's), the
ranks' weights differ, or the reload changes a prediction.
"""
import argparse
import os
import sys
import time

import numpy as np

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.communication import get_group_size, get_rank, init
from mindlite.dataset import NumpySlicesDataset
from mindlite.train import Callback, CheckpointConfig, ModelCheckpoint

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_digits import (BARS, EPOCHS, LEARNING_RATE, MOMENTUM, NETS,  # noqa: E402
                          cosine_decay_lr, create_net, load_data, predict)


GLOBAL_BATCH = 64       # images a step over all ranks, unless --batch sets the per-rank batch


def log(*args):
    if get_rank() == 0:
        print(*args, flush=True)


def same_on_every_rank(net):
    """Whether every rank holds the same weights (max - min over the ranks is 0)."""
    ok = True
    for p in net.trainable_params():
        hi = ops.AllReduce(ops.ReduceOp.MAX)(p).asnumpy()
        lo = ops.AllReduce(ops.ReduceOp.MIN)(p).asnumpy()
        ok &= bool(np.array_equal(hi, lo))
    return ok


def train_net(name, data, epochs, batch, seed, out_dir):
    rank, size = get_rank(), get_group_size()
    x_train, y_train = data[:2]
    shape = NETS[name][1]
    ms.set_seed(seed)              # one seed on every rank: same weights, same shuffle order
    dataset = NumpySlicesDataset({"image": x_train.reshape(shape), "label": y_train},
                                 shuffle=True, num_shards=size, shard_id=rank).batch(batch)
    steps = dataset.get_dataset_size()
    model_net = create_net(name, seed)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    lr = cosine_decay_lr(0.0, LEARNING_RATE, steps * epochs, steps, epochs)
    optimizer = nn.SGD(model_net.trainable_params(), learning_rate=lr, momentum=MOMENTUM)
    model = ms.Model(model_net, loss_fn, optimizer)
    callbacks = []
    if rank == 0:                  # checkpoints from rank 0 only
        config = CheckpointConfig(save_checkpoint_steps=steps * epochs, keep_checkpoint_max=1)
        callbacks.append(ModelCheckpoint(prefix=name.lower(), directory=out_dir, config=config))
    log(f"\n{name}: {size} ranks x batch {batch} = {size * batch} images a step, "
        f"{steps} steps/epoch")
    report = EpochReport(name, model_net, loss_fn, data, steps * size * batch)
    model.train(epochs, dataset, callbacks=[report] + callbacks)
    return model_net, report.accuracy


class EpochReport(Callback):
    """After each epoch (on every rank: the loss is averaged over the ranks with AllReduce),
    rank 0 prints the training loss, the test accuracy and the samples/s of the epoch."""

    def __init__(self, name, net, loss_fn, data, samples):
        self.name, self.net, self.loss_fn, self.data, self.samples = \
            name, net, loss_fn, data, samples
        self.accuracy, self.t0 = 0.0, 0.0

    def on_train_epoch_begin(self, run_context):
        self.t0 = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        wall = time.perf_counter() - self.t0
        x_train, y_train, x_test, y_test = self.data
        shape, rank, size = NETS[self.name][1], get_rank(), get_group_size()
        self.net.set_train(False)
        mine = self.loss_fn(self.net(Tensor(x_train[rank::size].reshape(shape))),
                            Tensor(y_train[rank::size]))
        loss = float(ops.AllReduce()(mine).asnumpy()) / size
        self.accuracy = float(np.mean(predict(self.net, x_test, shape) == y_test))
        self.net.set_train(True)
        epoch = run_context.original_args().cur_epoch_num
        log(f"{self.name} epoch {epoch:2d}: train loss {loss:.4f} (mean over ranks), test "
            f"accuracy {self.accuracy:.4f}, {self.samples / wall:.0f} samples/s")


def check_reload(name, net, data, out_dir, seed):
    """Rank 0: load the checkpoint rank 0 saved into a fresh net; predictions must match."""
    x_test, shape = data[2], NETS[name][1]
    ckpts = sorted(f for f in os.listdir(out_dir)
                   if f.startswith(name.lower()) and f.endswith(".ckpt"))
    fresh = create_net(name, seed + 1)
    not_loaded, _ = ms.load_param_into_net(fresh, ms.load_checkpoint(
        os.path.join(out_dir, ckpts[-1])))
    same = not not_loaded and np.array_equal(predict(net, x_test, shape),
                                             predict(fresh, x_test, shape))
    print(f"{name}: checkpoint {os.path.join(out_dir, ckpts[-1])} (saved by rank 0) reloaded "
          f"in one process: {'identical predictions' if same else 'MISMATCH'}", flush=True)
    return same


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 epochs")
    parser.add_argument("--batch", type=int, default=None,
                        help="images per rank per step (default: 64 / the number of ranks)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="out_dp")
    parser.add_argument("--nets", default="MLP,CNN")
    args = parser.parse_args()
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    run = "quick" if args.quick else "full"
    if get_rank() == 0:
        os.makedirs(args.out, exist_ok=True)
    ops.Barrier()()
    data = load_data()
    failed = False
    for name in args.nets.split(","):
        batch = args.batch or max(1, GLOBAL_BATCH // get_group_size())
        net, acc = train_net(name, data, EPOCHS[run], batch, args.seed, args.out)
        if not same_on_every_rank(net):
            log(f"{name}: the ranks' weights DIFFER")
            failed = True
        if acc < BARS[run][name]:
            log(f"{name}: test accuracy {acc:.4f} is below the bar {BARS[run][name]}")
            failed = True
        if get_rank() == 0 and not check_reload(name, net, data, args.out, args.seed):
            failed = True
    failed = bool(ops.AllReduce(ops.ReduceOp.MAX)(Tensor(np.array([failed]))).asnumpy()[0])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
