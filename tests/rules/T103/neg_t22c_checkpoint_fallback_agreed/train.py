# stagec fixture: t22c neg_t22c_checkpoint_fallback_agreed
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, the model wrapped in DDP
# expect: none
#   - resume(): the same fallback to `epoch = 0` as pos_t22c_checkpoint_fallback, but train()
#     agrees on it before looping: the epoch is broadcast from rank 0 and bound again, so every
#     rank runs `range(start_epoch, epochs)` from the same value.
#   - load_best(): the fallback (`best = 0.0`) bounds no loop; it only gates a chief-only save.
#   - load_schedule(): the handler re-raises after logging.
#   - warmup_steps(): the fallback bounds a loop that runs no collective (a scheduler warm-up).
#   - start_step(): the fallback follows an environment variable, the same on every rank: when
#     it is missing or malformed it is so on all of them, and every rank starts at 0.
# ----
import json
import logging
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def resume(path, model, opt):
    try:
        state = torch.load(path, map_location="cpu")
        model.module.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        epoch = state["epoch"]
    except Exception as e:
        logging.info("could not resume from %s: %s", path, e)
        epoch = 0
    return model, opt, epoch


def load_best(path):
    try:
        with open(path) as f:
            best = json.load(f)["acc"]
    except OSError:
        best = 0.0
    return best


def load_schedule(path):
    try:
        with open(path) as f:
            milestones = json.load(f)["milestones"]
    except OSError as e:
        logging.error("schedule missing: %s", e)
        raise
    return milestones


def warmup_steps(sched, path):
    try:
        with open(path) as f:
            done = int(f.read())
    except OSError:
        done = 0
    for _ in range(done, 500):
        sched.step()


def start_step():
    try:
        first = int(os.environ["START_STEP"])
    except Exception:
        first = 0
    return first


def train(path="/mnt/checkpoints/latest.pt", epochs=90):
    dist.init_process_group("nccl")
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = DDP(nn.Linear(512, 10).to(device), device_ids=[device])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, load_schedule("/mnt/checkpoints/schedule.json"))
    warmup_steps(sched, "/mnt/checkpoints/warmup.txt")
    model, opt, start_epoch = resume(path, model, opt)
    agreed = torch.tensor(start_epoch, device=device)
    dist.broadcast(agreed, src=0)
    start_epoch = int(agreed.item())
    best = load_best("/mnt/checkpoints/best.json")
    first = start_step()
    for step in range(first, 200):
        loss = model(torch.randn(32, 512, device=device)).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    for epoch in range(start_epoch, epochs):
        for _ in range(100):
            loss = model(torch.randn(32, 512, device=device)).logsumexp(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        acc = 1.0 / (1.0 + loss.item())
        if dist.get_rank() == 0 and acc > best:
            best = acc
            torch.save(model.module.state_dict(), "/mnt/checkpoints/best.pt")


if __name__ == "__main__":
    train()
