# stagec fixture: s28 neg_smoke_test_block_of_imported_module (issue 22, class 3;
#                 hallo's shape: a dataset module the multi-rank script imports has its own
#                 `if __name__ == "__main__":` smoke test, which runs only when the module itself
#                 is run, as one process)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`, with data.py)
# expect: nothing
#   - the smoke test's `shuffle=True`, under the training script's `torch.manual_seed(0)`,
#     belongs to data.py run alone, which shows no ranks; the training script never runs that
#     block.
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from data import FaceMaskDataset


def main():
    torch.manual_seed(0)
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 1).cuda())
    dataset = FaceMaskDataset(img_size=(512, 512))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8, num_workers=0)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch["img"].cuda()).sum().backward()


if __name__ == "__main__":
    main()
