# stagec fixture: pos_s16_loader_class_without_persistent (the loader class)
# named: on the command line with train.py
# context: pytracking's `LTRLoader` (also in OSTrack, STARK, MixFormer): a DataLoader subclass
#          with its own signature, which hands `num_workers` to torch's `__init__` at its
#          position and has no `persistent_workers` to hand on.
# expect: none in this file (the loader is reported where it is built)
# ----
import torch


def ltr_collate(batch):
    return torch.utils.data.dataloader.default_collate(batch)


class LTRLoader(torch.utils.data.dataloader.DataLoader):
    def __init__(self, name, dataset, training=True, batch_size=1, shuffle=False, sampler=None,
                 batch_sampler=None, num_workers=0, epoch_interval=1, collate_fn=None, stack_dim=0,
                 pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None):
        if collate_fn is None:
            collate_fn = ltr_collate
        super(LTRLoader, self).__init__(dataset, batch_size, shuffle, sampler, batch_sampler,
                                        num_workers, collate_fn, pin_memory, drop_last,
                                        timeout, worker_init_fn)
        self.name = name
        self.training = training
        self.epoch_interval = epoch_interval
        self.stack_dim = stack_dim
