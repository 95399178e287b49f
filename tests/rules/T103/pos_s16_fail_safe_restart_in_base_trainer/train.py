# stagec fixture: pos_s16_fail_safe_restart_in_base_trainer (the script)
# named: on the command line with base_trainer.py and ltr_trainer.py
#        (`python -m torch.distributed.launch --nproc_per_node 8 train.py`)
# expect: none in this file
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from ltr_trainer import LTRTrainer


class Settings:
    def __init__(self, local_rank):
        self.local_rank = local_rank


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", default=-1, type=int)
    args = parser.parse_args()
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(args.local_rank)
    data = TensorDataset(torch.randn(1024, 64), torch.randint(0, 10, (1024,)))
    loader = DataLoader(data, batch_size=32, sampler=DistributedSampler(data))
    loader.training = True
    net = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda(), device_ids=[args.local_rank])
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-4)
    trainer = LTRTrainer(net, [loader], optimizer, Settings(args.local_rank))
    trainer.train(300, load_latest=True, fail_safe=True)


if __name__ == "__main__":
    main()
