# stagec fixture: pos_s29_early_stop_under_two_rank_tests (issue 22, class 2; an MVS trainer's
#   base class: rank 0 logs every few epochs, and inside that, checks the monitored metric and
#   stops when it has not improved for a while; the other ranks go on to the next epoch)
# named: on the command line (an mp.spawn script, no config)
# runtime: multi-rank (mp.spawn, init_process_group, DDP)
# expect:
#   T104 at 34:25 `break` leaves the loop only on ranks where `self.mnt_mode != "off" and self.rank == 0` …
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


class Trainer:
    def __init__(self, model, optimizer, loader, rank, epochs=100, early_stop=10, epoch_inter=1):
        self.model, self.optimizer, self.loader = model, optimizer, loader
        self.rank, self.epochs, self.early_stop, self.epoch_inter = rank, epochs, early_stop, epoch_inter
        self.mnt_mode, self.mnt_best = "min", float("inf")

    def train(self):
        not_improved = 0
        for epoch in range(self.epochs):
            loss = self.train_epoch()
            if self.rank == 0 and epoch % self.epoch_inter == 0:
                print(f"epoch {epoch}: {loss:.4f}")
                if self.mnt_mode != "off" and self.rank == 0:
                    if loss <= self.mnt_best:
                        self.mnt_best = loss
                        not_improved = 0
                    else:
                        not_improved += 1
                    if not_improved > self.early_stop:
                        print("no improvement, stopping")
                        break

    def train_epoch(self):
        total = 0.0
        for x in self.loader:
            self.optimizer.zero_grad()
            loss = self.model(x.cuda(self.rank)).pow(2).mean()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total


def main(gpu, world):
    dist.init_process_group("nccl", rank=gpu, world_size=world)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4).cuda(gpu), device_ids=[gpu])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Trainer(model, opt, [torch.randn(8, 4)], gpu).train()


if __name__ == "__main__":
    mp.spawn(main, nprocs=8, args=(8,))
