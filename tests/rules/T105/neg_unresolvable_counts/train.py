# stagec fixture: h04_neg_unresolvable_counts
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 4, hyperparameters: {hpp_config: {pipeline_parallel_degree: 2},
#          loader_workers: {type: categorical, vals: [2, 4]}}
# runtime: torch.distributed on a pipeline stage's host
# expect: no finding.
#   - os.cpu_count() and min(16, os.cpu_count() // 4): the host's CPU count is unknown
#     statically, so the value is unresolvable and stagec stays silent.
#   - args.workers: the flag has no default= and the entrypoint does not pass --workers, so its
#     value (None, which DataLoader would reject) is not a resolvable count: silent.
#   - hparams["loader_workers"]: every searched candidate (2, 4) is below 8.
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import determined as det


def loaders(args, hparams):
    ds = TensorDataset(torch.randn(30000, 64), torch.randn(30000, 1))
    sampler = DistributedSampler(ds)
    a = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=os.cpu_count())
    b = DataLoader(ds, batch_size=32, num_workers=min(16, os.cpu_count() // 4))
    c = DataLoader(ds, batch_size=32, num_workers=args.workers)
    d = DataLoader(ds, batch_size=32, num_workers=hparams["loader_workers"])
    return sampler, [a, b, c, d]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    hparams = det.get_cluster_info().trial.hparams
    dist.init_process_group("nccl")
    sampler, all_loaders = loaders(args, hparams)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for loader in all_loaders:
            for x, y in loader:
                loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
                opt.zero_grad()
                loss.backward()
                opt.step()


if __name__ == "__main__":
    main()
