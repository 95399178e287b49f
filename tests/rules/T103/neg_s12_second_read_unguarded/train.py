# stagec fixture: neg_s12_second_read_unguarded (issue 22, class 6: the look-alike of pos_s12_two_resume_tries)
# named: on the command line, with utils.py
# runtime: torchrun (init_process_group from the environment), torch's DDP
# expect: nothing. The first handler falls back to `epoch_str = 1`, but the
#   second read is not guarded: it runs on every rank, and where it fails the
#   rank stops with the error; the loop always starts where that read says.
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import utils


def run(hps):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    net = DDP(utils.make_model().cuda(rank), device_ids=[rank])
    aux = utils.make_model().cuda(rank)
    opt = torch.optim.AdamW(net.parameters())
    opt_aux = torch.optim.AdamW(aux.parameters())
    try:
        _, _, _, epoch_str = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir, "G_*.pth"), net, opt)
        epoch_str = max(epoch_str, 1)
        global_step = (epoch_str - 1) * hps.steps
    except Exception as e:
        print(e)
        epoch_str = 1
        global_step = 0
    _, _, _, epoch_str = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir, "WD_*.pth"), aux, opt_aux)
    for epoch in range(epoch_str, hps.epochs + 1):
        for step in range(hps.steps):
            loss = net(torch.randn(8, 2).cuda(rank)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            global_step += 1
