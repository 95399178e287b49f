# stagec fixture: s27 pos_omegaconf_merge_of_file_and_namespace (issue 22, class 9; UniAudio's
#                 codec shape: the YAML config merged with the argparse namespace by
#                 `OmegaConf.merge(model_config, OmegaConf.create(vars(args)))`; the parser has no
#                 --num_workers, so the file's value is the one read)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --basic_model_config config/codec.yaml`)
# expect:
#   T105 at 37:62 num_workers = 8 from config/codec.yaml through OmegaConf.merge
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from omegaconf import OmegaConf
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--basic_model_config", default="config/missing.yaml")
    parser.add_argument("--local_rank", type=int, default=0)
    return parser.parse_args()


def main():
    args = get_args()
    model_config = OmegaConf.load(args.basic_model_config)
    args = OmegaConf.create(vars(args))
    config = OmegaConf.merge(model_config, args)
    main_worker(args.local_rank, config)


def main_worker(rank, args):
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(64, 8))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler, num_workers=args.num_workers)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    for epoch in range(args.num_epoches):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    main()
