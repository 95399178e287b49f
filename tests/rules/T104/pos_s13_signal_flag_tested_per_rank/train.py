# stagec fixture: pos_s13_signal_flag_tested_per_rank (lingua's preemption handling)
# named: on the command line with dist_utils.py (`torchrun --nproc_per_node=8 train.py`)
# context: a SIGUSR2 handler, registered through a helper, sets a module-level flag; the
#          training loop tests the raw flag to save a checkpoint (a barrier) and exit. Each
#          process gets the signal on its own: one rank can act a step before the others.
# expect:
#   T104 at 38:9 the flag is tested without agreeing on it; the save's barrier runs on some ranks
# ----
import sys

import torch
import torch.distributed as dist

from dist_utils import init_signal_handler

preemption_flag = dict(flag=False)


def set_preemption_flag(signum, frame):
    preemption_flag["flag"] = True


def save_checkpoint(model, step):
    dist.barrier()
    if dist.get_rank() == 0:
        torch.save(model.state_dict(), f"/ckpt/{step}.pt")


def main():
    dist.init_process_group("nccl")
    init_signal_handler(set_preemption_flag)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100000):
        opt.zero_grad()
        model(torch.zeros(4, 3).cuda()).sum().backward()
        opt.step()
        if preemption_flag["flag"]:
            save_checkpoint(model, step)
            sys.exit(0)


if __name__ == "__main__":
    main()
