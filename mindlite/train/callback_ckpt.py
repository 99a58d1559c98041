"""Checkpointing during training (MindSpore's CheckpointConfig and ModelCheckpoint).

ModelCheckpoint saves the training network (or `config.saved_network`) every
`save_checkpoint_steps` steps (or `save_checkpoint_seconds`) and once more at the end of
training, as `{prefix}-{epoch}_{step in epoch}.ckpt` in `directory`, keeping the newest
`keep_checkpoint_max` files of its prefix. As MindSpore, a prefix whose checkpoints already
exist in the directory becomes `{prefix}_1`, `{prefix}_2`, ... so runs never overwrite each
other. `async_save=True` writes from a background thread (one at a time; the values are
copied first, so training may go on changing the parameters); the end of training waits for it.
"""
import os
import re
import threading
import time

from .callback import Callback
from .serialization import save_checkpoint

__all__ = ["CheckpointConfig", "ModelCheckpoint"]


def _count(api, name, value):
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"For '{api}', '{name}' must be an int >= 0, but got {value!r}")
    return value


class CheckpointConfig:
    """When and what ModelCheckpoint saves. save_checkpoint_steps takes precedence over
    save_checkpoint_seconds, keep_checkpoint_max over keep_checkpoint_per_n_minutes.
    `append_info`: a list of "epoch_num", "step_num" and/or a dict of extra values to store."""

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, crc_check=False, remove_redundancy=False, format="ckpt",
                 **kwargs):
        api = "CheckpointConfig"
        self.save_checkpoint_steps = _count(api, "save_checkpoint_steps", save_checkpoint_steps)
        self.save_checkpoint_seconds = _count(api, "save_checkpoint_seconds",
                                              save_checkpoint_seconds)
        self.keep_checkpoint_max = _count(api, "keep_checkpoint_max", keep_checkpoint_max)
        self.keep_checkpoint_per_n_minutes = _count(api, "keep_checkpoint_per_n_minutes",
                                                    keep_checkpoint_per_n_minutes)
        if not self.save_checkpoint_steps and not self.save_checkpoint_seconds:
            raise ValueError("For 'CheckpointConfig', 'save_checkpoint_steps' and "
                             "'save_checkpoint_seconds' cannot both be 0")
        if not self.keep_checkpoint_max and not self.keep_checkpoint_per_n_minutes:
            raise ValueError("For 'CheckpointConfig', 'keep_checkpoint_max' and "
                             "'keep_checkpoint_per_n_minutes' cannot both be 0")
        for name, v in (("integrated_save", integrated_save), ("async_save", async_save),
                        ("crc_check", crc_check), ("exception_save", exception_save)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{api}', '{name}' must be a bool, but got {v!r}")
        if enc_key is not None:
            raise ValueError("For 'CheckpointConfig', encrypted checkpoints ('enc_key') are not "
                             "supported by mindlite")
        if format != "ckpt":
            raise ValueError(f"For 'CheckpointConfig', 'format' must be 'ckpt' (safetensors is "
                             f"not supported by mindlite), but got {format!r}")
        self.integrated_save, self.async_save = integrated_save, async_save
        self.saved_network, self.crc_check = saved_network, crc_check
        self.exception_save, self.remove_redundancy = exception_save, remove_redundancy
        self.enc_key, self.enc_mode, self.format = enc_key, enc_mode, format
        self.append_info = self._append_info(append_info)

    @staticmethod
    def _append_info(info):
        if info is None:
            return []
        if not isinstance(info, list) or not all(
                i in ("epoch_num", "step_num") or isinstance(i, dict) for i in info):
            raise TypeError("For 'CheckpointConfig', 'append_info' must be a list of "
                            f"'epoch_num', 'step_num' and dicts, but got {info!r}")
        return info

    def get_checkpoint_policy(self):
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes}


def _unique_prefix(directory, prefix):
    """prefix, or prefix_N when checkpoints of prefix already exist (MindSpore's rule)."""
    suffix = 0
    for name in os.listdir(directory):
        if not name.endswith(".ckpt") or not name.startswith(prefix):
            continue
        rest = name[len(prefix):]
        if rest.startswith("-"):
            suffix = max(suffix, 1)
        m = re.match(r"_(\d+)-", rest)
        if m:
            suffix = max(suffix, int(m.group(1)) + 1)
    return f"{prefix}_{suffix}" if suffix else prefix


class ModelCheckpoint(Callback):
    """Save checkpoints during training (see the module docstring)."""

    def __init__(self, prefix="CKP", directory=None, config=None):
        if not isinstance(prefix, str) or "/" in prefix or not prefix:
            raise ValueError(f"For 'ModelCheckpoint', 'prefix' must be a non-empty str without "
                             f"'/', but got {prefix!r}")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', 'config' must be a CheckpointConfig, but "
                            f"got {type(config).__name__}")
        directory = os.path.realpath(directory if directory is not None else os.getcwd())
        os.makedirs(directory, exist_ok=True)
        self._directory, self._config = directory, config
        self._prefix = _unique_prefix(directory, prefix)
        self._last_step = 0
        self._last_time = time.time()
        self._saved = []                 # (path, time) of this callback's files, oldest first
        self._thread = None
        self._latest = None

    @property
    def latest_ckpt_file_name(self):
        return self._latest

    def step_end(self, run_context):
        self._save(run_context.original_args(), force=False)

    def end(self, run_context):
        self._save(run_context.original_args(), force=True)
        self._wait()

    def _due(self, cb, force):
        cfg = self._config
        if force:
            return True
        if cfg.save_checkpoint_steps:
            return cb.cur_step_num >= self._last_step + cfg.save_checkpoint_steps
        if time.time() - self._last_time > cfg.save_checkpoint_seconds:
            self._last_time = time.time()
            return True
        return False

    def _save(self, cb, force):
        if cb.cur_step_num == self._last_step or not self._due(cb, force):
            return
        cfg = self._config
        step_in_epoch = (cb.cur_step_num - 1) % max(cb.batch_num, 1) + 1
        path = os.path.join(self._directory,
                            f"{self._prefix}-{cb.cur_epoch_num}_{step_in_epoch}.ckpt")
        self._last_step = cb.cur_step_num
        network = cfg.saved_network if cfg.saved_network is not None else cb.train_network
        append = {}
        for item in cfg.append_info:
            if item == "epoch_num":
                append["epoch_num"] = cb.cur_epoch_num
            elif item == "step_num":
                append["step_num"] = cb.cur_step_num
            else:
                append.update(item)
        self._wait()
        self._make_room()
        if cfg.async_save:
            # snapshot the values now; the thread writes them while training continues
            values = {p.name: p.asnumpy().copy() for p in network.get_parameters()}
            self._thread = threading.Thread(
                target=save_checkpoint, args=(values, path, cfg.integrated_save),
                kwargs={"append_dict": append or None, "crc_check": cfg.crc_check},
                name="mindlite-ckpt", daemon=True)
            self._thread.start()
        else:
            save_checkpoint(network, path, cfg.integrated_save, append_dict=append or None,
                            crc_check=cfg.crc_check)
        self._saved.append((path, time.time()))
        self._latest = path

    def _make_room(self):
        """Remove this prefix's oldest files beyond keep_checkpoint_max, or keep one file per
        keep_checkpoint_per_n_minutes."""
        cfg = self._config
        self._saved = [(p, t) for p, t in self._saved if os.path.exists(p)]
        if cfg.keep_checkpoint_max:
            while len(self._saved) >= cfg.keep_checkpoint_max:
                os.remove(self._saved.pop(0)[0])
        elif cfg.keep_checkpoint_per_n_minutes:
            window = cfg.keep_checkpoint_per_n_minutes * 60
            kept, last = [], None
            for p, t in self._saved:
                if last is None or t - last >= window:
                    kept.append((p, t))
                    last = t
                else:
                    os.remove(p)
            self._saved = kept

    def _wait(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None
