"""Vision input pipeline throughput (issue 14): images/s of an ImageFolder pipeline with 1, 2
and 4 map workers, threads and processes, side by side in one run (and MindSpore 2.x's
dataset engine on the same files, when a Python that has it is given).

    python benchmarks/dataset_vision.py [--images 512] [--epochs 2] [--mindspore PYTHON]

Files: `--images` pictures (half JPEG, half PNG; 320x240 smooth random content so JPEG
decoding does real work) in two class folders of a temporary ImageFolder tree.
Pipeline: ImageFolderDataset(shuffle=False) -> map([Decode(), Resize(256), RandomCrop(224),
RandomHorizontalFlip(), Normalize(ImageNet mean/std), HWC2CHW()], "image",
num_parallel_workers=w[, python_multiprocessing=True]) -> batch(32). Each configuration
iterates `--epochs` epochs; the best epoch's images/s is reported (the first epoch of a
process pool includes forking it). With `--mindspore`, the same pipeline runs in that Python
with mindspore.dataset (its C++ transforms and thread pool) and is printed beside (MindSpore
refuses more workers than CPUs, so its rows stop at the CPU count).

Prints a markdown table: images/s per configuration and the speed-up over 1 worker.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]
WORKERS = (1, 2, 4)


def make_images(root, count, seed=0):
    """`count` 320x240 images under root/class_a, root/class_b (alternating JPEG and PNG)."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    for cls in ("class_a", "class_b"):
        os.makedirs(os.path.join(root, cls), exist_ok=True)
    for i in range(count):
        coarse = rng.integers(0, 256, (15, 20, 3), dtype=np.uint8)
        img = Image.fromarray(coarse).resize((320, 240), Image.BILINEAR)
        noise = rng.integers(-12, 13, (240, 320, 3))
        img = Image.fromarray(np.clip(np.asarray(img) + noise, 0, 255).astype(np.uint8))
        cls = "class_a" if i % 2 == 0 else "class_b"
        ext = "jpg" if (i // 2) % 2 == 0 else "png"
        img.save(os.path.join(root, cls, f"img_{i:05d}.{ext}"), quality=90)


def run_pipeline(ds, vision, root, workers, processes, epochs):
    """-> best images/s over `epochs` epochs, images per epoch."""
    ops = [vision.Decode(), vision.Resize(256), vision.RandomCrop(224),
           vision.RandomHorizontalFlip(), vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    data = ds.ImageFolderDataset(root, shuffle=False)
    kwargs = {"python_multiprocessing": True} if processes else {}
    data = data.map(ops, input_columns="image", num_parallel_workers=workers, **kwargs)
    data = data.batch(32)
    it = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    best, count = 0.0, 0
    for _ in range(epochs):
        start, count = time.perf_counter(), 0
        for image, _label in it:
            count += image.shape[0]
            assert image.shape[1:] == (3, 224, 224) and image.dtype == np.float32
        best = max(best, count / (time.perf_counter() - start))
    return best, count


def mindspore_child(root, epochs):
    """Run in the MindSpore Python: print {workers: images/s} as JSON."""
    import mindspore.dataset as ds
    import mindspore.dataset.vision as vision
    # MindSpore refuses more workers than CPUs
    counts = sorted({min(w, os.cpu_count()) for w in WORKERS})
    print(json.dumps({str(w): run_pipeline(ds, vision, root, w, False, epochs)[0]
                      for w in counts}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--mindspore", default=None,
                        help="a Python interpreter with mindspore installed")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return mindspore_child(args.child, args.epochs)
    import mindlite.dataset as ds
    import mindlite.dataset.vision as vision
    with tempfile.TemporaryDirectory() as root:
        make_images(root, args.images)
        rows = []
        for processes in (False, True):
            for w in WORKERS:
                if processes and w == 1:
                    continue
                rate, count = run_pipeline(ds, vision, root, w, processes, args.epochs)
                rows.append((f"mindlite, {w} {'processes' if processes else 'threads'}", w,
                             rate))
        assert count == args.images
        if args.mindspore:
            proc = subprocess.run([args.mindspore, os.path.abspath(__file__), "--child", root,
                                   "--epochs", str(args.epochs)], capture_output=True,
                                  text=True, cwd=tempfile.gettempdir(), timeout=900)
            if proc.returncode == 0:
                ms_rates = json.loads(proc.stdout.strip().splitlines()[-1])
                rows += [(f"MindSpore, {w} threads", int(w), rate)
                         for w, rate in ms_rates.items()]
            else:
                print("MindSpore run failed:", proc.stderr.strip().splitlines()[-1:])
    base = {name.split(",")[0]: rate for name, w, rate in rows if w == 1}
    load = os.getloadavg()[0]
    print(f"\n{args.images} images (320x240, half JPEG, half PNG), {os.cpu_count()} CPUs "
          f"(load average {load:.1f} at the end); Decode, Resize(256), RandomCrop(224), Flip, "
          f"Normalize, HWC2CHW, batch 32\n")
    print("| pipeline | images/s | vs 1 worker |")
    print("|---|---:|---:|")
    for name, _, rate in rows:
        print(f"| {name} | {rate:.0f} | {rate / base[name.split(',')[0]]:.2f}x |")
    return None


if __name__ == "__main__":
    sys.exit(main())
