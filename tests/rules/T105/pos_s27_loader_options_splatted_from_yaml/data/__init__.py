# stagec fixture: s27 pos_loader_options_splatted_from_yaml (the loader factory)
# expect:
#   T105 at 15:9 num_workers from `**cfg.dataloader.train`: 4 in configs/scannet.yaml, 1 where
#        a config leaves it out
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
