# stagec fixture: s32 neg_lightning_cli_config_one_device (issue 22, class 9; the look-alike of
#                 pos_lightning_cli_config_sets_workers: the config's Trainer runs on one device
#                 with the automatic strategy, one process)
# named: on the command line (`python train.py --config configs/forecast.yaml`)
# expect: none in this file
# ----
from pytorch_lightning.cli import LightningCLI

from datamodule import ForecastDataModule
from module import ForecastModule


def main():
    cli = LightningCLI(
        model_class=ForecastModule,
        datamodule_class=ForecastDataModule,
        seed_everything_default=42,
        run=False,
    )
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)


if __name__ == "__main__":
    main()
