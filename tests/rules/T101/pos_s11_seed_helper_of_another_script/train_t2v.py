# stagec fixture: s11 pos_seed_helper_of_another_script (the other training script)
# named: on the command line with train_vae.py, npu_config.py, adaptor_utils.py and meldataset.py
# expect: none in this file (its seed adds the rank)
# ----
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from meldataset import MelDataset
from npu_config import npu_config


def main():
    dist.init_process_group("nccl")
    npu_config.seed_everything(42)
    trainset = MelDataset(["a.pt", "b.pt"], 8192)
    sampler = DistributedSampler(trainset)
    loader = DataLoader(trainset, num_workers=4, shuffle=False, sampler=sampler, batch_size=16, persistent_workers=True)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
