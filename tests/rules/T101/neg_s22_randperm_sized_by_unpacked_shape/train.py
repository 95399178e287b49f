# stagec fixture: neg_s22_randperm_sized_by_unpacked_shape (issue 22, class 3; AcademiCodec's k-means
#   codebook init: `num_samples, device = samples.shape[0], samples.device`, then
#   `torch.randperm(num_samples)[:num]` picks rows of the rank's own batch, whose size the tuple
#   unpacks from a tensor: not an order of the dataset's samples, whatever the ranks' seeds)
# named: on the command line (a torchrun script)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def sample_vectors(samples, num):
    num_samples, device = samples.shape[0], samples.device
    if num_samples >= num:
        indices = torch.randperm(num_samples, device=device)[:num]
    else:
        indices = torch.randint(0, num_samples, (num,), device=device)
    return samples[indices]


def kmeans(samples, num_clusters, num_iters=10):
    means = sample_vectors(samples, num_clusters)
    for _ in range(num_iters):
        dists = torch.cdist(samples, means)
        buckets = dists.argmin(dim=-1)
        for k in range(num_clusters):
            chosen = samples[buckets == k]
            if len(chosen):
                means[k] = chosen.mean(0)
    return means


class Codebook(nn.Module):
    def __init__(self, dim, size):
        super().__init__()
        self.register_buffer("embed", torch.zeros(size, dim))
        self.register_buffer("inited", torch.tensor(False))

    def forward(self, x):
        if not self.inited:
            self.embed.data.copy_(kmeans(x, self.embed.shape[0]))
            self.inited.fill_(True)
        return torch.cdist(x, self.embed).argmin(-1)


def main():
    dist.init_process_group("nccl")
    torch.manual_seed(1234)
    data = TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=64, sampler=sampler)
    encoder = DistributedDataParallel(nn.Linear(16, 16).cuda())
    codebook = Codebook(16, 32).cuda()
    opt = torch.optim.Adam(encoder.parameters())
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            z = encoder(x.cuda())
            codes = codebook(z.detach())
            loss = (z - codebook.embed[codes]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
