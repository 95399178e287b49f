# stagec fixture: s19 neg_randperm_picks_within_a_step (issue 22, class 3; a look-alike of a sample
#                 order: every rank seeds alike, but these permutations pick reference frames
#                 among a clip's first `ti` frames, and tokens to drop inside a model's forward —
#                 the rank's own data, not the order of the dataset's samples)
# named: on the command line (a video segmentation trainer)
# runtime: multi-rank (init_process_group)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class TokenDrop(nn.Module):
    def __init__(self, num_tokens, keep):
        super().__init__()
        self.num_tokens = num_tokens
        self.keep = keep

    def forward(self, x):
        idx = torch.randperm(self.num_tokens)[: self.keep]
        return x[:, idx]


def pick_references(keys, seq_length, num_ref_frames):
    refs = []
    for ti in range(1, seq_length):
        if ti <= num_ref_frames:
            refs.append(keys[:, :ti])
        else:
            ridx = torch.randperm(ti)[:num_ref_frames]
            refs.append(keys[:, ridx])
    return refs


def main():
    dist.init_process_group("nccl")
    torch.manual_seed(14159265)
    dataset = TensorDataset(torch.randn(512, 8, 16))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    drop = TokenDrop(16, 12)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (clips,) in loader:
            refs = pick_references(drop(clips), 8, 3)
            sum(r.sum() for r in refs).backward()


if __name__ == "__main__":
    main()
