# stagec fixture: s31 pos_loader_reset_by_either_prefetcher (the loader factory: the options are
#   collected in a dict and splatted; `dist` is the factory's flag)
# named: with the other files
# expect:
#   T105 at 34:42 num_worker_per_gpu: 8 from the YAML file (the `* multiplier` of the one-process
#        run is not this run's); the fix edits the dict
# ----
import torch


def create_dataloader(dataset, dataset_opt, num_gpu=1, dist=False, sampler=None):
    phase = dataset_opt["phase"]
    if phase == "train":
        if dist:
            batch_size = dataset_opt["batch_size_per_gpu"]
            num_workers = dataset_opt["num_worker_per_gpu"]
        else:
            multiplier = 1 if num_gpu == 0 else num_gpu
            batch_size = dataset_opt["batch_size_per_gpu"] * multiplier
            num_workers = dataset_opt["num_worker_per_gpu"] * multiplier
        dataloader_args = dict(
            dataset=dataset,
            batch_size=batch_size,
            shuffle=False,
            num_workers=num_workers,
            sampler=sampler,
            drop_last=True,
        )
        if sampler is None:
            dataloader_args["shuffle"] = True
    else:
        dataloader_args = dict(dataset=dataset, batch_size=1, shuffle=False, num_workers=0)
    dataloader_args["pin_memory"] = dataset_opt.get("pin_memory", False)
    return torch.utils.data.DataLoader(**dataloader_args)
