# stagec fixture: s31 pos_wrapper_dropped_where_made (issue 22, class "other": the trainer wraps
#   its recommender in DDP and keeps only `.module`, then trains through the model's own loss
#   method, read as a value; VQ-Rec's DDPTrainer)
# named: on the command line with the spawning script (`python ddp_finetune.py`, mp.spawn)
# expect:
#   T117 at 27:22 `DistributedDataParallel(…).module` drops the wrapper; the forward `loss_func(…)`
#        at line 34 reaches loss.backward() at line 35; the unsafe fix keeps the wrapper
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel


class SASRec(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(1000, 64)

    def calculate_loss(self, items):
        return self.emb(items).pow(2).mean()


class DDPTrainer:
    def __init__(self, model, rank, world_size):
        dist.init_process_group(backend="nccl", rank=rank, world_size=world_size)
        self.model = DistributedDataParallel(model.cuda(rank), device_ids=[rank], output_device=rank).module
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def _train_epoch(self, train_data, loss_func=None):
        self.model.train()
        loss_func = loss_func or self.model.calculate_loss
        for items in train_data:
            loss = loss_func(items.cuda())
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()


def worker(rank, world_size):
    trainer = DDPTrainer(SASRec(), rank, world_size)
    data = [torch.randint(0, 1000, (32,)) for _ in range(100)]
    for epoch in range(10):
        trainer._train_epoch(data)


if __name__ == "__main__":
    mp.spawn(worker, args=(4,), nprocs=4)
