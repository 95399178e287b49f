# stagec fixture: t22b pos_t22b_accelerate_checkpoint
# context: const.yaml entrypoint "accelerate launch --num_processes 8 train.py"
# runtime: Accelerate, 8 processes; the backend (DDP, DeepSpeed, FSDP) comes from the launch config
# expect:
#   T104 at 39:21 accelerator.save_state() only on the main process: under DeepSpeed or FSDP
#        every rank saves its shards together, so the main process waits for the 7 others.
#   T104 at 42:21 self.export() (a method) calls accelerator.get_state_dict(), which gathers
#        the shards under DeepSpeed ZeRO-3 or FSDP, only where `accelerator.is_main_process`.
#   T104 at 26:13 and export() itself returns early on all but each node's main process, so even
#        called on every rank only those reach the gather.
# ----
import torch
from accelerate import Accelerator
from torch import nn


class Runner:
    def __init__(self, model, loader):
        self.accelerator = Accelerator()
        self.model = nn.Sequential(model)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.model, self.opt, self.loader = self.accelerator.prepare(self.model, self.opt, loader)

    def export(self, path):
        if not self.accelerator.is_local_main_process:
            return
        weights = self.accelerator.get_state_dict(self.model)
        self.accelerator.save(weights, path)

    def fit(self, steps):
        accelerator = self.accelerator
        for step, batch in enumerate(self.loader):
            loss = self.model(batch).mean()
            accelerator.backward(loss)
            self.opt.step()
            self.opt.zero_grad()
            if step % 500 == 0:
                if accelerator.is_main_process:
                    accelerator.save_state(f"/mnt/checkpoints/step-{step}")
            if step == steps:
                if self.accelerator.is_main_process:
                    self.export("/mnt/checkpoints/final.pt")
                break
