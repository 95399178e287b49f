# stagec fixture: s26 pos_opt_in_arm_a_caller_takes (issue 22, class 7)
# named: on the command line, with utils.py
# expect: nothing
# ----
import torch

from utils import prepare_device


def main():
    device = prepare_device(torch.cuda.device_count(), keep_reproducibility=True)
    print(device)


if __name__ == "__main__":
    main()
