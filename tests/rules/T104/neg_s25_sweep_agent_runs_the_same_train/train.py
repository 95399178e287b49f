# stagec fixture: s25 neg_sweep_agent_runs_the_same_train (issue 22, class 2; review 33b's
#                 multiple_physics_pretraining: under a sweep, rank 0 hands `trainer.train` to
#                 `wandb.agent`, which runs it, while the other ranks call it themselves: every
#                 rank reaches the barrier inside)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --sweep_id abc`)
# expect: nothing
# ----
import argparse
import os

import torch
import torch.distributed as dist
import wandb


class Trainer:
    def __init__(self, rank):
        self.global_rank = rank
        self.model = torch.nn.Linear(4, 4)

    def train(self):
        for epoch in range(3):
            self.model(torch.randn(2, 4))
            dist.barrier()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sweep_id", default="")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    trainer = Trainer(int(os.environ["RANK"]))
    if args.sweep_id and trainer.global_rank == 0:
        wandb.agent(args.sweep_id, function=trainer.train, count=1)
    else:
        trainer.train()


if __name__ == "__main__":
    main()
