# stagec fixture: pos_s30_pyg_neighbor_sampler_on_rank_zero (issue 22, class 9: torch-quiver's
#   multi-GPU GraphSAGE: PyG's NeighborSampler, a DataLoader subclass, built on rank 0 and passed
#   over once per layer by the wrapped module's `inference`, reached through `model.module`)
# named: on the command line (mp.spawn script)
# runtime: multi-rank (mp.spawn, init_process_group, DDP)
# expect:
#   T105 at 47:98 rank 0's NeighborSampler restarts its 6 workers at each of the 3 layer passes of
#        every evaluation while the other ranks wait at the barrier
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch_geometric.loader import NeighborSampler
from torch_geometric.nn import SAGEConv


class SAGE(torch.nn.Module):
    def __init__(self, dim, classes, num_layers=3):
        super().__init__()
        self.num_layers = num_layers
        self.convs = torch.nn.ModuleList([SAGEConv(dim, dim) for _ in range(num_layers - 1)])
        self.convs.append(SAGEConv(dim, classes))

    def forward(self, x, adjs):
        for i, (edge_index, _, size) in enumerate(adjs):
            x = self.convs[i]((x, x[: size[1]]), edge_index)
        return x

    def inference(self, x_all, device, subgraph_loader):
        for i in range(self.num_layers):
            xs = []
            for batch_size, n_id, adj in subgraph_loader:
                edge_index, _, size = adj.to(device)
                x = x_all[n_id].to(device)
                xs.append(self.convs[i]((x, x[: size[1]]), edge_index).cpu())
            x_all = torch.cat(xs, dim=0)
        return x_all


def run(rank, world_size, x, y, edge_index, train_idx):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_idx = train_idx.split(train_idx.size(0) // world_size)[rank]
    train_loader = NeighborSampler(edge_index, node_idx=train_idx, sizes=[15, 10, 5], batch_size=1024)
    if rank == 0:
        subgraph_loader = NeighborSampler(edge_index, node_idx=None, sizes=[-1], batch_size=512, num_workers=6)
    model = DistributedDataParallel(SAGE(x.size(1), 47).to(rank), device_ids=[rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(1, 21):
        model.train()
        for batch_size, n_id, adjs in train_loader:
            adjs = [adj.to(rank) for adj in adjs]
            optimizer.zero_grad()
            loss = F.nll_loss(model(x[n_id].to(rank), adjs), y[n_id[:batch_size]].to(rank))
            loss.backward()
            optimizer.step()
        dist.barrier()
        if rank == 0 and epoch % 5 == 0:
            model.eval()
            with torch.no_grad():
                out = model.module.inference(x, rank, subgraph_loader)
            print(int((out.argmax(-1) == y).sum()) / y.numel())
        dist.barrier()


if __name__ == "__main__":
    world = torch.cuda.device_count()
    mp.spawn(run, args=(world, None, None, None, None), nprocs=world, join=True)
