# stagec fixture: pos_s30_shuffle_flag_set_by_split (issue 22, class 3: Time-Series-Library's
#   `data_provider(args, flag)`: `shuffle_flag` is False for 'test' and True otherwise, the
#   sampler takes it, and the training loader is unpacked from a (dataset, loader) pair)
# named: on the command line (`torchrun --nproc_per_node=8 train.py --use_multi_gpu`)
# runtime: multi-rank (init_process_group under --use_multi_gpu)
# expect:
#   T102 at 31:19 the 'train' call shuffles; `train_loader` is passed over every epoch and
#        set_epoch is never called, so every epoch repeats epoch 0's order
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def data_provider(args, flag):
    if flag == "test":
        shuffle_flag = False
        batch_size = 1
    elif flag == "pred":
        shuffle_flag = False
        batch_size = 1
    else:
        shuffle_flag = True
        batch_size = args.batch_size
    data_set = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
    if args.use_multi_gpu:
        sampler = DistributedSampler(data_set, shuffle=shuffle_flag)
        data_loader = DataLoader(data_set, batch_size=batch_size, sampler=sampler)
    else:
        data_loader = DataLoader(data_set, batch_size=batch_size, shuffle=shuffle_flag)
    return data_set, data_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--use_multi_gpu", action="store_true", default=False)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    if args.use_multi_gpu:
        dist.init_process_group(backend="nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = torch.nn.Linear(16, 1).cuda()
    if args.use_multi_gpu:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(model.parameters())
    train_data, train_loader = data_provider(args, "train")
    test_data, test_loader = data_provider(args, "test")
    for epoch in range(args.epochs):
        for x, y in train_loader:
            loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        for x, y in test_loader:
            print((model(x.cuda()) - y.cuda()).abs().mean().item())


if __name__ == "__main__":
    main()
