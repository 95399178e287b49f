# stagec fixture: s26 pos_lightning_lite_batch_skip (issue 22, class 6; co-tracker's
#                 train_on_kubric.py: a `LightningLite` subclass skips a batch whose samples
#                 failed to load, past the Lite's barrier and backward; its `setup_dataloaders`
#                 shards the loader, so each rank's batch is its own. Rank 0 saves with
#                 `self.save`, which under DDP has no barrier in LightningLite: not a T104)
# named: on the command line (`python train.py --num_nodes 1 --gpus 8`)
# expect:
#   T103 at 39:17 `not all(gotit)`: the rank whose batch has a failed sample skips the barrier
# ----
import torch
from pytorch_lightning.lite import LightningLite
from pytorch_lightning.strategies import DDPStrategy
from torch.utils.data import DataLoader, Dataset


class Clips(Dataset):
    def __len__(self):
        return 10000

    def __getitem__(self, i):
        try:
            return torch.randn(8), True
        except OSError:
            return torch.zeros(8), False


class Lite(LightningLite):
    def run(self, args):
        model = torch.nn.Linear(8, 1)
        optimizer = torch.optim.AdamW(model.parameters())
        model, optimizer = self.setup(model, optimizer)
        train_loader = self.setup_dataloaders(DataLoader(Clips(), batch_size=4, num_workers=2, persistent_workers=True))
        total_steps = 0
        epoch = -1
        while total_steps < args.num_steps:
            epoch += 1
            for i_batch, batch in enumerate(train_loader):
                batch, gotit = batch
                if not all(gotit):
                    print("batch is None")
                    continue
                loss = model(batch).pow(2).mean()
                self.barrier()
                self.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
                total_steps += 1
                if self.global_rank == 0 and total_steps % 1000 == 0:
                    self.save({"model": model.state_dict()}, f"model_{total_steps}.pth")


if __name__ == "__main__":
    Lite(strategy=DDPStrategy(find_unused_parameters=False), devices="auto", accelerator="gpu", num_nodes=1).run(None)
