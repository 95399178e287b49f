# stagec fixture: neg_s29_early_stop_under_two_rank_tests_agreed (look-alike of
#   pos_s29_early_stop_under_two_rank_tests: rank 0 decides under the same two tests, then
#   broadcasts the decision, and every rank leaves together)
# named: on the command line (an mp.spawn script, no config)
# runtime: multi-rank (mp.spawn, init_process_group, DDP)
# expect: nothing
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
            stop = torch.zeros(1, device=self.rank)
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
                        stop.fill_(1)
            dist.broadcast(stop, 0)
            if stop.item() == 1:
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
