# stagec fixture: pos_s21_loaders_listed_for_a_template_loop (issue 22, class 3: the training
#                 loader goes into a list a trainer keeps; the template's epoch loop calls the
#                 subclass's `train_epoch`, which passes over each listed loader, and nothing
#                 calls `set_epoch` on the DistributedSampler: every epoch repeats epoch 0's
#                 order. No fix is offered: the trainer holds a list, not the loader.)
# named: beside the other files, as pre-commit passes them
# expect:
#   T102 at 22:54 DistributedSampler shuffles with seed + epoch, but set_epoch is never called …
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
