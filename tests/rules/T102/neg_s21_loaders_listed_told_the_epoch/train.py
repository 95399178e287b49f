# stagec fixture: neg_s21_loaders_listed_told_the_epoch (issue 22, class 3, a look-alike: the
#                 trainer's `train_epoch` tells each listed loader's sampler the epoch,
#                 `loader.sampler.set_epoch(self.epoch)`, before passing over it)
# named: beside the other files, as pre-commit passes them
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from ltr_trainer import LTRTrainer


def main():
    dist.init_process_group(backend="nccl")
    local = dist.get_rank() % torch.cuda.device_count()
    torch.cuda.set_device(local)
    data = TensorDataset(torch.randn(1024, 16), torch.randn(1024, 1))
    loader = DataLoader(data, batch_size=32, sampler=DistributedSampler(data))
    net = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda(), device_ids=[local])
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-4)
    trainer = LTRTrainer(net, [loader], optimizer)
    trainer.train(50)


if __name__ == "__main__":
    main()
