# stagec fixture: s26 neg_monai_set_determinism_none (issue 22, class 3; the look-alike of
#                 pos_s26_monai_set_determinism_step_noise: `set_determinism(seed=None)` seeds
#                 each process from its own entropy, so the ranks draw apart)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
from monai.utils import set_determinism
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    set_determinism(seed=None)
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 1, 16, 16))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler)
    unet = DDP(torch.nn.Conv2d(1, 1, 3, padding=1).cuda())
    optimizer = torch.optim.Adam(unet.parameters())
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (images,) in loader:
            images = images.cuda()
            noise = torch.randn_like(images)
            timesteps = torch.randint(0, 1000, (images.shape[0],), device=images.device)
            noisy = images + noise * (timesteps.view(-1, 1, 1, 1) / 1000)
            loss = torch.nn.functional.mse_loss(unet(noisy), noise)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
