# stagec fixture: t22b pos_t22b_fabric_and_logging_helpers
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: Lightning Fabric (FSDP), 4 processes
# expect:
#   T104 at 41:9 fabric.save() must be called on every process (each writes its shard and they
#        synchronise); only global rank 0 calls it, so it waits for the 3 others forever.
#   T104 at 43:9 log_step() logs under `fabric.global_rank == 0 and step % 10 == 0` (a branch with
#        no collective, which need not be decided), then all-reduces: called only on rank 0.
# ----
import lightning as L
import torch
from torch import nn


def log_step(fabric: L.Fabric, loss, step):
    if fabric.global_rank == 0 and step % 10 == 0:
        print(step, loss.item())
    return fabric.all_reduce(loss, reduce_op="mean")


def fit(fabric, model, opt, batches):
    for step, x in enumerate(batches):
        loss = model(x).mean()
        fabric.backward(loss)
        opt.step()
        opt.zero_grad()
        log_step(fabric, loss.detach(), step)


def main():
    fabric = L.Fabric(devices=4, strategy="fsdp")
    fabric.launch()
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = fabric.setup(model, opt)
    batches = [torch.randn(4, 8) for _ in range(100)]
    fit(fabric, model, opt, batches)
    state = {"model": model, "optimizer": opt}
    if fabric.global_rank == 0:
        fabric.save("/mnt/checkpoints/final.ckpt", state)
    if fabric.is_global_zero:
        log_step(fabric, torch.zeros(()), 0)
    fabric.barrier()


if __name__ == "__main__":
    main()
