# stagec fixture: neg_s35_flag_set_from_rank_constant_world_per_rank_folder (issue 22, class
#                 "other"; the regression corpus's look-alikes: LAION-AI/CLAP's `args.save_logs`,
#                 facebookresearch/msn's logistic_eval.py, openai/jukebox's sample.py)
# named: on the command line with data.py and logistic_eval.py (`torchrun --nproc_per_node=8 main.py`)
# expect: nothing
#   - `train` saves under `if args.save_logs:`, a flag `main` set from
#     `is_master(args)`: one rank saves.
#   - `logistic_eval.py` makes its loader with `world_size=1, rank=0` and
#     reads no rank otherwise: it is one process's code, though the program
#     it imports from sets up ranks.
#   - `sample` writes to `f"{logdir}/data.pt"`, and `logdir` is each rank's
#     own folder where there are several ranks.
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn

from data import make_loader


def is_master(args):
    return args.rank == 0


def train(model, opt, data, args):
    for epoch in range(args.epochs):
        for x in data:
            loss = model(x.cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if args.save_logs:
            torch.save(model.module.state_dict(), os.path.join(args.logs, f"epoch_{epoch}.pt"))


def sample(x, name, levels):
    for level in range(levels):
        if dist.get_world_size() > 1:
            logdir = f"{name}_rank_{dist.get_rank()}/level_{level}"
        else:
            logdir = f"{name}/level_{level}"
        os.makedirs(logdir, exist_ok=True)
        torch.save({"x": x}, f"{logdir}/data.pt")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--logs", default="logs")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    args.rank = dist.get_rank()
    args.save_logs = args.logs and args.logs.lower() != "none" and is_master(args)
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = make_loader([torch.randn(16, 8) for _ in range(80)])
    train(model, opt, data, args)
    sample(torch.zeros(3), "samples", 3)


if __name__ == "__main__":
    main()
