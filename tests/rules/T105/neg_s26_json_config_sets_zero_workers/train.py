# stagec fixture: s26 neg_json_config_sets_zero_workers (issue 22, class 9; the look-alike of
#                 pos_s26_json_config_get_default: the project's run config sets the key to 0, so
#                 the code's default is not what runs)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --config_path configs/run.json`)
# expect: nothing
# ----
import argparse
import json

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main(args, config):
    dist.init_process_group("nccl")
    train_data = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    sampler = DistributedSampler(train_data)
    train_loader = DataLoader(
        train_data,
        batch_size=config["BatchSize"] // dist.get_world_size(),
        sampler=sampler,
        num_workers=config.get("NumLoaderWorkers", 4),
    )
    model = DDP(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(config.get("NumEpochs", 100)):
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            torch.nn.functional.mse_loss(model(x.cuda()), y.cuda()).backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config_path", required=True)
    args = parser.parse_args()
    with open(args.config_path) as f:
        config = json.load(f)
    main(args, config)
