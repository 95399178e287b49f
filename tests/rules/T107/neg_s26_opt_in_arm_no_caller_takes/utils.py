# stagec fixture: s26 neg_opt_in_arm_no_caller_takes (issue 22, class 7; FullSubNet's
#                 audio_zen/utils.py: `prepare_device(n_gpu, keep_reproducibility=False)` asks for
#                 deterministic algorithms only when a caller opts in, and no caller does)
# named: on the command line (a helper module changed on its own, as pre-commit passes it)
# expect: nothing
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
