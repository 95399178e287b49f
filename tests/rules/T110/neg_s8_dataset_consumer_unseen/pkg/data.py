# stagec fixture: s8 neg_dataset_consumer_unseen (issue 22, class 4; the look-alikes of
#                 pos_s8_dataset_consumer_unseen)
# named: on the command line, with pkg/__init__.py, pkg/train.py and pkg2/*.py
# runtime: DDP under torchrun
# expect: nothing
#   - `Preview`'s only construction feeds a plain loader that rank 0 iterates: no sampler
#     splits it, however the program shards its training set;
#   - pkg2's `Folder` is built nowhere in sight, and its program shards no samples (each rank
#     trains on what its caller hands it);
#   - `Sorted` sorts the listing it keeps.
# ----
import os

from torch.utils.data import DataLoader, Dataset


class Preview(Dataset):
    def __init__(self, root):
        self.names = os.listdir(root)

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        return self.names[i]


class Sorted(Dataset):
    def __init__(self, root):
        self.names = sorted(os.listdir(root))

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        return self.names[i]


def preview(root):
    for batch in DataLoader(Preview(root), batch_size=4, num_workers=0):
        print(batch)
