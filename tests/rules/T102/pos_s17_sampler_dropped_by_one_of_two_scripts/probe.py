# stagec fixture: pos_s17_sampler_dropped_by_one_of_two_scripts (the probe script)
# named: on the command line with data.py and pretrain.py
# expect: none in this file
# ----
import torch
import torch.distributed as dist

from data import init_data


def make_dataloader(batch_size, world_size, rank):
    data_loader, _ = init_data(batch_size=batch_size, world_size=world_size, rank=rank)
    return data_loader


def main():
    dist.init_process_group("nccl")
    loader = make_dataloader(32, dist.get_world_size(), dist.get_rank())
    probe = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 10).cuda())
    optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
    for epoch in range(20):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(probe(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
