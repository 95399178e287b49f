# stagec fixture: neg_s30_shuffle_flag_overridden_after_the_split_test (issue 22, class 3's
#   look-alike of pos_s30_shuffle_flag_set_by_split: the split's `if`/`elif` chain sets the flag,
#   but a loop after it may set it again, so whether the 'train' call shuffles is not known)
# named: on the command line (`torchrun --nproc_per_node=8 train.py --use_multi_gpu`)
# runtime: multi-rank (init_process_group under --use_multi_gpu)
# expect: nothing (the flag has an assignment outside the chain)
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
    for _ in args.fixed_order_splits:
        shuffle_flag = False
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
    parser.add_argument("--fixed_order_splits", nargs="*", default=[])
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
