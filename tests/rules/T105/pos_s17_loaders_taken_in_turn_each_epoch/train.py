# stagec fixture: pos_s17_loaders_taken_in_turn_each_epoch
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: the loaders are built once, before the epochs; each epoch takes them in turn through
#          a loop variable. Binding `loader` at each pass makes no new loader (look-alike of
#          neg_s17_loader_remade_each_epoch_by_its_builder): each pass restarts the workers.
# expect:
#   T105 at 15:61 4 workers per rank, started again at each epoch
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def build(data, sampler):
    return DataLoader(data, batch_size=64, sampler=sampler, num_workers=4)


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(8000, 16))
    sampler = DistributedSampler(data)
    train = build(data, sampler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for loader in (train,):
            for (x,) in loader:
                model(x.cuda()).sum().backward()


if __name__ == "__main__":
    main()
