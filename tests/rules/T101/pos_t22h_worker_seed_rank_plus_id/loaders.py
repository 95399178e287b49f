# stagec fixture: t22h pos_worker_seed_rank_plus_id, the loader factory (see train.py)
# named: on the command line
# expect: none in this file (the seed is in train.py's init functions)
# ----
from torch.utils.data import DataLoader, DistributedSampler


def build_train_loader(dataset, batch_size, workers=6, init_fn=None):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=workers,
        worker_init_fn=init_fn,
        persistent_workers=True,
    )
    return loader, sampler
