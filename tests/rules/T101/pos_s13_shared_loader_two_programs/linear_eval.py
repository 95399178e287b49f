# stagec fixture: pos_s13_shared_loader_two_programs (the linear evaluation script; swav's shape)
# named: on the command line with data.py and pretrain.py (`torchrun --nproc_per_node=8 linear_eval.py`)
# context: its own seed, and the random transform set on the dataset after it is made
#          (`train_dataset.transform = …`): the same loader, another program.
# expect:
#   T101 at 15:1 this script's seed
# ----
import torch
import torch.distributed as dist
from torchvision import datasets, transforms

from data import init_data

dist.init_process_group("nccl")
torch.manual_seed(31)
train_dataset = datasets.ImageFolder("/data/train")
train_dataset.transform = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor()])
loader, sampler = init_data(train_dataset, 256, dist.get_world_size(), dist.get_rank())
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
for epoch in range(100):
    sampler.set_epoch(epoch)
    for x, _ in loader:
        model(x.cuda()).sum().backward()
