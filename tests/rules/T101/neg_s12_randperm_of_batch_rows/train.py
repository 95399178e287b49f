# stagec fixture: neg_s12_randperm_of_batch_rows (issue 22, class 3: DensePose's and mmdet's
#                 point and RoI sampling in a loss)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect: nothing. Every rank seeds alike, and the loss picks a random subset
#   with `torch.randperm`, but of the rows of its own batch (`feats.shape[0]`)
#   or of the pixels its mask holds (`int(mask.sum().item())`): the indices are
#   alike across ranks, the rows and pixels they pick are each rank's own. No
#   dataset order is drawn.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def sample_fg_pixels(fg_mask, sample_size):
    flat = fg_mask.reshape((-1,))
    num_pixels = int(flat.sum().item())
    idx = flat.nonzero(as_tuple=True)[0]
    if num_pixels <= sample_size:
        return idx
    pick = torch.randperm(num_pixels, device=fg_mask.device)[:sample_size]
    return idx[pick]


def loss_fn(feats, mask, max_rows=64):
    rows = torch.randperm(feats.shape[0])[: min(feats.shape[0], max_rows)]
    pixels = sample_fg_pixels(mask, 128)
    return feats[rows].square().mean() + feats.flatten()[pixels % feats.numel()].mean()


def main():
    dist.init_process_group("nccl")
    torch.manual_seed(42)
    data = TensorDataset(torch.randn(1000, 8), torch.rand(1000, 8) > 0.5)
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 8).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, m in loader:
            loss = loss_fn(model(x.cuda()), m.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
