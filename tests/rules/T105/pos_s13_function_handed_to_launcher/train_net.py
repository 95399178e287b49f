# stagec fixture: pos_s13_function_handed_to_launcher (the trainer)
# named: imported by run_net.py
# expect:
#   T105 at 17:61 `cfg.workers` is the parsed default (8), reached through the launcher's
#        `func(cfg=cfg)` calls; the loader is read every epoch
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms


def train(cfg):
    ds = datasets.ImageFolder("/data", transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()]))
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=cfg.workers)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            model(x.cuda()).sum().backward()
            opt.step()
