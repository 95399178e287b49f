# stagec fixture: neg_s17_epoch_told_engine_shared_with_another_script (a timing script)
# named: on the command line with engine.py and main.py
# expect: none in this file
# ----
import time

import torch

from engine import train_one_epoch


def main():
    model = torch.nn.Linear(8, 10).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(8, 8), torch.randint(0, 10, (8,))) for _ in range(100)]
    start = time.perf_counter()
    train_one_epoch(model, batches, optimizer)
    print(time.perf_counter() - start)


if __name__ == "__main__":
    main()
