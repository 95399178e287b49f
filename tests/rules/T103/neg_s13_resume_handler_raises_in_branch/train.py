# stagec fixture: neg_s13_resume_handler_raises_in_branch (Infinity's auto_resume)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the same helper, but a failed read with no older checkpoint raises, and so does a
#          failed read of the older one: the rank whose read fails stops the job instead of
#          leaving the barrier to the others.
# expect: none
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
            raise
        try:
            ckpt = torch.load(ckpts[1], map_location="cpu")
        except Exception as e2:
            raise RuntimeError("no checkpoint could be read") from e2
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
