# stagec fixture: s25 neg_randperm_within_one_sample (issue 22, class 3; review 34a's co-tracker:
#                 the dataset's `__getitem__` picks some of one clip's trajectories with
#                 `torch.randperm(len(visible))[:n]`: a pick within a sample, not the order of
#                 the dataset's samples, which the DistributedSampler sets; the loader's
#                 workers are seeded per rank through its generator)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Clips(Dataset):
    def __init__(self, n, traj_per_sample):
        self.n = n
        self.traj_per_sample = traj_per_sample

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        clip = torch.load(f"clip_{index}.pt")
        visible = clip["visibility"][0].nonzero(as_tuple=False)[:, 0]
        point_inds = torch.randperm(len(visible))[: self.traj_per_sample]
        return clip["tracks"][:, visible[point_inds]]


def main():
    torch.manual_seed(42)
    dist.init_process_group("nccl")
    data = Clips(1000, 256)
    sampler = DistributedSampler(data)
    g = torch.Generator().manual_seed(42 + dist.get_rank())
    loader = DataLoader(data, batch_size=1, sampler=sampler, num_workers=4, persistent_workers=True, generator=g)
    model = torch.nn.Linear(2, 2)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for tracks in loader:
            model(tracks.float()).mean().backward()


if __name__ == "__main__":
    main()
