# stagec fixture: pos_s35_final_save_forgotten_beside_guarded_ones (issue 22, class "other";
#                 review 46b: CIRKD's train_kd.py, lightweight-gan's cli.py)
# named: on the command line (`torchrun --nproc_per_node=8 train_kd.py`)
# expect:
#   T118 at 46:9 the loop keeps `save_checkpoint` to rank 0 through a flag,
#        but the final call after the loop runs on every rank, and every rank
#        writes the same file. The report goes to the call that needs the fix.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn


def get_rank():
    return dist.get_rank() if dist.is_initialized() else 0


def save_checkpoint(model, save_dir, student):
    directory = os.path.expanduser(save_dir)
    os.makedirs(directory, exist_ok=True)
    filename = os.path.join(directory, "kd_{}.pth".format(student))
    torch.save(model.module.state_dict(), filename)


class Trainer:
    def __init__(self, save_dir, student, max_iters):
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        self.model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.save_dir = save_dir
        self.student = student
        self.max_iters = max_iters

    def train(self):
        save_to_disk = get_rank() == 0
        for iteration in range(1, self.max_iters + 1):
            loss = self.model(torch.randn(16, 8, device="cuda")).square().mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if iteration % 1000 == 0 and save_to_disk:
                save_checkpoint(self.model, self.save_dir, self.student)
        save_checkpoint(self.model, self.save_dir, self.student)


if __name__ == "__main__":
    Trainer("~/.torch/models", "resnet18", 40000).train()
