# stagec fixture: neg_s17_test_loader_made_per_test_set (the script)
# named: on the command line with data.py and engine.py (`torchrun --nproc_per_node 8 train.py`)
# expect: none in this file
# ----
import torch
import torch.distributed as dist

from engine import Trainer


def main():
    dist.init_process_group(backend="nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    Trainer(model, optimizer, ["market1501", "dukemtmc"]).train(epochs=60, steps=100)


if __name__ == "__main__":
    main()
