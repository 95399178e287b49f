# stagec fixture: s26 neg_sampler_helper_told_through_loader (issue 22, class 3; the look-alike
#                 of pos_s26_sampler_helper_returns_to_loader_factory: the epoch loop tells the
#                 training loader's sampler the epoch through the loader)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from torch.utils.data.sampler import RandomSampler, SequentialSampler


def make_data_sampler(dataset, shuffle, distributed):
    if distributed:
        return DistributedSampler(dataset, shuffle=shuffle)
    if shuffle:
        return RandomSampler(dataset)
    return SequentialSampler(dataset)


def make_data_loader(args, dataset, is_distributed=True, is_train=True):
    if is_train:
        shuffle = True
        per_gpu = args.train_batch_size
    else:
        shuffle = False
        per_gpu = args.eval_batch_size
    sampler = make_data_sampler(dataset, shuffle, is_distributed)
    return DataLoader(dataset, sampler=sampler, batch_size=per_gpu)


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(model(x).sum().item() for x, _ in loader)


def train(args, train_loader, val_loader, model):
    model = DDP(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        evaluate(model, val_loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--eval_batch_size", type=int, default=64)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    train_loader = make_data_loader(args, data, is_distributed=True, is_train=True)
    val_loader = make_data_loader(args, data, is_distributed=True, is_train=False)
    train(args, train_loader, val_loader, torch.nn.Linear(8, 1))


if __name__ == "__main__":
    main()
