# stagec fixture: pos_s29_yaml_config_subclass_of_attrdict (issue 22, class 9; a NAS trainer:
#   the config is a subclass of the project's AttrDict whose __init__ loads the YAML file the
#   command line names; both YAML files of the project set the worker count)
# named: on the command line (an mp.spawn script, no config)
# runtime: multi-rank (mp.spawn, init_process_group, DistributedSampler)
# expect:
#   T105 at 32:9 num_workers=4 to 8 (`data_loader_workers_per_gpu: 8` at configs/eval.yml:2 …) …
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from utils.config import setup

parser = argparse.ArgumentParser()
parser.add_argument("--config-file", default=None, type=str)


def main_worker(gpu, ngpus, args):
    dist.init_process_group("nccl", rank=gpu, world_size=ngpus)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4).cuda(gpu), device_ids=[gpu])
    dataset = torch.utils.data.TensorDataset(torch.randn(1000, 4))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(
        dataset,
        batch_size=args.batch_size,
        sampler=sampler,
        num_workers=args.data_loader_workers_per_gpu,
        pin_memory=True,
    )
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            model(x.cuda(gpu)).mean().backward()


def main():
    run_args = parser.parse_args()
    args = setup(run_args.config_file)
    ngpus = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, args))


if __name__ == "__main__":
    main()
