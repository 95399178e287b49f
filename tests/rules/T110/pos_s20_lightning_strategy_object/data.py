# stagec fixture: pos_s20_lightning_strategy_object (the data module)
# named: beside the script, as pre-commit passes both
# context: the dataset class is chosen into a variable and subclassed by a factory before it is
#          built, so no construction of it is in sight; the script's Lightning Trainer gets its
#          arguments through `**kwargs` beside a `DDPStrategy(…)` imported from its defining
#          module, which shards every loader it is handed
# expect:
#   T110 at 30:23 os.listdir() returns directory order, which can differ between ranks …
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
