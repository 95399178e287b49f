# stagec fixture: pos_s23_sampler_in_loader_kwargs_dict (the helper that builds a loader's arguments)
# named: on the command line with finetune.py
# context: llama-recipes' shape, copied by many fine-tuning repositories: a helper fills a dict of
#          the DataLoader's keyword arguments, with a DistributedSampler that shuffles for the
#          "train" mode; the script splats the dict into its loaders, and the training loop never
#          calls set_epoch.
# expect:
#   T102 at 22:33 every epoch of `train_dataloader` repeats epoch 0's order
# ----
import torch.distributed as dist
from torch.utils.data import DistributedSampler


def get_dataloader_kwargs(train_config, dataset, mode):
    kwargs = {}
    batch_size = train_config.batch_size_training if mode == "train" else train_config.val_batch_size
    if train_config.batching_strategy == "padding":
        kwargs["batch_size"] = batch_size
        kwargs["collate_fn"] = None
    elif train_config.batching_strategy == "packing":
        if train_config.enable_fsdp:
            kwargs["sampler"] = DistributedSampler(
                dataset,
                rank=dist.get_rank(),
                num_replicas=dist.get_world_size(),
                shuffle=mode == "train",
                drop_last=True,
            )
        kwargs["batch_size"] = batch_size
        kwargs["drop_last"] = True
    return kwargs
