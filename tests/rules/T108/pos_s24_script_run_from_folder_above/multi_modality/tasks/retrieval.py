# stagec fixture: s24 pos_script_run_from_folder_above (issue 22, class 7; review 31a's
#                 unmasked_teacher: the script lives in `multi_modality/tasks/` and is run from
#                 `multi_modality/` with that folder on the path, so its `utils.basic_utils`
#                 is `multi_modality/utils/basic_utils.py`, where the seeding is)
# named: on the command line (`cd multi_modality && PYTHONPATH=. torchrun tasks/retrieval.py`)
# expect:
#   T108 at 25:5 cudnn.benchmark in a run that seeds torch through the helper found there.
# ----
import argparse

import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist

from utils.basic_utils import setup_seed
from utils.distributed import get_rank


def main(args):
    dist.init_process_group("nccl")
    setup_seed(args.seed + get_rank())
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    device = torch.device("cuda")
    cudnn.benchmark = True
    for step in range(10):
        loss = model(torch.randn(2, 3, 32, 32, device=device)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    main(parser.parse_args())
