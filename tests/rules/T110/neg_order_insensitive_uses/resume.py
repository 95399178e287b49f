# stagec fixture: h06_neg_order_insensitive_uses
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 resume.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed
# expect: no finding.
#   Listings whose order cannot leak into a sample order: a max() over numeric folder names,
#   a len() test, a membership test, a set() for lookups, a per-rank private directory (the path
#   contains the rank) whose files only this rank reads, and a loop that sums file sizes.
# ----
import glob
import os

import torch
import torch.distributed as dist


def latest_step(ckpt_root: str):
    best = None
    if not os.path.isdir(ckpt_root):
        return best
    for name in os.listdir(ckpt_root):
        if name.isdigit():
            best = int(name) if best is None else max(best, int(name))
    return best


def main(ckpt_root: str = "/mnt/ckpt", cache_root: str = "/tmp/cache") -> None:
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    step = latest_step(ckpt_root)
    have_data = len(os.listdir("/mnt/data")) > 0
    done = set(os.listdir(os.path.join(cache_root, "done")))
    ready = "COMPLETE" in os.listdir(ckpt_root) if os.path.isdir(ckpt_root) else False
    mine = glob.glob(os.path.join(cache_root, f"rank{rank}", "*.pt"))
    total_bytes = 0
    for path in glob.glob("/mnt/data/*.bin"):
        total_bytes += os.path.getsize(path)
    state = torch.zeros(4, device="cuda")
    state[0] = float(step or 0)
    state[1] = float(have_data and ready)
    state[2] = float(len(done) + len(mine))
    state[3] = float(total_bytes)
    dist.all_reduce(state, op=dist.ReduceOp.MAX)
    for path in mine:
        torch.load(path)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
