# stagec fixture: neg_s21_loader_held_per_mode_chosen_at_run_time (the script)
# named: beside dataloader.py, as pre-commit passes both
# expect: nothing in this file
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from dataloader import NewDataLoader


def online_eval(model, dataloader_eval):
    total = 0.0
    with torch.no_grad():
        for x, y in dataloader_eval.data:
            total += (model(x.cuda()) - y.cuda()).abs().sum().item()
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--num_threads", type=int, default=4)
    parser.add_argument("--eval_mode", choices=["online_eval", "test"], required=True)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    model = DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    dataloader = NewDataLoader(args, "train")
    dataloader_eval = NewDataLoader(args, args.eval_mode)
    for epoch in range(20):
        dataloader.train_sampler.set_epoch(epoch)
        for x, y in dataloader.data:
            loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        online_eval(model, dataloader_eval)


if __name__ == "__main__":
    main()
