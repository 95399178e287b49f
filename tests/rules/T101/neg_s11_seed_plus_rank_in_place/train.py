# stagec fixture: s11 neg_seed_plus_rank_in_place (issue 22, class 3; Open-Sora-Plan's
#                 npu_config.seed_everything as it is)
# named: on the command line (the training script, its config object and its dataset)
# runtime: multi-rank (torchrun, init_process_group, DistributedSampler)
# expect: nothing
#   - `seed_everything` adds the rank to its seed in place (`seed += self.rank`) before
#     `torch.manual_seed(seed)`: each rank's RNG, and so its workers' base seeds, differ.
# ----
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from meldataset import MelDataset
from npu_config import npu_config


def main():
    dist.init_process_group("nccl")
    npu_config.seed_everything(42)
    trainset = MelDataset(["a.pt", "b.pt"], 8192)
    sampler = DistributedSampler(trainset)
    loader = DataLoader(trainset, num_workers=4, shuffle=False, sampler=sampler, batch_size=16, persistent_workers=True)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
