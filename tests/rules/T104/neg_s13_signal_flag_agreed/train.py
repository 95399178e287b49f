# stagec fixture: neg_s13_signal_flag_agreed
# named: on the command line with dist_utils.py (`torchrun --nproc_per_node=8 train.py`)
# context: the same handler and flag, but the loop agrees on it first: every rank all_reduces
#          the flag (MAX) each step and tests the result, so all ranks save and exit together.
#          A test of the raw flag that only logs neither runs a collective nor leaves.
# expect: none
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
            print(f"rank {dist.get_rank()} got the signal at step {step}")
        stop = torch.tensor([float(preemption_flag["flag"])], device="cuda")
        dist.all_reduce(stop, op=dist.ReduceOp.MAX)
        if stop.item() > 0:
            save_checkpoint(model, step)
            sys.exit(0)


if __name__ == "__main__":
    main()
