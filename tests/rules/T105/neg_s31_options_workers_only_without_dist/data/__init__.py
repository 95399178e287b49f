# stagec fixture: s31 neg_options_workers_only_without_dist (the loader factory: only the
#   DataParallel run, the `else` of `if opt["dist"]:`, starts workers; each rank of the torchrun
#   run loads in its own process)
# named: with train.py and options/options.py
# expect: nothing
# ----
import torch
import torch.utils.data


def create_dataloader(dataset, dataset_opt, opt=None, sampler=None):
    phase = dataset_opt["phase"]
    if phase == "train":
        if opt["dist"]:
            num_workers = 0
            batch_size = dataset_opt["batch_size"] // torch.distributed.get_world_size()
        else:
            num_workers = dataset_opt["n_workers"] * len(opt["gpu_ids"])
            batch_size = dataset_opt["batch_size"]
        return torch.utils.data.DataLoader(
            dataset,
            batch_size=batch_size,
            shuffle=sampler is None,
            num_workers=num_workers,
            sampler=sampler,
            drop_last=True,
        )
    return torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=False, num_workers=0)
