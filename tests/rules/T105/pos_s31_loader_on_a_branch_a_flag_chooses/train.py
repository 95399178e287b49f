# stagec fixture: s31 pos_loader_on_a_branch_a_flag_chooses (issue 22, class 9; the look-alike of
#   neg_s31_loader_on_a_branch_no_option_file_takes where a command-line flag chooses the branch:
#   its default does not take it, but a run may pass `--prefetch_mode cpu`, so the loader stands)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --prefetch_mode cpu`)
# expect:
#   T105 at 28:13 num_workers=6 (the --workers default) on the prefetching loader, passed over at
#        every epoch
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class PrefetchDataLoader(DataLoader):
    def __init__(self, num_prefetch_queue, **kwargs):
        self.num_prefetch_queue = num_prefetch_queue
        super().__init__(**kwargs)


def create_dataloader(dataset, args, sampler):
    if args.prefetch_mode == "cpu":
        return PrefetchDataLoader(
            num_prefetch_queue=2,
            dataset=dataset,
            sampler=sampler,
            num_workers=args.workers,
        )
    return DataLoader(dataset, sampler=sampler, num_workers=0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefetch_mode", type=str, default="none")
    parser.add_argument("--workers", type=int, default=6)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 8))
    sampler = DistributedSampler(data)
    loader = create_dataloader(data, args, sampler)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x.sum()


if __name__ == "__main__":
    main()
