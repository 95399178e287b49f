# stagec fixture: neg_s20_seeding_helper_nothing_calls (the data)
# named: on the command line
# ----
import random

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class PromptDataset(Dataset):
    def __init__(self, rows, templates):
        self.rows = rows
        self.templates = templates

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        template = self.templates[random.randint(0, len(self.templates) - 1)]
        return template.format(*self.rows[idx])


def get_loader(rows, templates, batch_size=16, workers=4, distributed=False):
    dataset = PromptDataset(rows, templates)
    sampler = DistributedSampler(dataset) if distributed else None
    return DataLoader(dataset, batch_size=batch_size, shuffle=(sampler is None),
                      num_workers=workers, sampler=sampler)
