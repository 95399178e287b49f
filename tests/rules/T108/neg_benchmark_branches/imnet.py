# stagec fixture: h05_neg_benchmark_branches
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 imnet.py --arch resnet50",
#          resources.slots_per_trial: 8, environment.image determinedai/environments:cuda-11.8-pytorch-2.0-gpu-95c7a14
# runtime: torch.distributed
# expect: no finding.
#   - benchmark = True and the determinism settings sit in the two exclusive arms of
#     `if args.deterministic:`; they never hold together (and with this entrypoint, which does
#     not pass --deterministic, args.deterministic resolves to False: only the else arm runs).
#   - use_deterministic_algorithms(True, warn_only=True): nondeterministic ops only warn, nothing
#     raises, so the missing CUBLAS_WORKSPACE_CONFIG is not reported (T107 silent).
#   - configure_eval(): deterministic = args.deterministic (False) and benchmark = not
#     args.deterministic (True): no determinism request is made on that path. Run with
#     --deterministic, the values flip together, still never both.
# ----
import argparse
import os

import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist
import torchvision


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--deterministic", action="store_true")
    p.add_argument("--seed", type=int, default=None)
    return p.parse_args()


def configure_eval(args) -> None:
    cudnn.deterministic = args.deterministic
    cudnn.benchmark = not args.deterministic


def main() -> None:
    args = parse()
    if args.deterministic:
        torch.manual_seed(args.seed or 0)
        torch.use_deterministic_algorithms(True, warn_only=True)
        cudnn.deterministic = True
        cudnn.benchmark = False
    else:
        cudnn.benchmark = True

    dist.init_process_group("nccl")
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    model = getattr(torchvision.models, args.arch)().cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for step in range(100):
        x = torch.randn(64, 3, 224, 224, device="cuda")
        y = torch.randint(0, 1000, (64,), device="cuda")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    configure_eval(args)


if __name__ == "__main__":
    main()
