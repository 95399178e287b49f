# stagec fixture: pos_s29_loader_lists_handed_to_a_trainer (issue 22, class 9; an MVS trainer:
#   one training and one validation loader per dataset, appended to lists the Trainer keeps and
#   passes over every epoch, `for dl in self.valid_data_loader: for batch in dl:`)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP, DistributedSampler)
# expect:
#   T105 at 45:66 num_workers=4 (the validation loaders) …
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class Trainer:
    def __init__(self, model, optimizer, data_loader, valid_data_loader=None, epochs=10):
        self.model, self.optimizer = model, optimizer
        self.data_loader = data_loader
        self.valid_data_loader = valid_data_loader
        self.epochs = epochs

    def train(self):
        for epoch in range(self.epochs):
            for dl in self.data_loader:
                for x in dl:
                    self.optimizer.zero_grad()
                    self.model(x.cuda()).mean().backward()
                    self.optimizer.step()
            self.valid_epoch()

    def valid_epoch(self):
        with torch.no_grad():
            for dl in self.valid_data_loader:
                for x in dl:
                    self.model(x.cuda())


def main(sets):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4).cuda())
    train_loaders, valid_loaders = [], []
    for ds in sets:
        train_loaders.append(DataLoader(ds, batch_size=4, sampler=DistributedSampler(ds), persistent_workers=True, num_workers=4))
        val_sampler = DistributedSampler(ds, shuffle=False)
        val_loader = DataLoader(ds, shuffle=False, batch_size=4, num_workers=4, sampler=val_sampler)
        valid_loaders.append(val_loader)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    Trainer(model, optimizer, train_loaders, valid_data_loader=valid_loaders).train()
