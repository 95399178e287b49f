# stagec fixture: s26 pos_opt_in_arm_a_caller_takes (issue 22, class 7; FullSubNet's
#                 audio_zen/utils.py: `prepare_device(n_gpu, keep_reproducibility=False)` asks for
#                 deterministic algorithms only when a caller opts in, and the inference script does)
# named: on the command line, with infer.py
# expect:
#   T107 at 16:9 the opt-in arm, which infer.py takes
# ----
import torch


def prepare_device(n_gpu: int, keep_reproducibility=False):
    if n_gpu == 0:
        return torch.device("cpu")
    if keep_reproducibility:
        torch.backends.cudnn.benchmark = False
        torch.set_deterministic(True)
    else:
        torch.backends.cudnn.benchmark = True
    return torch.device("cuda:0")


def load_checkpoint(path, device):
    return torch.load(path, map_location=device)
