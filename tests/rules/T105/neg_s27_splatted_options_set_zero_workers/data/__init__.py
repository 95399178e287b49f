# stagec fixture: s27 neg_splatted_options_set_zero_workers (the loader factory)
# ----
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build_dataloader(dataset, batch_size=1, num_workers=1, training=True, dist=False):
    sampler = DistributedSampler(dataset, shuffle=training) if dist else None
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        shuffle=training and sampler is None,
        sampler=sampler,
        drop_last=training,
        pin_memory=True,
    )
