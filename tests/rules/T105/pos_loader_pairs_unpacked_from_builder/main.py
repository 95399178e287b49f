# named: on the command line
# expect: none here
# ----
import torch
import torch.distributed as dist

from tools import pretrain_run_net as pretrain
from utils import parser


def main():
    args = parser.get_args()
    if args.launcher != "none":
        dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
    pretrain(args, model)


if __name__ == "__main__":
    main()
