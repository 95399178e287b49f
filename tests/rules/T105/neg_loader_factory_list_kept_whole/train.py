# stagec fixture: neg_loader_factory_list_kept_whole (issue 22, class 9: look-alikes of a loader factory's list)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: none:
#   - `build_eval_loaders` returns its list of loaders, and the caller goes over each once
#     (after training, outside any loop): no pass repeats;
#   - `per_epoch`: a loader built in the epoch loop and iterated in the same loop is built anew
#     at each pass (persistent workers cannot help: build it once).
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def build_eval_loaders(sets, workers):
    loaders = []
    for ds, n in zip(sets, workers):
        loaders.append(DataLoader(ds, batch_size=64, num_workers=n, sampler=DistributedSampler(ds, shuffle=False)))
    return loaders


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(data)
    train_loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, persistent_workers=True)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in train_loader:
            x.sum()
        per_epoch = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4)
        for (x,) in per_epoch:
            x.mean()
    eval_loaders = build_eval_loaders([data, data], [4, 4])
    for loader in eval_loaders:
        for (x,) in loader:
            x.mean()


if __name__ == "__main__":
    main()
