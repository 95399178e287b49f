# named: on the command line with the rest of the case
# expect: nothing (every listing is sorted)
# ----
import hashlib
from pathlib import Path

from catalyst.data.sampler import DistributedSamplerWrapper
from torch.distributed import is_initialized
from torch.utils.data import DataLoader, WeightedRandomSampler

from .dataset import CommandsDataset


class Expert:
    def __init__(self, root):
        train_list, valid_list = split_dataset(root)
        self.train_dataset = CommandsDataset(train_list, root=root)
        self.valid_dataset = CommandsDataset(valid_list, root=root)

    def _balanced_loader(self, dataset):
        sampler = WeightedRandomSampler(dataset.sample_weights, len(dataset.sample_weights))
        if is_initialized():
            sampler = DistributedSamplerWrapper(sampler)
        return DataLoader(dataset, sampler=sampler, batch_size=32)

    def train_loader(self):
        return self._balanced_loader(self.train_dataset)

    def step(self, batch):
        return batch


def split_dataset(root_dir):
    train_list, valid_list = [], []
    for entry in sorted(Path(root_dir).iterdir()):
        if not entry.is_dir():
            continue
        for audio_path in sorted(entry.glob("*.wav")):
            digest = hashlib.sha1(audio_path.name.encode("utf-8")).hexdigest()
            if int(digest, 16) % 10 == 0:
                valid_list.append((entry.name, audio_path))
            else:
                train_list.append((entry.name, audio_path))
    return train_list, valid_list
