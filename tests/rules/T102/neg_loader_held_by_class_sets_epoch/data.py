# named: on the command line
# expect: none
# ----
import torch
from torch.utils.data.distributed import DistributedSampler


class Clips(torch.utils.data.Dataset):
    def __init__(self, root):
        self.files = [f"{root}/{i:05d}.wav" for i in range(1000)]

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return torch.zeros(1, 16000)


def from_folder(root, is_distributed=False):
    clips = Clips(root)
    return torch.utils.data.DataLoader(
        clips,
        batch_size=16,
        shuffle=not is_distributed,
        sampler=DistributedSampler(clips) if is_distributed else None,
        drop_last=True,
    )
