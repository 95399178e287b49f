# stagec fixture: s33 pos_unwrapped_for_saving_restore_skipped (issue 22, class "other": a workspace
#   swaps its DDP-wrapped model for the unwrapped one to save a checkpoint on the main process, but
#   a late epoch `continue`s before the wrapper is put back: from there on the forward bypasses
#   DDP (the shape of universal_manipulation_interface, with an early exit added)
# named: on the command line (`accelerate launch --multi_gpu train.py`)
# expect:
#   T117 at 38:24 `self.model(batch)`: the epoch that saves `continue`s before the wrapper is put
#        back, so the next epoch runs the unwrapped model
# ----
import torch
from accelerate import Accelerator


class Policy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16, 16)

    def forward(self, batch):
        return self.net(batch).pow(2).mean()


class Workspace:
    def __init__(self):
        self.model = Policy()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.epoch = 0

    def save_checkpoint(self):
        torch.save(self.model.state_dict(), "latest.ckpt")

    def run(self):
        accelerator = Accelerator()
        loader = torch.utils.data.DataLoader(torch.zeros(64, 16), batch_size=8)
        loader, self.model, self.optimizer = accelerator.prepare(loader, self.model, self.optimizer)
        for _ in range(100):
            for batch in loader:
                loss = self.model(batch)
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
            if self.epoch % 10 == 0 and accelerator.is_main_process:
                model_ddp = self.model
                self.model = accelerator.unwrap_model(self.model)
                self.save_checkpoint()
                if self.epoch > 90:
                    self.epoch += 1
                    continue
                self.model = model_ddp
            self.epoch += 1


if __name__ == "__main__":
    Workspace().run()
