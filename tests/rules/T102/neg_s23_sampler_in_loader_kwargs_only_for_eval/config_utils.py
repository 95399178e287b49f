# stagec fixture: neg_s23_sampler_in_loader_kwargs_only_for_eval (the helper that builds a loader's arguments)
# named: on the command line with finetune.py
# context: the look-alike of pos_s23_sampler_in_loader_kwargs_dict: the script builds only its
#          evaluation loader from the helper, whose sampler shuffles for "train" only: one fixed
#          order is what it asks
# expect: nothing
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
