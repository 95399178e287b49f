# stagec fixture: pos_s29_lightning_step_returns_none_on_empty_batch (issue 22, class 6; a
#   document OCR model: the collate function drops pages it cannot read and hands the step None
#   when none is left, and `training_step` returns None for it; the Trainer runs DDP with a node
#   count read from the config)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank (Trainer with strategy="ddp_find_unused_parameters_true")
# expect:
#   T103 at 28:9 `batch is None` tests the batch this rank drew, and returns None from `training_step` …
#   nothing for `if batch_idx % 1000 == 0:` (every rank counts the same steps)
# ----
import pytorch_lightning as pl
import torch


def ignore_none_collate(batch):
    batch = [x for x in batch if x is not None]
    if not batch:
        return None
    return torch.utils.data.dataloader.default_collate(batch)


class PageModel(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def training_step(self, batch, batch_idx):
        if batch is None:
            return
        if batch_idx % 1000 == 0:
            print("step", batch_idx)
        images, labels = batch
        return self.model(images, labels)[0]

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=5e-5)


def main(config, model, loader):
    trainer = pl.Trainer(
        num_nodes=config.get("num_nodes", 1),
        devices="auto",
        strategy="ddp_find_unused_parameters_true",
        max_epochs=config["max_epochs"],
    )
    trainer.fit(PageModel(model), loader)
