# stagec fixture: pos_s20_benchmark_in_a_script_that_seeds_too (the training script)
# named: on the command line, with valid.py
# ----
import random

import numpy as np
import torch



def manual_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    manual_seed(1234)
    model = torch.nn.Conv2d(3, 8, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        loss = model(torch.randn(2, 3, 32, 32)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), "model.ckpt")


if __name__ == "__main__":
    main()
