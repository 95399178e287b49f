# stagec fixture: pos_s12_two_resume_tries (issue 22, class 6: Bert-VITS2's train_ms.py)
# named: on the command line, with utils.py
# runtime: torchrun (init_process_group from the environment), torch's DDP
# expect:
#   T103 at 30:5 the first resume `try` falls back to `epoch_str = 1`; the second `try`
#        reads `epoch_str` again, but its handler goes on without it, so on a rank
#        whose reads both fail the loop starts at 1 while the others resume.
#   T103 at 36:5 the second handler keeps that fallback (as before this session).
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
    try:
        _, _, _, epoch_str = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir, "WD_*.pth"), aux, opt_aux)
    except Exception as e:
        print(e)
    for epoch in range(epoch_str, hps.epochs + 1):
        for step in range(hps.steps):
            loss = net(torch.randn(8, 2).cuda(rank)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            global_step += 1
