# stagec fixture: s26 pos_listing_read_by_helper_a_base_getitem_calls (the training script)
# named: on the command line, with datasets.py (`python train.py`, 8 devices)
# expect: nothing
# ----
import torch
from pytorch_lightning.lite import LightningLite
from pytorch_lightning.strategies import DDPStrategy
from torch.utils.data import DataLoader

from datasets import KubricDataset


class Lite(LightningLite):
    def run(self):
        model, optimizer = self.setup(torch.nn.Linear(8, 1), None)
        loader = self.setup_dataloaders(DataLoader(KubricDataset("/data/kubric"), batch_size=1))
        for epoch in range(10):
            for clip, ok in loader:
                self.backward(model(clip).mean())


if __name__ == "__main__":
    Lite(strategy=DDPStrategy(find_unused_parameters=False), devices="auto", accelerator="gpu").run()
