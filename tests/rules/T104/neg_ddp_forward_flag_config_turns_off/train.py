# stagec fixture: neg_ddp_forward_flag_config_turns_off (issue 22, class 2; a timm-style train.py: the
#   flags' defaults come from the YAML file given with --config, `parser.set_defaults(**cfg)`, and
#   one of the project's config files turns the buffer broadcast off: not known to be on)
# named: on the command line (a torchrun script, no config; the YAML files are the project's)
# runtime: multi-rank (init_process_group; a timm model, whose BatchNorm buffers DDP broadcasts)
# expect: none
# ----
import argparse
import math

import timm
import torch
import torch.distributed as dist
import yaml

config_parser = argparse.ArgumentParser(add_help=False)
config_parser.add_argument("-c", "--config", default="", type=str)
parser = argparse.ArgumentParser()
parser.add_argument("--model", default="resnet50")
parser.add_argument("--local_rank", type=int, default=0)
parser.add_argument("--no-ddp-bb", action="store_true", default=False)
parser.add_argument("--epochs", type=int, default=300)


def parse_args():
    args_config, remaining = config_parser.parse_known_args()
    if args_config.config:
        with open(args_config.config, "r") as f:
            cfg = yaml.safe_load(f)
            parser.set_defaults(**cfg)
    return parser.parse_args(remaining)


def main():
    args = parse_args()
    dist.init_process_group("nccl")
    model = timm.create_model(args.model).cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank],
                                                      broadcast_buffers=not args.no_ddp_bb)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        images = torch.randn(8, 3, 224, 224).cuda()
        loss = model(images).logsumexp(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if not math.isfinite(loss.item()):
            if args.local_rank == 0:
                with torch.autograd.detect_anomaly():
                    output = model(images)
                print(output)
            raise SystemExit(1)


if __name__ == "__main__":
    main()
