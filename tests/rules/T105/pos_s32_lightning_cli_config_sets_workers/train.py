# stagec fixture: s32 pos_lightning_cli_config_sets_workers (issue 22, class 9; review 38b's ClimaX:
#                 LightningCLI builds the Trainer, the model and the data module from the YAML
#                 config the command line names; the config runs DDP and gives the data module
#                 its worker count)
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
