# stagec fixture: s26 neg_configs_wrapping_each_other (issue 22, class 9; robustness: two names
#                 rebound to mapping wrappers of each other, so reading `cfg.data.workers` goes
#                 round the pair with no end; the value is unknown and the check ends)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import sys

import torch
import torch.distributed as dist
import yaml
from dotmap import DotMap
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    dist.init_process_group("nccl")
    cfg = yaml.safe_load(open(sys.argv[1]))
    other = DotMap(cfg)
    cfg = DotMap(other)
    other = DotMap(cfg)
    data = TensorDataset(torch.randn(64, 8))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler, num_workers=cfg.data.workers)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            model(x).sum().backward()


if __name__ == "__main__":
    main()
