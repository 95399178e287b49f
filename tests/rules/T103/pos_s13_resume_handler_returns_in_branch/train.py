# stagec fixture: pos_s13_resume_handler_returns_in_branch (Infinity's auto_resume)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the resume helper loads the newest checkpoint; when that fails it returns early
#          where there is no older one, else tries the older one and returns when that fails
#          too. Every rank that loads waits in the barrier after; a rank whose read failed left.
# expect:
#   T103 at 23:5 the first handler returns from its branch (`if len(ckpts) < 2`), skipping the barrier
#   T103 at 29:9 the second handler returns, skipping the barrier
# ----
import glob
import os

import torch
import torch.distributed as dist


def auto_resume(out_dir):
    ckpts = sorted(glob.glob(os.path.join(out_dir, "ckpt*.pth")), reverse=True)
    if not ckpts:
        return 0, None
    try:
        ckpt = torch.load(ckpts[0], map_location="cpu")
    except Exception as e:
        print(f"resume failed: {e}")
        if len(ckpts) < 2:
            return 0, None
        try:
            ckpt = torch.load(ckpts[1], map_location="cpu")
        except Exception:
            return 0, None
    dist.barrier()
    return ckpt["epoch"], ckpt["model"]


def main():
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
    start, state = auto_resume("/ckpt")
    if state is not None:
        model.module.load_state_dict(state)
    for epoch in range(start, 10):
        model(torch.zeros(4, 3).cuda()).sum().backward()


if __name__ == "__main__":
    main()
