# stagec fixture: s25 neg_draws_on_gathered_values (issue 22, class 3; review 33a's unicom:
#                 every rank seeds alike, and the training step's head draws, but only after
#                 gathering every rank's embeddings: the feature columns it samples and the
#                 negative classes its helper samples must be the same on every rank)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.functional import linear, normalize
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class PartialFC(torch.nn.Module):
    def __init__(self, dim, num_local, num_sample, num_feat):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(num_local, dim))
        self.num_local = num_local
        self.num_sample = num_sample
        self.num_feat = num_feat

    def sample(self, labels):
        with torch.no_grad():
            perm = torch.rand(size=[self.num_local], device=labels.device)
            index = torch.topk(perm, k=self.num_sample)[1].sort()[0]
        return self.weight[index]

    def forward(self, local_embeddings, local_labels):
        world = dist.get_world_size()
        gathered = [torch.zeros_like(local_embeddings) for _ in range(world)]
        dist.all_gather(gathered, local_embeddings)
        labels = [torch.zeros_like(local_labels) for _ in range(world)]
        dist.all_gather(labels, local_labels)
        embeddings = torch.cat(gathered)
        weight = self.sample(torch.cat(labels))
        noise = torch.rand(weight.size(1), device=weight.device)
        ids = torch.argsort(noise)[: self.num_feat]
        logits = linear(normalize(embeddings.index_select(1, ids)), normalize(weight.index_select(1, ids)))
        return logits.logsumexp(dim=1).mean()


def main():
    torch.manual_seed(0)
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    backbone = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 16).cuda(rank), device_ids=[rank])
    head = PartialFC(16, 1000, 100, 8).cuda(rank)
    opt = torch.optim.SGD(list(backbone.parameters()) + list(head.parameters()), lr=0.1)
    data = TensorDataset(torch.randn(512, 32), torch.randint(0, 1000, (512,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = head(backbone(x.cuda(rank)), y.cuda(rank))
            loss.backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
