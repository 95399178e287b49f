# stagec fixture: s26 pos_yaml_config_rewrapped_as_dotmap (issue 22, class 9; Text4Vis's shape:
#                 the YAML config is loaded into `config`, then the name is rebound to a DotMap of
#                 itself and read by attribute)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --config configs/k400_few_shot.yaml`)
# expect:
#   T105 at 26:78 config.data.workers = 4 (configs/k400_few_shot.yaml), a loader passed over
#        every epoch
# ----
import argparse

import torch
import torch.distributed as dist
import yaml
from dotmap import DotMap
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main(args):
    dist.init_process_group("nccl")
    with open(args.config, "r") as f:
        config = yaml.load(f, Loader=yaml.FullLoader)
    config = DotMap(config)
    train_data = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    train_sampler = DistributedSampler(train_data)
    train_loader = DataLoader(train_data, batch_size=config.data.batch_size, num_workers=config.data.workers, sampler=train_sampler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(config.solver.epochs):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            torch.nn.functional.mse_loss(model(x.cuda()), y.cuda()).backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="clip.yaml")
    main(parser.parse_args())
