# stagec fixture: s31 pos_options_per_phase_from_yaml (the loader factory: the train phase's
#   worker count comes from its dataset options; the `else` of `if opt["dist"]:` is the
#   DataParallel run's, one process for every GPU)
# named: with train.py and options/options.py
# expect:
#   T105 at 27:13 n_workers: 4 or 8 from the phase's options in either YAML file (the `*
#        len(gpu_ids)` of the one-process run is not this run's), and the train loader is passed
#        over once per epoch
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
