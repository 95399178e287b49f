# stagec fixture: s31 neg_loader_on_a_branch_no_option_file_takes (issue 22, class 9; Restormer's
#   loader factory: the prefetching loader with workers is built only when the options ask for
#   `prefetch_mode: cpu`, which none of the project's option files does; the loader every run
#   builds starts no workers)
# named: on the command line (`torchrun --nproc_per_node 8 train.py -opt options/train_sr.yml`)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
import yaml
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class PrefetchDataLoader(DataLoader):
    def __init__(self, num_prefetch_queue, **kwargs):
        self.num_prefetch_queue = num_prefetch_queue
        super().__init__(**kwargs)


def create_dataloader(dataset, dataset_opt, sampler):
    prefetch_mode = dataset_opt.get("prefetch_mode")
    if prefetch_mode == "cpu":
        return PrefetchDataLoader(
            num_prefetch_queue=2,
            dataset=dataset,
            sampler=sampler,
            num_workers=dataset_opt["num_worker_per_gpu"],
        )
    return DataLoader(dataset, sampler=sampler, num_workers=0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-opt", type=str, required=True)
    args = parser.parse_args()
    with open(args.opt) as f:
        opt = yaml.safe_load(f)
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 8))
    sampler = DistributedSampler(data)
    loader = create_dataloader(data, opt["datasets"]["train"], sampler)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x.sum()


if __name__ == "__main__":
    main()
