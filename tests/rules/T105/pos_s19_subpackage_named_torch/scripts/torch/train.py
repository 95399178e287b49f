# stagec fixture: s19 pos_subpackage_named_torch (issue 22, class 9: the project's own subpackage
#                 `classy/torch/` imports the real torch with `import torch`; named beside the
#                 script, it must not be taken for torch, or no loader of the script is one)
# named: on the command line (the script and the subpackage's helpers, as a commit passes them)
# runtime: multi-rank (mp.spawn, init_process_group)
# expect:
#   T105 at 32:9 num_workers=4 starts 4 worker processes on every rank …
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from classy.torch.utils import AverageMeter, mkdir


def main():
    ngpus = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus,))


def main_worker(gpu, ngpus):
    dist.init_process_group(backend="nccl", init_method="env://", world_size=ngpus, rank=gpu)
    torch.cuda.set_device(gpu)
    mkdir("out")
    trainset = torch.utils.data.TensorDataset(torch.randn(64, 3))
    train_sampler = torch.utils.data.distributed.DistributedSampler(trainset)
    train_loader = torch.utils.data.DataLoader(
        trainset,
        batch_size=8,
        sampler=train_sampler,
        pin_memory=True,
        num_workers=4,
    )
    losses = AverageMeter()
    for epoch in range(10):
        train_sampler.set_epoch(epoch)
        for (x,) in train_loader:
            losses.update(x.sum().item())


if __name__ == "__main__":
    main()
