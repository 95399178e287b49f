# stagec fixture: neg_s29_loader_lists_handed_on_unknown (look-alike of
#   pos_s29_loader_lists_handed_to_a_trainer)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP, DistributedSampler)
# expect: nothing:
#   - the validation list also goes to a reporter stagec does not see: where else it is passed
#     over is not known;
#   - the test list is handed to a function that passes over each loader once
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from reporting import register_loaders


class Trainer:
    def __init__(self, model, valid_data_loader=None, epochs=10):
        self.model = model
        self.valid_data_loader = valid_data_loader
        self.epochs = epochs

    def train(self):
        for epoch in range(self.epochs):
            self.valid_epoch()

    def valid_epoch(self):
        with torch.no_grad():
            for dl in self.valid_data_loader:
                for x in dl:
                    self.model(x.cuda())


def test_once(model, loaders):
    with torch.no_grad():
        for dl in loaders:
            for x in dl:
                model(x.cuda())


def main(sets):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4).cuda())
    valid_loaders, test_loaders = [], []
    for ds in sets:
        val_loader = DataLoader(ds, shuffle=False, batch_size=4, num_workers=4, sampler=DistributedSampler(ds, shuffle=False))
        valid_loaders.append(val_loader)
        test_loaders.append(DataLoader(ds, batch_size=4, num_workers=4, sampler=DistributedSampler(ds, shuffle=False)))
    register_loaders(valid_loaders)
    Trainer(model, valid_data_loader=valid_loaders).train()
    test_once(model, test_loaders)
