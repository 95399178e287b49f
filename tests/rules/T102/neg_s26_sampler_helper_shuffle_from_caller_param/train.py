# stagec fixture: s26 neg_sampler_helper_shuffle_from_caller_param (issue 22, class 3; dinov2's
#                 data/loaders.py: the sampler helper shuffles by its parameter, and the loader
#                 factory hands it its own `shuffle=True` parameter; every call that picks the
#                 distributed sampler passes shuffle=False, the training loader takes an
#                 infinite sampler of its own)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, TensorDataset


def make_sampler(dataset, kind, shuffle):
    if kind == "distributed":
        return DistributedSampler(dataset, shuffle=shuffle, drop_last=False)
    if kind == "random":
        return RandomSampler(dataset)
    return None


def make_data_loader(dataset, kind="random", shuffle=True):
    sampler = make_sampler(dataset, kind, shuffle)
    return DataLoader(dataset, sampler=sampler, batch_size=64)


def evaluate(model, dataset):
    loader = make_data_loader(dataset, kind="distributed", shuffle=False)
    with torch.no_grad():
        return sum(model.module(x).sum().item() for x, _ in loader)


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    model = DDP(torch.nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = make_data_loader(data)
    for epoch in range(10):
        for x, y in train_loader:
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
        print(evaluate(model, data))


if __name__ == "__main__":
    main()
