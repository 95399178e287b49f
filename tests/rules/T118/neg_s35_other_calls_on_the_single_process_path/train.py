# stagec fixture: neg_s35_other_calls_on_the_single_process_path (issue 22, class "other"; the
#                 look-alikes of pos_s35_final_save_forgotten_beside_guarded_ones: transfuser's
#                 train.py, minimind's trainer_utils.lm_checkpoint)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`, or `python train.py`)
# expect: nothing
#   - `Engine.save` is kept to rank 0 when the run is parallel, and called
#     unguarded on the `else:` branch of that same test: the path without ranks.
#   - `checkpoint` saves only when it is given a model (`if model is not
#     None:`); the call every rank runs passes none, and loads.
#   - `save_state` is called on every rank with each rank's own file name
#     (OLMo's sharded checkpoints), and on rank 0 for the shared one.
#   - `Engine.save_network` runs on rank 0 only, through the code's own
#     `@master_only` decorator (BasicSR's), though `Engine.snapshot` calls it
#     on every rank.
# ----
import functools
import os

import torch
import torch.distributed as dist
from torch import nn


def checkpoint(save_dir, model=None):
    path = os.path.join(save_dir, "last.pth")
    if model is not None:
        torch.save(model.state_dict(), path)
        return None
    return torch.load(path) if os.path.exists(path) else None


def master_only(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if dist.get_rank() == 0:
            return func(*args, **kwargs)
        return None

    return wrapper


def save_state(folder, fname, state):
    path = os.path.join(folder, fname)
    torch.save(state, path)


class Engine:
    def __init__(self, model, opt, logdir):
        self.model, self.opt, self.logdir = model, opt, logdir
        self.cur_epoch = 0

    def train(self):
        loss = self.model(torch.randn(16, 8, device="cuda")).square().mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.cur_epoch += 1

    @master_only
    def save_network(self, label):
        torch.save(self.model.state_dict(), os.path.join(self.logdir, f"{label}_{self.cur_epoch}.pth"))

    def snapshot(self):
        self.save_network("net_g")

    def save(self):
        torch.save(self.model.state_dict(), os.path.join(self.logdir, "model_%d.pth" % self.cur_epoch))


def main():
    parallel = "WORLD_SIZE" in os.environ
    rank = 0
    model = nn.Linear(8, 1).cuda()
    if parallel:
        dist.init_process_group("nccl")
        rank = dist.get_rank()
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        model = nn.parallel.DistributedDataParallel(model)
    state = checkpoint("ckpt")
    if state is not None:
        model.load_state_dict(state)
    trainer = Engine(model, torch.optim.SGD(model.parameters(), lr=0.1), "logs")
    for epoch in range(10):
        trainer.train()
        if parallel == True:
            save_state("ckpt", f"model/rank{dist.get_rank()}.pt", model.state_dict())
            trainer.snapshot()
            if rank == 0:
                trainer.save()
                checkpoint("ckpt", model=model)
                save_state("ckpt", "config.pt", {"epoch": epoch})
                trainer.save_network("net_g_best")
        else:
            trainer.save()


if __name__ == "__main__":
    main()
