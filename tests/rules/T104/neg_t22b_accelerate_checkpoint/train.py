# stagec fixture: t22b neg_t22b_accelerate_checkpoint
# context: const.yaml entrypoint "accelerate launch --num_processes 8 train.py"
# runtime: Accelerate, 8 processes; the look-alikes of pos_t22b_accelerate_checkpoint
# expect: none
#   - save_state() on every process, then main-process-only pruning of old folders.
#   - the condition also admits every rank when the backend is DeepSpeed or FSDP (the fix).
#   - get_state_dict() on every process; only the write is main-process-only.
#   - accelerator.save() (a torch.save on the main process) under is_main_process.
# ----
import shutil

import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType
from torch import nn


def fit(model, loader, steps):
    accelerator = Accelerator()
    model = nn.Sequential(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for step, batch in enumerate(loader):
        loss = model(batch).mean()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        if step % 500 == 0:
            accelerator.save_state(f"/mnt/checkpoints/step-{step}")
            if accelerator.is_main_process:
                shutil.rmtree(f"/mnt/checkpoints/step-{step - 1000}", ignore_errors=True)
        if step % 700 == 0:
            if accelerator.is_main_process or accelerator.distributed_type in (DistributedType.DEEPSPEED, DistributedType.FSDP):
                accelerator.save_state(f"/mnt/checkpoints/alt-{step}")
        if step == steps:
            weights = accelerator.get_state_dict(model)
            if accelerator.is_main_process:
                accelerator.save(weights, "/mnt/checkpoints/final.pt")
                accelerator.save({"step": step}, "/mnt/checkpoints/meta.pt")
            break
