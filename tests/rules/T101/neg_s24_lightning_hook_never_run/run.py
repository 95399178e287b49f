# stagec fixture: s24 neg_lightning_hook_never_run (issue 22, class 3; review 31a's ViLT: the
#                 per-dataset datamodules' `train_dataloader` shuffles, but the Trainer is handed
#                 only the multitask module, which makes its own sharded loader; the Trainer's
#                 sampler handling is off, so the shuffling hook would matter if it ran — it
#                 never does)
# named: on the command line (the Lightning script and its datamodules)
# expect: nothing
# ----
import pytorch_lightning as pl

from datamodules import MultitaskDataModule


def main(config):
    pl.seed_everything(config["seed"])
    dm = MultitaskDataModule(config)
    model = pl.LightningModule()
    trainer = pl.Trainer(
        accelerator="gpu",
        devices=8,
        strategy="ddp",
        replace_sampler_ddp=False,
        max_epochs=10,
    )
    trainer.fit(model, datamodule=dm)


if __name__ == "__main__":
    main({"seed": 0, "batch_size": 32, "num_workers": 8})
