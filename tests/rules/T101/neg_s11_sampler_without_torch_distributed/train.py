# stagec fixture: s11 neg_sampler_without_torch_distributed (the training script)
# named: on the command line with data_processor.py
# expect: none in this file
# ----
import torch
import torch.distributed as dist

from data_processor import DataProcessor


def main():
    dist.init_process_group("nccl")
    torch.random.manual_seed(0)
    data = DataProcessor(torch.randn(1024, 8), 16)
    for epoch in range(10):
        data.train_sampler.set_epoch(epoch)
        for x in data.train_loader:
            pass


if __name__ == "__main__":
    main()
