# stagec fixture: h02_pos_core_api_tutorial_shape
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 mnist_dist.py",
#          resources.slots_per_trial: 4
# runtime: Determined Core API + torch.distributed (DistributedContext.from_torch_distributed)
# expect:
#   T102 at 38:15 torch's DistributedSampler (shuffle=True) feeds train_loader,
#        which run_epoch() iterates once per pass of `for epoch in range(...)`
#        (line 51:5); nothing calls set_epoch, so every epoch repeats
#        epoch 0's order. Fix: insert `sampler.set_epoch(epoch)` as the first statement of the
#        epoch loop.
#   (no T102 for eval_sampler: shuffle=False, its order does not depend on the epoch)
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import determined as det


def run_epoch(model, loader, opt, device):
    model.train()
    for x, y in loader:
        loss = nn.functional.nll_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def main(core: det.core.Context, epochs: int = 8) -> None:
    device = torch.device("cuda", core.distributed.local_rank)
    train_set = TensorDataset(torch.randn(60000, 784), torch.randint(0, 10, (60000,)))
    eval_set = TensorDataset(torch.randn(10000, 784), torch.randint(0, 10, (10000,)))

    sampler = DistributedSampler(
        train_set, num_replicas=core.distributed.size, rank=core.distributed.rank, shuffle=True
    )
    eval_sampler = DistributedSampler(
        eval_set, num_replicas=core.distributed.size, rank=core.distributed.rank, shuffle=False
    )
    train_loader = DataLoader(train_set, batch_size=64, sampler=sampler, num_workers=1, pin_memory=True)
    eval_loader = DataLoader(eval_set, batch_size=256, sampler=eval_sampler)

    net = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10), nn.LogSoftmax(dim=1))
    model = DDP(net.to(device), device_ids=[device])
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)

    for epoch in range(epochs):
        last = run_epoch(model, train_loader, opt, device)
        with torch.no_grad():
            correct = sum((model(x.to(device)).argmax(1) == y.to(device)).sum().item() for x, y in eval_loader)
        if core.distributed.rank == 0:
            core.train.report_validation_metrics(
                steps_completed=(epoch + 1) * len(train_loader), metrics={"correct": correct, "loss": last}
            )
        if core.preempt.should_preempt():
            return


if __name__ == "__main__":
    dist.init_process_group("nccl")
    with det.core.init(distributed=det.core.DistributedContext.from_torch_distributed()) as core_context:
        main(core_context)
