# stagec fixture: pos_s16_builder_reexported_by_its_package (entry script)
# named: on the command line with datasets/make_dataloader.py and processor/processor.py
# context: TransReID's layout: `from datasets import make_dataloader` reaches the function
#          `datasets/__init__.py` re-exports from its submodule of the same name
#          (`from .make_dataloader import make_dataloader`); the package's binding shadows the
#          submodule, as it does in Python. The loaders it returns go to `do_train`, which the
#          package `processor` re-exports from its submodule `processor`.
# expect: none in this file
# ----
import argparse

import torch

from datasets import make_dataloader
from processor import do_train

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", default=0, type=int)
    args = parser.parse_args()
    torch.distributed.init_process_group(backend="nccl", init_method="env://")
    torch.cuda.set_device(args.local_rank)
    train_loader, val_loader, num_classes = make_dataloader(args)
    model = torch.nn.Linear(64, num_classes).cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    do_train(model, train_loader, val_loader, optimizer, 120)
