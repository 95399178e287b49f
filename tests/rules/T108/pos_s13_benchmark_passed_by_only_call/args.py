# stagec fixture: pos_s13_benchmark_passed_by_only_call (the argument class; Infinity's shape)
# named: on the command line with train.py
# expect: none in this file (the call that passes True is where the fix goes)
# ----
import torch
import torch.distributed as dist


class Args:
    seed: int = None
    rand: bool = True

    def set_initial_seed(self, benchmark: bool):
        torch.backends.cudnn.enabled = True
        torch.backends.cudnn.benchmark = benchmark
        if self.seed is None:
            torch.backends.cudnn.deterministic = False
        else:
            seed = self.seed + (dist.get_rank() * 512 if self.rand else 0)
            torch.backends.cudnn.deterministic = True
            torch.manual_seed(seed)
