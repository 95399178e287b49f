# stagec fixture: pos_s17_sampler_dropped_by_one_of_two_scripts (the pre-training script)
# named: on the command line with data.py and probe.py
# expect: none in this file
# ----
import torch
import torch.distributed as dist

from data import init_data


def main():
    dist.init_process_group("nccl")
    loader, sampler = init_data(32, dist.get_world_size(), dist.get_rank())
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8).cuda())
    optimizer = torch.optim.AdamW(model.parameters())
    for epoch in range(300):
        sampler.set_epoch(epoch)
        for x, _ in loader:
            loss = model(x.cuda()).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
