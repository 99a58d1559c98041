"""One rank of an `msrun` job (communication/msrun.py): run by mpiexec as
`python _msrun_worker.py COMMAND...`, it sends this process's stdout and stderr to
`$MSRUN_LOG_DIR/$MSRUN_LOG_NAME_<rank>.log` (MindSpore's per-worker log), sets MindSpore's
per-rank environment variables from Open MPI's (RANK_ID = the world rank, DEVICE_ID = the
index among the machine's ranks, MS_NODE_ID, MS_ROLE) and executes COMMAND in its place.
Run by path, never imported: it imports nothing of mindlite, so a rank starts its script at
once.
"""
import os
import sys


def main():
    rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMIX_RANK", "0"))
    # MindSpore's DEVICE_ID: the index among this machine's ranks, which msrun places
    # local_worker_num a machine in rank order (Open MPI's own local rank follows its core map)
    local = str(int(rank) % int(os.environ.get("MSRUN_LOCAL_WORKER_NUM", "1") or 1))
    os.environ.update(RANK_ID=rank, DEVICE_ID=local, MS_NODE_ID=rank, MS_ROLE="MS_WORKER")
    log_dir = os.environ.get("MSRUN_LOG_DIR", ".")
    os.makedirs(log_dir, exist_ok=True)
    path = os.path.join(log_dir, f"{os.environ.get('MSRUN_LOG_NAME', 'worker')}_{rank}.log")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    cmd = sys.argv[1:]
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        sys.stderr.write(f"msrun: rank {rank}: cannot run {cmd!r}: {e}\n")
        sys.exit(127)


if __name__ == "__main__":
    main()
