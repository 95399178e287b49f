# stagec fixture: pos_s14_config_found_through_init_paths (the entry)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node=4 tools/train.py --cfg x.yaml`)
# context: `import _init_paths` puts lib/ first on sys.path, so `from config import config`
#          is lib/config; its WORKERS default is 4, and the loader restarts its workers at
#          every epoch.
# expect:
#   T105 at 32:9 4 workers per rank restarted at every epoch
# ----
import argparse

import _init_paths  # noqa: F401
import torch
import torch.distributed as dist
from config import config, update_config
from torch import nn
from torch.utils.data import DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cfg", required=True)
    parser.add_argument("--local_rank", type=int, default=-1)
    args = parser.parse_args()
    update_config(config, args)
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group(backend="nccl", init_method="env://")
    dataset = TensorDataset(torch.randn(1024, 8), torch.randn(1024, 1))
    sampler = DistributedSampler(dataset)
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=config.TRAIN.BATCH_SIZE_PER_GPU,
        num_workers=config.WORKERS,
        pin_memory=True,
        sampler=sampler,
    )
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda(), device_ids=[args.local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(config.TRAIN.END_EPOCH):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
