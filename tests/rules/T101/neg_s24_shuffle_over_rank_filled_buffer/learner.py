# stagec fixture: s24 neg_shuffle_over_rank_filled_buffer (issue 22, class 3; review 31a's
#                 oat: an online learner fills a buffer with its own rank's feedback and
#                 trains on it through a shuffling DataLoader; every rank is seeded alike, so
#                 the ranks draw the same permutation, but each over its own buffer)
# named: on the command line (`torchrun --nproc_per_node 8 learner.py`)
# expect: nothing
# ----
import argparse
from collections import deque

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset


class PreferenceData(Dataset):
    def __init__(self, buffer):
        self.items = list(buffer)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class Learner:
    def __init__(self, args):
        self.args = args
        self.model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-5)
        self.pi_buffer = deque(maxlen=args.buffer_len)

    def collect(self, prompts):
        for p in prompts:
            self.pi_buffer.append(torch.randn(16) + p)

    def learn(self):
        dataset = PreferenceData(buffer=self.pi_buffer)
        loader = DataLoader(dataset, batch_size=self.args.batch_size, shuffle=True, drop_last=True)
        for epoch in range(self.args.max_epochs):
            for x in loader:
                loss = self.model(x.cuda()).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--buffer_len", type=int, default=1024)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--max_epochs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed)
    learner = Learner(args)
    for step in range(100):
        learner.collect(torch.arange(4) * dist.get_rank())
        if step % 10 == 0:
            learner.learn()
            learner.pi_buffer.clear()


if __name__ == "__main__":
    main()
