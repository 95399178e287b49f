# Draws made on one rank only, or broadcast from one rank, are not "every
# rank draws the same indices":
#   - the k-means init picks rows under `if rank == 0:` and broadcasts them;
#   - a permutation drawn on every rank but broadcast from rank 0 before use
#     is one rank's draw by design;
#   - a train_loader sampler built in the `else` of `if rank != 0:` (rank 0 only);
#   - a loader for samples written under `if local_rank in (-1, 0):`.
# expect: none
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


def init_centres(bank, k, rank):
    centres = torch.empty(k, bank.shape[1]).cuda()
    if rank == 0:
        pick = torch.randperm(len(bank))[:k]
        centres = bank[pick].cuda()
    dist.broadcast(centres, 0)
    return centres


def shared_order(n):
    order = torch.randperm(n)
    dist.broadcast(order, src=0)
    return order


def shared_order_on_device(n):
    order = torch.randperm(n).cuda()
    dist.broadcast(order, 0)
    return order.tolist()


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(4096, 16))
    bank = torch.randn(4096, 16)
    centres = init_centres(bank, 32, rank)
    order = shared_order(len(data))
    for i in order[:256]:
        print(data[i][0].sum() + centres.sum())
    for i in shared_order_on_device(len(data)):
        print(data[i][0].sum())
    if rank != 0:
        pass
    else:
        train_loader = DataLoader(data, batch_size=8, sampler=RandomSampler(data))
        for (x,) in train_loader:
            print(x.mean())
            break
    if int(rank) in (-1, 0):
        train_samples = DataLoader(data, batch_size=8, shuffle=True)
        for (x,) in train_samples:
            print(x.std())
            break
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
