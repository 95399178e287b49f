# stagec fixture: pos_loader_iterated_on_one_rank (issue 22, class 9: every rank builds the test loader, one iterates it; KAIR's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler); `opt['rank']` is the rank by its key
# expect:
#   T105 at 37:58 the test loader: built on every rank, iterated only where
#        `opt['rank'] == 0` (every 500 steps): that rank's 4 workers restart at each pass
#   (silent: the probe loader, also iterated on rank 0 only, has 1 worker; the training loader
#   keeps its workers)
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_dist_info():
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def main():
    dist.init_process_group("nccl")
    opt = {"datasets": {"train": {"workers": 8}, "test": {"workers": 4}}}
    opt["rank"], opt["world_size"] = get_dist_info()
    data = TensorDataset(torch.randn(4096, 16))
    for phase in ("train", "test"):
        if phase == "train":
            sampler = DistributedSampler(data)
            train_loader = DataLoader(
                data,
                batch_size=32,
                sampler=sampler,
                num_workers=8,
                persistent_workers=True,
            )
        else:
            test_loader = DataLoader(data, batch_size=1, num_workers=4)
    probe_loader = DataLoader(data, batch_size=1, num_workers=1)
    step = 0
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (x,) in train_loader:
            step += 1
            x.sum()
            if step % 500 == 0 and opt["rank"] == 0:
                for (t,) in test_loader:
                    t.mean()
                for (t,) in probe_loader:
                    t.mean()


if __name__ == "__main__":
    main()
