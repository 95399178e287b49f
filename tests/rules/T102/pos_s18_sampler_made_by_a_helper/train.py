# stagec fixture: s18 pos_sampler_made_by_a_helper (issue 22, class 3; review 22a's
#                 vq-vae-2-pytorch train_vqvae.py:99: the sampler comes from a helper of the
#                 package, and the epoch loop never calls set_epoch)
# named: on the command line (a torchrun script and its distributed helpers)
# runtime: multi-rank (init_process_group)
# expect: (in dist_util.py's header) the finding where the helper builds the sampler, with
#         the call in this script that makes it labelled.
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset

import dist_util


def main(args):
    dist.init_process_group("nccl")
    dataset = TensorDataset(torch.randn(1024, 8))
    sampler = dist_util.data_sampler(dataset, shuffle=True, distributed=True)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for (x,) in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    main(parser.parse_args())
