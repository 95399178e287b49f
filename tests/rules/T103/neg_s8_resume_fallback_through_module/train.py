# stagec fixture: s8 neg_resume_fallback_through_module (issue 22, class 6; the look-alike of
#                 pos_s8_resume_fallback_through_module)
# named: on the command line, with utils.py
# runtime: torch.multiprocessing.spawn, DDP
# expect: nothing
#   - the epoch read through the project's helper is rebound after the handler under a flag
#     stagec cannot resolve (`hps.reset_optimizer`): every rank may take that branch alike,
#     so which value bounds the loop is not known.
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.cuda.amp import GradScaler
from torch.nn.parallel import DistributedDataParallel as DDP

import utils


def run(rank, n_gpus, hps):
    dist.init_process_group("nccl", rank=rank, world_size=n_gpus)
    net_g = DDP(utils.make_model().cuda(rank), device_ids=[rank])
    optim_g = torch.optim.AdamW(net_g.parameters())
    skip_optimizer = hps.reset_optimizer
    try:
        _, _, _, epoch_str = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir, "G_*.pth"), net_g, optim_g, skip_optimizer)
        epoch_str = max(epoch_str, 1)
    except Exception:
        print("load old checkpoint failed...")
        epoch_str = 1
        global_step = 0
    if skip_optimizer:
        epoch_str = 1
        global_step = 0
    scaler = GradScaler()
    for epoch in range(epoch_str, hps.epochs + 1):
        train_and_evaluate(rank, epoch, net_g, optim_g, scaler, hps.loader)


def train_and_evaluate(rank, epoch, net_g, optim_g, scaler, loader):
    for batch_idx, (x, y) in enumerate(loader):
        loss = (net_g(x) - y).abs().mean()
        optim_g.zero_grad()
        loss.backward()
        scaler.step(optim_g)
        scaler.update()


def main(hps):
    n_gpus = torch.cuda.device_count()
    mp.spawn(run, nprocs=n_gpus, args=(n_gpus, hps))
