# stagec fixture: pos_s21_loader_kept_by_template_passed_over_by_subclass (main.py)
# named: with the other files of the case
# expect: nothing in this file
# ----
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import TensorDataset

from trainer import Trainer


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
    data = TensorDataset(torch.randn(1024, 8), torch.randn(1024, 1))
    model = DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = Trainer(model, data, {"batch_size": 32})
    trainer.run_epoch(optimizer, 10)


if __name__ == "__main__":
    main()
