# stagec fixture: pos_s13_shared_loader_two_programs (the pretraining script)
# named: on the command line with data.py and linear_eval.py (`torchrun --nproc_per_node=8 pretrain.py`)
# context: a module-level seed every rank shares; the shared loader's workers apply random crops.
# expect:
#   T101 at 16:1 this script's seed
# ----
import torch
import torch.distributed as dist
from torchvision import datasets, transforms

from data import init_data

_GLOBAL_SEED = 0

dist.init_process_group("nccl")
torch.manual_seed(_GLOBAL_SEED)
ds = datasets.ImageFolder("/data/train", transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()]))
loader, sampler = init_data(ds, 64, dist.get_world_size(), dist.get_rank())
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
for epoch in range(100):
    sampler.set_epoch(epoch)
    for x, _ in loader:
        model(x.cuda()).sum().backward()
