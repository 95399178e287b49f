# stagec fixture: pos_s36_ddp_strategy_devices_from_flag_default_one (issue 22, review 47a: WeatherGFT's train.py)
# named: on the command line (no config)
# runtime: multi-rank: Trainer(strategy="ddp", devices=<flag>, num_nodes=<flag>)
# expect: T105 at 51:73
#   the GPU count per node and the node count are flags that default to 1,
#   but the Trainer names the DDP strategy outright and the script sizes its
#   schedule by `devices * num_nodes`: it is written for the runs that pass
#   `--gpus_per_node 8`, one process per GPU, each restarting the training
#   loader's 4 workers every epoch. (`devices=1` written at the call with
#   strategy="ddp" stays one process: neg_t22d_lightning_single_device.)
# ----
from argparse import ArgumentParser

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(4, 32, 32), torch.randn(4, 32, 32)


class Forecaster(L.LightningModule):
    def __init__(self, steps_per_epoch):
        super().__init__()
        self.net = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.steps_per_epoch = steps_per_epoch

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.l1_loss(self.net(x), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=5e-4)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=5e-4, total_steps=50 * self.steps_per_epoch
        )
        return [opt], [{"scheduler": sched, "interval": "step"}]


def train_model(devices, num_nodes):
    train_loader = DataLoader(Frames(4096), batch_size=4, shuffle=True, num_workers=4)
    world_size = devices * num_nodes
    model = Forecaster(steps_per_epoch=len(train_loader) // world_size)
    trainer = L.Trainer(
        max_epochs=50,
        accelerator="gpu",
        devices=devices,
        num_nodes=num_nodes,
        strategy="ddp",
    )
    trainer.fit(model=model, train_dataloaders=train_loader)


if __name__ == "__main__":
    parser = ArgumentParser()
    parser.add_argument("--gpus_per_node", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=1)
    args = parser.parse_args()
    train_model(devices=args.gpus_per_node, num_nodes=args.nodes)
