# stagec fixture: pos_s13_transform_set_after_dataset (swav's eval_linear)
# named: on the command line (`torchrun --nproc_per_node=8 eval_linear.py`)
# context: the dataset is made without a transform and given its random one afterwards
#          (`train_dataset.transform = transforms.Compose([…])`); every rank seeds alike and the
#          loader's 10 workers apply the crops. The validation loader's transform draws nothing.
# expect:
#   T101 at 21:1 the seed every rank shares, with the training loader's random crops
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=31)
parser.add_argument("--workers", type=int, default=10)
args = parser.parse_args()
dist.init_process_group("nccl")
torch.manual_seed(args.seed)
train_dataset = datasets.ImageFolder("/data/train")
val_dataset = datasets.ImageFolder("/data/val")
train_dataset.transform = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()])
val_dataset.transform = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])
sampler = DistributedSampler(train_dataset)
train_loader = DataLoader(train_dataset, sampler=sampler, batch_size=256, num_workers=args.workers, persistent_workers=True)
val_loader = DataLoader(val_dataset, sampler=DistributedSampler(val_dataset, shuffle=False), batch_size=256, num_workers=args.workers, persistent_workers=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
for epoch in range(100):
    sampler.set_epoch(epoch)
    for x, _ in train_loader:
        model(x.cuda()).sum().backward()
    for x, _ in val_loader:
        model(x.cuda())
