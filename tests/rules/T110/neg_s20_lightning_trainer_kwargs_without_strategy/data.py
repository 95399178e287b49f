# stagec fixture: neg_s20_lightning_trainer_kwargs_without_strategy (the data module)
# named: beside the script, as pre-commit passes both
# context: the same dataset, but the script's Trainer gets its arguments through **kwargs and
#          nothing in sight says it runs several processes (no strategy object, no strategy
#          name stored): whether a sampler shards it is not known, so nothing is said
# expect: nothing
# ----
import os
from pathlib import Path

from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.datasets import ImageFolder


def with_index(klass):
    class WithIndex(klass):
        def __getitem__(self, index):
            return (index, *super().__getitem__(index))

    return WithIndex


class FolderWithoutLabels(Dataset):
    def __init__(self, root, transform=None):
        self.root = Path(root)
        self.transform = transform
        self.images = os.listdir(root)

    def __getitem__(self, index):
        x = Image.open(self.root / self.images[index]).convert("RGB")
        return self.transform(x), -1

    def __len__(self):
        return len(self.images)


def build_dataset(path, transform, no_labels):
    klass = FolderWithoutLabels if no_labels else ImageFolder
    return with_index(klass)(path, transform)


def build_loader(dataset, batch_size=64, num_workers=4):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                      persistent_workers=num_workers > 0, drop_last=True)
