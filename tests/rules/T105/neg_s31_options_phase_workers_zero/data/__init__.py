# stagec fixture: s31 neg_options_phase_workers_zero (the loader factory: the train phase's
#   worker count comes from its dataset options; the `else` of `if opt["dist"]:` is the
#   DataParallel run's, one process for every GPU)
# named: with train.py and options/options.py
# expect: nothing (deblur.yml's training phase sets n_workers: 0)
# ----
import torch
import torch.utils.data


def create_dataloader(dataset, dataset_opt, opt=None, sampler=None):
    phase = dataset_opt["phase"]
    if phase == "train":
        if opt["dist"]:
            num_workers = dataset_opt["n_workers"]
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
