# stagec fixture: t22c pos_t22c_checkpoint_fallback (training loop)
# expect:
#   T103 at 26:5 the same fallback in one function: `except OSError` sets `step = 0`, and the loop
#        `range(step, total_steps)` runs the DDP backward from there.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from src.ckpt import resume


def make_model(device):
    return DDP(nn.Linear(512, 10).to(device), device_ids=[device])


def finetune(model, opt, device, total_steps=1000):
    with open("/mnt/checkpoints/step.txt") as f:
        text = f.read()
    try:
        with open("/mnt/checkpoints/finetune_step.txt") as f:
            step = int(f.read())
    except OSError:
        print("no finetune checkpoint, starting at step 0")
        step = 0
    for i in range(step, total_steps):
        loss = model(torch.randn(32, 512, device=device)).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return text


def train(path, epochs=90):
    dist.init_process_group("nccl")
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = make_model(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    start_epoch = 0
    if os.path.exists(path):
        model, opt, start_epoch = resume(path, model, opt)
    for epoch in range(start_epoch, epochs):
        for _ in range(100):
            loss = model(torch.randn(32, 512, device=device)).logsumexp(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    finetune(model, opt, device)
